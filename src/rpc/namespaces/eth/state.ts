/** eth_ state reads at a block: balance, code, storage, nonce. */
import { createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import { Address as AddressParam, type BlockRef, BlockTag, LATEST, optional, StorageKey } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

export const stateMethods: MethodTable<Backend> = {
  eth_getBalance: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const account = await state.getAccount(createAddressFromString(address as string))
      return toQuantity(account?.balance ?? 0n)
    },
  },
  eth_getCode: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      return toData(await state.getCode(createAddressFromString(address as string)))
    },
  },
  eth_getStorageAt: {
    params: [AddressParam, StorageKey, optional(BlockTag, LATEST)],
    handler: async (b, [address, slot, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const key = setLengthLeft(slot as Uint8Array, 32)
      const value = await state.getStorage(createAddressFromString(address as string), key)
      return toData(setLengthLeft(value, 32))
    },
  },
  eth_getTransactionCount: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const r = ref as BlockRef
      const state = b.stateAt(b.stateBlock(r))
      const account = await state.getAccount(createAddressFromString(address as string))
      const nonce = account?.nonce ?? 0n
      if (r.kind === 'tag' && r.tag === 'pending') {
        return toQuantity(b.pool.nextNonce(address as string, nonce))
      }
      return toQuantity(nonce)
    },
  },
}

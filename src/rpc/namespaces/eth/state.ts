/** eth_ state reads at a block: balance, code, storage, nonce. */
import { Address, setLengthLeft } from '@ethereumjs/util'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import { Address as AddressParam, BlockTag, Quantity, optional, type BlockRef, LATEST } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

export const stateMethods: MethodTable<Backend> = {
  eth_getBalance: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const account = await state.getAccount(new Address(address as Uint8Array))
      return toQuantity(account?.balance ?? 0n)
    },
  },
  eth_getCode: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      return toData(await state.getCode(new Address(address as Uint8Array)))
    },
  },
  eth_getStorageAt: {
    params: [AddressParam, Quantity, optional(BlockTag, LATEST)],
    handler: async (b, [address, slot, ref]) => {
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const key = setLengthLeft(bigToBytes(slot as bigint), 32)
      const value = await state.getStorage(new Address(address as Uint8Array), key)
      return toData(setLengthLeft(value, 32))
    },
  },
  eth_getTransactionCount: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: async (b, [address, ref]) => {
      const r = ref as BlockRef
      const state = b.stateAt(b.stateBlock(r))
      const account = await state.getAccount(new Address(address as Uint8Array))
      const nonce = account?.nonce ?? 0n
      if (r.kind === 'tag' && r.tag === 'pending') {
        return toQuantity(b.pool.nextNonce(`0x${Buffer.from(address as Uint8Array).toString('hex')}`, nonce))
      }
      return toQuantity(nonce)
    },
  },
}

function bigToBytes(n: bigint): Uint8Array {
  const hex = n.toString(16)
  return Buffer.from(hex.length % 2 ? `0${hex}` : hex, 'hex')
}

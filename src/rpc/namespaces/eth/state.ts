/** eth_ state reads at a block: balance, code, storage, nonce. */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, createAddressFromString, setLengthLeft } from '@ethereumjs/util'
import type { ChainBlock } from '../../../chain/store.js'
import { accountAt } from '../../../state/index.js'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import { Address as AddressParam, type BlockRef, BlockTag, LATEST, optional, StorageKey } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

/** Field of an account's RLP [nonce, balance, storageRoot, codeHash]. */
const ACCOUNT_NONCE = 0
const ACCOUNT_BALANCE = 1

/**
 * A field of the account at `block`'s state, read without building a state manager (the root's
 * flat cache, else its committed trie nodes: src/state/index.ts accountAt); undefined when it
 * must be read through one.
 */
function cachedField(b: Backend, block: ChainBlock, address: string, field: number): bigint | undefined {
  const rlp = accountAt(b.db, block.header.stateRoot, address.slice(2).toLowerCase())
  if (rlp === undefined) return undefined
  return rlp === null ? 0n : bytesToBigInt((RLP.decode(rlp) as Uint8Array[])[field] as Uint8Array)
}

export const stateMethods: MethodTable<Backend> = {
  eth_getBalance: {
    params: [AddressParam, optional(BlockTag, LATEST)],
    handler: (b, [address, ref]) => {
      const block = b.stateBlock(ref as BlockRef)
      const cached = cachedField(b, block, address as string, ACCOUNT_BALANCE)
      if (cached !== undefined) return toQuantity(cached)
      return b
        .stateAt(block)
        .getAccount(createAddressFromString(address as string))
        .then((account) => toQuantity(account?.balance ?? 0n))
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
      const block = b.stateBlock(r)
      const nonce =
        cachedField(b, block, address as string, ACCOUNT_NONCE) ??
        (await b.stateAt(block).getAccount(createAddressFromString(address as string)))?.nonce ??
        0n
      if (r.kind === 'tag' && r.tag === 'pending') {
        return toQuantity(b.pool.nextNonce(address as string, nonce))
      }
      return toQuantity(nonce)
    },
  },
}

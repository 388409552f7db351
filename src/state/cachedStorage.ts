/**
 * Storage writes that stay in ethereumjs' write caches until the flush. MerkleStateManager's
 * putStorage means to do that (`caches.storage.put(…) ?? writeToTrie(…)`), but the cache's put
 * returns undefined, so every SSTORE also went through the account's storage trie at once (key
 * keccak, the path's nodes re-encoded and re-hashed, the account rewritten) and was written a
 * second time at the flush: most of runTx's time for a token transfer.
 *
 * Here a write goes to the storage cache only. What keeps that exact: the cache holds every slot
 * written since the last flush (its LRU is keyed by account, far above what a block touches:
 * WRITER_CACHE_SLOTS), reads look in it before the trie, checkpoints and reverts are the
 * cache's own, and the flush writes each slot into the storage trie at the account's root and
 * the new root into the account, as before. The account's storageRoot is stale until that
 * flush; the EVM reads it only for CREATE's address-collision check (EIP-7610), which cannot see
 * a difference (an address whose storage was written this block has code, a nonce, or was
 * created and destroyed within one transaction). src/consensus/blockExec.test.ts builds its
 * blocks (token transfers, creations, self-destructs, reverts, out of gas, random mixes) both ways
 * and compares them; the conformance import checks the state roots of a geth chain.
 */
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { RLP } from '@ethereumjs/rlp'
import { type Address, unpadBytes } from '@ethereumjs/util'

interface WithCaches {
  _caches?: { storage?: { put(address: Address, key: Uint8Array, value: Uint8Array): void } }
}

/**
 * Writes the slot into `sm`'s storage cache with putStorage's checks and encoding; false when
 * `sm` has no storage cache: then call MerkleStateManager.putStorage.
 */
export async function putStorageCached(
  sm: MerkleStateManager,
  address: Address,
  key: Uint8Array,
  value: Uint8Array,
): Promise<boolean> {
  const cache = (sm as unknown as WithCaches)._caches?.storage
  if (cache === undefined) return false
  if (key.length !== 32) throw new Error('Storage key must be 32 bytes long')
  if (value.length > 32) throw new Error('Storage value cannot be longer than 32 bytes')
  if ((await sm.getAccount(address)) === undefined) throw new Error('putStorage() called on non-existing account')
  cache.put(address, key, RLP.encode(unpadBytes(value)))
  return true
}

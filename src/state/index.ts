/**
 * State access. World state is a Merkle-Patricia trie over RocksDB (TrieStore); a reader is
 * a MerkleStateManager rooted at a block's state root. Roots are immutable, so any number of
 * readers at old roots can run while the block builder writes new nodes.
 *
 * Readers (stateAt) answer from flat per-root caches of what was already read at their root
 * before walking the trie (readCache.ts, sharedRead.ts): an account read twice at the head costs
 * a map lookup the second time. The walk itself reads the committed nodes directly
 * (trieLookup.ts), with ethereumjs' trie as the fallback for roots not (yet) in the database.
 */
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { Caches, CacheType, type MerkleStateManager } from '@ethereumjs/statemanager'
import type { Database } from '../db/db.js'
import { readAccount } from './flatAccounts.js'
import { readCacheFor } from './readCache.js'
import { MISSING_NODE, trieRead } from './trieLookup.js'
import { SharedReadStateManager, trieAt } from './sharedRead.js'
import { WriterStateManager } from './writer.js'
import type { TrieStore } from './trieStore.js'
import { hexOf } from '../util/bytes.js'
import { decodeRlp } from '../util/rlp.js'

export { SharedReadStateManager } from './sharedRead.js'
export { WriterStateManager } from './writer.js'
export { TrieStore } from './trieStore.js'

/**
 * Accounts and slots a writer's caches hold. A block touches at most a few thousand accounts and
 * tens of thousands of slots (60M gas); the LRU must never drop a modified entry before the flush
 * at the end of the block, so these stay far above that.
 */
export const WRITER_CACHE_ACCOUNTS = 200_000
export const WRITER_CACHE_SLOTS = 400_000
export const WRITER_CACHE_CODES = 4_000

/**
 * A state manager whose writes go to `store`'s overlay (flushed by the block commit). Accounts,
 * slots and code go through ethereumjs' write caches: a block's writes reach the trie once per
 * account at the end of the block (executeTransactions holds a checkpoint across the block), not
 * once per touch — each trie write re-hashes the account's whole path.
 */
export function createStateManager(
  store: TrieStore,
  common: Common,
  root?: Uint8Array,
  opts: { storageThroughTrie?: boolean } = {},
): WriterStateManager {
  const trie = new MerklePatriciaTrie({
    db: store,
    useKeyHashing: true,
    valueEncoding: 'view',
    common,
    ...(root ? { root } : {}),
  })
  const caches = new Caches({
    account: { type: CacheType.LRU, size: WRITER_CACHE_ACCOUNTS },
    storage: { type: CacheType.LRU, size: WRITER_CACHE_SLOTS },
    code: { type: CacheType.LRU, size: WRITER_CACHE_CODES },
  })
  return new WriterStateManager({ trie, common, caches }, store.database, store, opts.storageThroughTrie)
}

/**
 * A throw-away state manager at `root`: reads RocksDB (through the root's shared read caches),
 * keeps its writes in memory only.
 */
export function stateAt(db: Database, common: Common, root: Uint8Array): MerkleStateManager {
  const shared = readCacheFor(db, root)
  shared.trie ??= trieAt(db, common, root)
  return new SharedReadStateManager({ trie: shared.trie, common }, shared, db)
}

/**
 * A state manager at `root` meant to be reused by many executions that must leave no trace (eth_call):
 * reads through the root's shared caches, writes held in ethereumjs' Caches (no trie hashing), so
 * that a checkpoint taken before each execution and reverted after it discards everything.
 */
export function reusableStateAt(db: Database, common: Common, root: Uint8Array): SharedReadStateManager {
  const shared = readCacheFor(db, root)
  shared.trie ??= trieAt(db, common, root)
  return new SharedReadStateManager({ trie: shared.trie, common, caches: new Caches() }, shared, db)
}

/**
 * The account at `root` as the root's flat read cache holds it, without a state manager: its RLP,
 * null when it does not exist, undefined when it is not cached (then read it through stateAt).
 * `address` is 40 hex digits, lowercase, no 0x.
 */
export function cachedAccount(db: Database, root: Uint8Array, address: string): Uint8Array | null | undefined {
  return readCacheFor(db, root).accounts.get(address)
}

/**
 * The account at the committed `root`, without a state manager: from the root's flat read cache,
 * else read from the trie's nodes (trieLookup.ts) and remembered there. Its RLP, null when it
 * does not exist, undefined when the root's nodes are not all in the database (then read it
 * through stateAt). `address` is 40 hex digits, lowercase, no 0x.
 */
export function accountAt(db: Database, root: Uint8Array, address: string): Uint8Array | null | undefined {
  const shared = readCacheFor(db, root)
  const hit = shared.accounts.get(address)
  if (hit !== undefined) return hit
  const raw = readAccount(db, shared.rootBytes, Buffer.from(address, 'hex'))
  if (raw === MISSING_NODE) return undefined
  shared.accounts.set(address, raw ?? null)
  return raw ?? null
}

/** Position of the storage root in an account's RLP [nonce, balance, storageRoot, codeHash]. */
const ACCOUNT_STORAGE_ROOT = 2
const NO_VALUE: Uint8Array = new Uint8Array(0)

/**
 * A storage slot at the committed `root`, without a state manager: from the root's flat read
 * cache, else read from the account's and its storage trie's nodes (trieLookup.ts) and remembered
 * there — the value as SharedReadStateManager.getStorage answers it (leading zeros dropped, empty
 * when unset or the account does not exist). undefined when the root's nodes are not all in the
 * database (then read it through stateAt). `address` is 40 hex digits, lowercase, no 0x; `slot`
 * is 32 bytes.
 */
export function storageAt(db: Database, root: Uint8Array, address: string, slot: Uint8Array): Uint8Array | undefined {
  if (slot.length !== 32) return undefined
  const shared = readCacheFor(db, root)
  const key = address + hexOf(slot)
  const hit = shared.slots.get(key)
  if (hit !== undefined) return hit
  const account = accountAt(db, root, address)
  if (account === undefined) return undefined
  let value = NO_VALUE
  if (account !== null) {
    const storageRoot = (decodeRlp(account) as Uint8Array[])[ACCOUNT_STORAGE_ROOT]
    if (storageRoot === undefined || Array.isArray(storageRoot)) return undefined
    const raw = trieRead(db, storageRoot, slot)
    if (raw === MISSING_NODE) return undefined
    if (raw !== undefined) {
      const decoded = decodeRlp(raw)
      if (Array.isArray(decoded)) return undefined
      value = decoded
    }
  }
  shared.slots.set(key, value)
  return value
}

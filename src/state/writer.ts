/**
 * WriterStateManager: the block builder's state manager. It remembers the accounts it wrote
 * since its last seed, so that once a block is committed their values — already in its write
 * caches — can prime the new root's flat read cache (readCache.ts). Without that, the first read
 * of every account a block touched (the pool re-reading each sender's nonce and balance for the
 * next transactions, eth_getBalance at the new head) walks the trie again.
 *
 * Storage writes and code reach the account itself at the flush (a new storage root or code
 * hash goes through putAccount), so recording putAccount and deleteAccount sees every account
 * the block changed.
 *
 * The flush itself writes each trie as one batch (batchTrie.ts: every changed node hashed once)
 * instead of ethereumjs' put per key, which re-hashes the key's whole path every time.
 */
import { RLP } from '@ethereumjs/rlp'
import { CODEHASH_PREFIX, MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import {
  Account,
  type Address,
  concatBytes,
  createAccountFromRLP,
  createAddressFromString,
  unprefixedHexToBytes,
} from '@ethereumjs/util'
import type { Database } from '../db/db.js'
import { keccak256 } from '../util/keccak.js'
import { type NodeStore, updateTrie } from './batchTrie.js'
import { putStorageCached } from './cachedStorage.js'
import { readAccount } from './flatAccounts.js'
import { readCacheFor } from './readCache.js'
import { MISSING_NODE, trieRead } from './trieLookup.js'
import { hexOf } from '../util/bytes.js'

const RLP_EMPTY_STRING = Uint8Array.of(0x80)

export class WriterStateManager extends MerkleStateManager {
  /** Accounts written since the last seed (hex → address). */
  readonly #written = new Map<string, Address>()
  /** Where the committed trie nodes are, for reads that miss the write caches (trieLookup.ts). */
  readonly #db: Database | undefined
  /** The store the tries' nodes are written to (TrieStore): the batched flush writes there; absent = ethereumjs' flush. */
  readonly #nodes: NodeStore | undefined

  /** Every SSTORE through the storage trie, as ethereumjs does (the differential test's reference); default false. */
  readonly #storageThroughTrie: boolean

  constructor(opts: MerkleStateManagerOpts, db?: Database, nodes?: NodeStore, storageThroughTrie = false) {
    super(opts)
    this.#db = db
    this.#nodes = nodes
    this.#storageThroughTrie = storageThroughTrie
  }

  /**
   * Writes the caches' changes to the tries, as MerkleStateManager.flush (code, then storage, then
   * accounts) but each trie in one batch. Falls back to ethereumjs' flush where the tries are not
   * plain (checkpoints open on the account trie, prefixed storage keys).
   */
  override async flush(): Promise<void> {
    const caches = this._caches
    const nodes = this.#nodes
    if (nodes === undefined || caches === undefined || this._prefixStorageTrieKeys || this._trie.hasCheckpoints()) {
      return super.flush()
    }
    for (const [addressHex, elem] of caches.code?.flush() ?? []) {
      const code = elem.code
      if (code === undefined) continue
      const codeHash = keccak256(code)
      await this._getCodeDB().put(this._prefixCodeHashes ? concatBytes(CODEHASH_PREFIX, codeHash) : codeHash, code)
      const address = createAddressFromString(`0x${addressHex}`)
      if ((await this.getAccount(address)) === undefined) await this.putAccount(address, new Account())
      await this.modifyAccountFields(address, { codeHash })
    }
    const slots = new Map<string, [Uint8Array, Uint8Array | null][]>()
    for (const [addressHex, keyHex, value] of caches.storage?.flush() ?? []) {
      const decoded = RLP.decode(value ?? new Uint8Array(0)) as Uint8Array
      let writes = slots.get(addressHex)
      if (writes === undefined) {
        writes = []
        slots.set(addressHex, writes)
      }
      writes.push([keccak256(unprefixedHexToBytes(keyHex)), decoded.length > 0 ? RLP.encode(decoded) : null])
    }
    for (const [addressHex, writes] of slots) {
      const address = createAddressFromString(`0x${addressHex}`)
      const account = await this.getAccount(address)
      // as ethereumjs: storage of an account that no longer exists is dropped
      if (account === undefined) continue
      account.storageRoot = updateTrie(nodes, account.storageRoot, writes)
      await this.putAccount(address, account)
    }
    // storage tries ethereumjs opened hold roots from before this flush
    if (slots.size > 0) this._storageTries = {}
    const accounts: [Uint8Array, Uint8Array | null][] = []
    for (const [addressHex, elem] of caches.account?.flush() ?? []) {
      accounts.push([keccak256(unprefixedHexToBytes(addressHex)), elem.accountRLP ?? null])
    }
    if (accounts.length > 0) {
      const from = this._trie.root()
      const to = updateTrie(nodes, from, accounts)
      this._trie.root(to)
      nodes.recordAccounts?.(from, to, accounts)
    }
  }

  /**
   * As MerkleStateManager.getAccount (write cache first, then the trie, the answer cached), with
   * the trie read straight from the committed nodes: during a block nothing reaches the account
   * trie before the flush, so its root is a committed one; a root that is not (its nodes in a
   * TrieStore overlay) answers MISSING_NODE and is read through ethereumjs.
   */
  override async getAccount(address: Address): Promise<Account | undefined> {
    const accounts = this._caches?.account
    if (accounts === undefined || this.#db === undefined) return super.getAccount(address)
    const elem = accounts.get(address)
    if (elem !== undefined) return elem.accountRLP !== undefined ? createAccountFromRLP(elem.accountRLP) : undefined
    const raw = readAccount(this.#db, this._trie.root(), address.bytes)
    if (raw === MISSING_NODE) return super.getAccount(address)
    const account = raw === undefined ? undefined : createAccountFromRLP(raw)
    accounts.put(address, account)
    return account
  }

  /** As MerkleStateManager.getStorage, the slot read from the committed storage trie's nodes (see getAccount). */
  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const slots = this._caches?.storage
    if (slots === undefined || this.#db === undefined || key.length !== 32) return super.getStorage(address, key)
    const cached = slots.get(address, key)
    if (cached !== undefined) return RLP.decode(cached) as Uint8Array
    const account = await this.getAccount(address)
    if (account === undefined) return new Uint8Array()
    const raw = trieRead(this.#db, account.storageRoot, key)
    if (raw === MISSING_NODE) return super.getStorage(address, key)
    slots.put(address, key, raw ?? RLP_EMPTY_STRING)
    return RLP.decode(raw ?? new Uint8Array(0)) as Uint8Array
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    this.#written.set(hexOf(address.bytes), address)
    return super.putAccount(address, account)
  }

  /** Into the write cache only, until the flush (cachedStorage.ts). */
  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    if (this.#storageThroughTrie || !(await putStorageCached(this, address, key, value))) {
      return super.putStorage(address, key, value)
    }
  }

  override async deleteAccount(address: Address): Promise<void> {
    this.#written.set(hexOf(address.bytes), address)
    return super.deleteAccount(address)
  }

  /**
   * Puts the accounts written since the last call into `db`'s read cache of `root`, as this state
   * holds them now, and forgets them. Only right after this state was committed as `root`: every
   * checkpoint closed and flushed, so its caches hold exactly the state at `root`.
   */
  seedReadCache(db: Database, root: Uint8Array): void {
    const accounts = this._caches?.account
    if (this._checkpointCount === 0 && accounts !== undefined) {
      const cache = readCacheFor(db, root)
      for (const [hex, address] of this.#written) {
        const elem = accounts.get(address)
        // evicted from the LRU: left to a trie read
        if (elem !== undefined) cache.accounts.set(hex, elem.accountRLP ?? null)
      }
    }
    this.#written.clear()
  }
}

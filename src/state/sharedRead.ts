/**
 * SharedReadStateManager: a MerkleStateManager at a fixed root that answers reads of accounts,
 * storage and code from the root's shared flat caches (readCache.ts) before walking the trie,
 * and fills them on a miss. The walk reads the root's committed nodes directly (trieLookup.ts);
 * ethereumjs' trie reads only what those cannot (a root whose nodes are not in the database).
 *
 * What must always hold: the shared maps hold the state AT THE ROOT, never this instance's own
 * writes. So an account, or a storage slot, this instance wrote (a reverted write counts too) is
 * read through ethereumjs from then on — all slots of an account whose storage was cleared,
 * deleted or given another storage root — and once its root is moved (setStateRoot) the instance
 * stops using the shared maps at all. Everything else still comes from the maps: a write to one
 * account or slot leaves every other as it was at the root.
 *
 * Readers of a root also share one trie object (building a MerklePatriciaTrie costs ~20 µs, more
 * than a cached read): reads never change it. Before anything that would (a write, a checkpoint,
 * a new root, a flush), the instance swaps in a private trie at the same root over its own
 * TrieStore, so its writes stay its own.
 */
import { createRequire } from 'node:module'
import { isatty } from 'node:tty'
import type { Common } from '@ethereumjs/common'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager, type MerkleStateManagerOpts } from '@ethereumjs/statemanager'
import type { Address } from '@ethereumjs/util'
import { type Account, createAccountFromRLP, equalsBytes } from '@ethereumjs/util'
import type { Database } from '../db/db.js'
import { putStorageCached } from './cachedStorage.js'
import { readAccount } from './flatAccounts.js'
import { codeCache, type RootReadCache } from './readCache.js'
import { MISSING_NODE, trieRead } from './trieLookup.js'
import { TrieStore } from './trieStore.js'
import { hexOf } from '../util/bytes.js'

/** A trie at `root` over RocksDB, writes kept in its own overlay. */
export function trieAt(db: Database, common: Common, root: Uint8Array | undefined): MerklePatriciaTrie {
  return new MerklePatriciaTrie({
    db: new TrieStore(db),
    useKeyHashing: true,
    valueEncoding: 'view',
    common,
    ...(root ? { root } : {}),
  })
}

/**
 * Every MerkleStateManager constructor creates a `debug` logger, and `debug` asks the OS whether
 * stderr is a terminal (an ioctl) for each one unless told: ~10% of the CPU of an eth_getBalance
 * load. Told here once, with the answer it would get, for the `debug` ethereumjs loads.
 */
function settleDebugColors(): void {
  try {
    const require = createRequire(import.meta.resolve('@ethereumjs/statemanager'))
    const debug = require('debug') as { inspectOpts?: Record<string, unknown> }
    if (debug.inspectOpts !== undefined && !('colors' in debug.inspectOpts))
      debug.inspectOpts.colors = isatty(process.stderr.fd)
  } catch {
    // another build of `debug`: it keeps asking, nothing breaks
  }
}
settleDebugColors()

const EMPTY = new Uint8Array(0)

export class SharedReadStateManager extends MerkleStateManager {
  #shared: RootReadCache | undefined
  /** Accounts (address hex) this instance wrote: read through ethereumjs from then on. */
  readonly #accounts = new Set<string>()
  /** Accounts whose storage may differ from the root's as a whole (cleared, deleted, created). */
  readonly #storages = new Set<string>()
  /** Slots (address hex ‖ slot hex) this instance wrote. */
  readonly #slots = new Set<string>()
  /** Set while `_trie` is the root's shared reader trie. */
  #db: Database | undefined
  /** The database, for the shared storage reader tries. */
  readonly #readDb: Database

  /** `opts.trie` is the root's shared reader trie (see trieAt / readCacheFor). */
  constructor(
    opts: MerkleStateManagerOpts & { trie: MerklePatriciaTrie; common: Common },
    shared: RootReadCache,
    db: Database,
  ) {
    super(opts)
    this.#shared = shared
    this.#db = db
    this.#readDb = db
  }

  /** Swaps the shared reader trie for a private one before anything changes it. */
  #own(): void {
    const db = this.#db
    if (db === undefined) return
    this.#db = undefined
    this._trie = trieAt(db, this.common, this._trie.root())
    this._storageTries = {}
  }

  override async getAccount(address: Address): Promise<Account | undefined> {
    const shared = this.#shared
    if (shared === undefined) return super.getAccount(address)
    const key = hexOf(address.bytes)
    if (this.#accounts.has(key)) return super.getAccount(address)
    const hit = shared.accounts.get(key)
    if (hit !== undefined) return hit === null ? undefined : createAccountFromRLP(hit)
    // the root's own value, straight from its committed trie nodes (trieLookup.ts)
    const raw = readAccount(this.#readDb, shared.rootBytes, address.bytes)
    if (raw !== MISSING_NODE) {
      shared.accounts.set(key, raw ?? null)
      return raw === undefined ? undefined : createAccountFromRLP(raw)
    }
    const account = await super.getAccount(address)
    // a write may have landed while the trie was read: only the root's value may be shared
    if (!this.#accounts.has(key) && this.#shared === shared)
      shared.accounts.set(key, account === undefined ? null : account.serialize())
    return account
  }

  override async getStorage(address: Address, key: Uint8Array): Promise<Uint8Array> {
    const shared = this.#shared
    if (shared === undefined) return super.getStorage(address, key)
    const addr = hexOf(address.bytes)
    const slot = addr + hexOf(key)
    if (this.#storages.has(addr) || this.#slots.has(slot)) return super.getStorage(address, key)
    const hit = shared.slots.get(slot)
    if (hit !== undefined) return hit
    const value = await this.#rootStorage(shared, address, key)
    if (!this.#storages.has(addr) && !this.#slots.has(slot) && this.#shared === shared) shared.slots.set(slot, value)
    return value
  }

  /**
   * A slot as it is at the root: from the committed nodes of the account's storage trie
   * (trieLookup.ts), else through the root's shared ethereumjs storage trie of the account
   * (ethereumjs builds a storage trie per account after every revert, ~20 µs, which an eth_call
   * on a slot not read before paid each time). Only for accounts whose storage is the root's.
   */
  async #rootStorage(shared: RootReadCache, address: Address, key: Uint8Array): Promise<Uint8Array> {
    if (key.length !== 32) return super.getStorage(address, key)
    const account = await this.getAccount(address)
    if (account === undefined) return new Uint8Array(0)
    const direct = trieRead(this.#readDb, account.storageRoot, key)
    if (direct !== MISSING_NODE) return direct === undefined ? new Uint8Array(0) : (RLP.decode(direct) as Uint8Array)
    const root = hexOf(account.storageRoot)
    let trie = shared.storageTries.get(root)
    if (trie === undefined) {
      trie = trieAt(this.#readDb, this.common, account.storageRoot)
      shared.storageTries.set(root, trie)
    }
    const raw = await trie.get(key)
    return RLP.decode(raw ?? EMPTY) as Uint8Array
  }

  /** Code by the account's code hash: immutable, so shared across roots (even for written accounts). */
  override async getCode(address: Address): Promise<Uint8Array> {
    if (this.#shared === undefined) return super.getCode(address)
    const pending = this._caches?.code?.get(address)
    if (pending !== undefined) return pending.code ?? new Uint8Array(0)
    const account = await this.getAccount(address)
    if (account === undefined || !account.isContract()) return new Uint8Array(0)
    const hash = hexOf(account.codeHash)
    const hit = codeCache.get(hash)
    if (hit !== undefined) return hit
    const code = await super.getCode(address)
    if (code.length > 0) codeCache.set(hash, code)
    return code
  }

  override async putAccount(address: Address, account: Account | undefined): Promise<void> {
    const addr = hexOf(address.bytes)
    // the same storage root (a balance or nonce change) leaves the root's slots valid
    const before = await this.getAccount(address)
    if (before === undefined || account === undefined || !equalsBytes(before.storageRoot, account.storageRoot))
      this.#storages.add(addr)
    this.#accounts.add(addr)
    this.#own()
    return super.putAccount(address, account)
  }

  override async deleteAccount(address: Address): Promise<void> {
    const addr = hexOf(address.bytes)
    this.#accounts.add(addr)
    this.#storages.add(addr)
    this.#own()
    return super.deleteAccount(address)
  }

  override async putStorage(address: Address, key: Uint8Array, value: Uint8Array): Promise<void> {
    const addr = hexOf(address.bytes)
    this.#slots.add(addr + hexOf(key))
    // without ethereumjs' Caches the write changes the account's storage root
    if (this._caches === undefined) this.#accounts.add(addr)
    this.#own()
    // with them it stays in the storage cache until a flush (cachedStorage.ts)
    if (!(await putStorageCached(this, address, key, value))) return super.putStorage(address, key, value)
  }

  override async clearStorage(address: Address): Promise<void> {
    const addr = hexOf(address.bytes)
    this.#accounts.add(addr)
    this.#storages.add(addr)
    this.#own()
    return super.clearStorage(address)
  }

  override async putCode(address: Address, value: Uint8Array): Promise<void> {
    this.#accounts.add(hexOf(address.bytes))
    this.#own()
    return super.putCode(address, value)
  }

  /**
   * Reads of written addresses may use the shared maps again. Only for an instance whose writes
   * all went to ethereumjs' Caches and were all reverted (the reused state of eth_call): its
   * checkpoints are all closed and nothing reached the trie, so it is back at the root.
   */
  forgetWrites(): void {
    if (this._checkpointCount !== 0 || this._caches === undefined)
      throw new Error('forgetWrites: writes may have reached the trie')
    this.#accounts.clear()
    this.#storages.clear()
    this.#slots.clear()
  }

  override async setStateRoot(stateRoot: Uint8Array, clearCache?: boolean): Promise<void> {
    this.#shared = undefined
    this.#own()
    return super.setStateRoot(stateRoot, clearCache)
  }

  override async checkpoint(): Promise<void> {
    this.#own()
    return super.checkpoint()
  }

  override async commit(): Promise<void> {
    this.#own()
    return super.commit()
  }

  override async revert(): Promise<void> {
    this.#own()
    return super.revert()
  }

  override async flush(): Promise<void> {
    this.#own()
    return super.flush()
  }
}

/**
 * Flat reads in front of the trie: per state root, the accounts and storage slots already read
 * at that root, as plain maps (address → account RLP, address‖slot → value), shared by every
 * reader of the root in this thread. A root's state never changes (content-addressed trie), so
 * an entry never goes stale; writers never touch these maps (see SharedReadStateManager), and
 * contract code is cached by its hash, which is immutable too.
 *
 *   stateAt(root).getAccount(a) ─▶ RootReadCache(root).accounts ─miss─▶ trie walk ─▶ remember
 *
 * Readers keep asking for the head's root, so a few recent roots are kept (oldest dropped), each
 * with a bounded number of entries (past it, the oldest insertions go first).
 */
import type { MerklePatriciaTrie } from '@ethereumjs/mpt'
import type { Database } from '../db/db.js'
import { sameBytes } from '../util/bytes.js'
import { Doorkeeper } from '../util/doorkeeper.js'
import { FifoMap } from '../util/fifoMap.js'

/** Roots kept per database (the head, the block before it while readers move on, and a spare). */
export const READ_CACHE_ROOTS = 3
/** Accounts remembered per root. */
export const READ_CACHE_ACCOUNTS = 100_000
/** Storage slots remembered per root. */
export const READ_CACHE_SLOTS = 200_000
/** Storage tries kept per root for reads (by storage root). */
export const READ_CACHE_STORAGE_TRIES = 1_024
/** Contract code remembered (by code hash, all roots), bytes. */
export const CODE_CACHE_BYTES = 32 * 1024 * 1024

/**
 * Slots of the storage-slot doorkeeper (a power of two), one per thread and shared by every root:
 * a slot's value is kept at a root only when the slot was read before — at this root or an earlier
 * one — while its fingerprint still holds its place, among roughly the last this many distinct slots.
 */
export const READ_CACHE_SLOT_DOORKEEPER = 1 << 17

/**
 * The slots' doorkeeper: a slot read once (a scan of distinct balanceOf calls reads a new mapping
 * slot each) is not kept, so it evicts nothing. Kept, each such value pushed an older one out of
 * READ_CACHE_SLOTS, left for the old generation's collector; a slot read again is kept on its second
 * read (one more trie walk, through cached nodes).
 */
const slotDoorkeeper = new Doorkeeper(READ_CACHE_SLOT_DOORKEEPER)

/** A bounded map evicting its oldest insertions; behind a doorkeeper, it keeps a key the second time it is set. */
class BoundedMap<V> {
  readonly #map = new FifoMap<string, V>()
  readonly #max: number
  readonly #door: Doorkeeper | undefined
  constructor(max: number, door?: Doorkeeper) {
    this.#max = max
    this.#door = door
  }
  get(key: string): V | undefined {
    return this.#map.get(key)
  }
  set(key: string, value: V): void {
    if (this.#door !== undefined && !this.#door.admit(key)) return
    if (this.#map.set(key, value) && this.#map.size > this.#max) this.#map.shift()
  }
  get size(): number {
    return this.#map.size
  }
}

/** What has been read at one state root. `null` = the account does not exist. */
export class RootReadCache {
  readonly root: string
  /** The root itself, as bytes. */
  readonly rootBytes: Uint8Array
  readonly accounts = new BoundedMap<Uint8Array | null>(READ_CACHE_ACCOUNTS)
  /** Key: address hex ‖ slot hex; value: the slot's value as getStorage returns it. */
  readonly slots = new BoundedMap<Uint8Array>(READ_CACHE_SLOTS, slotDoorkeeper)
  /** The root's shared reader trie (read-only: readers swap in their own before changing it). */
  trie: MerklePatriciaTrie | undefined
  /** Shared reader tries of accounts' storage at this root, by storage root (hex): read-only too. */
  readonly storageTries = new BoundedMap<MerklePatriciaTrie>(READ_CACHE_STORAGE_TRIES)
  constructor(root: string) {
    this.root = root
    this.rootBytes = Buffer.from(root, 'hex')
  }
}

const byDb = new WeakMap<Database, RootReadCache[]>()

/** The cache readCacheFor answered last, by database: nearly every read asks for the head's root again. */
const lastByDb = new WeakMap<Database, RootReadCache>()

/** The read cache of `root` in `db` (most recently used first; the oldest root is dropped). */
export function readCacheFor(db: Database, root: Uint8Array): RootReadCache {
  const last = lastByDb.get(db)
  if (last !== undefined && sameBytes(last.rootBytes, root)) return last
  const found = findReadCache(db, root)
  lastByDb.set(db, found)
  return found
}

function findReadCache(db: Database, root: Uint8Array): RootReadCache {
  const key = Buffer.from(root.buffer, root.byteOffset, root.byteLength).toString('hex')
  let list = byDb.get(db)
  if (list === undefined) {
    list = []
    byDb.set(db, list)
  }
  for (let i = 0; i < list.length; i++) {
    const c = list[i] as RootReadCache
    if (c.root !== key) continue
    if (i > 0) {
      list.splice(i, 1)
      list.unshift(c)
    }
    return c
  }
  const fresh = new RootReadCache(key)
  list.unshift(fresh)
  if (list.length > READ_CACHE_ROOTS) list.pop()
  return fresh
}

/** Contract code by code hash (hex): immutable, shared by every root. */
export class CodeCache {
  readonly #map = new FifoMap<string, Uint8Array>()
  #bytes = 0
  get(hash: string): Uint8Array | undefined {
    return this.#map.get(hash)
  }
  set(hash: string, code: Uint8Array): void {
    if (this.#map.has(hash)) return
    this.#map.set(hash, code)
    this.#bytes += code.length
    while (this.#bytes > CODE_CACHE_BYTES) {
      const oldest = this.#map.shift()
      if (oldest === undefined) break
      this.#bytes -= oldest[1].length
    }
  }
}

export const codeCache = new CodeCache()

/**
 * TrieStore adapts RocksDB to the `DB` interface `@ethereumjs/mpt` writes trie nodes through.
 *
 * Writes never reach RocksDB directly: they collect in an in-memory overlay until
 * `flushInto(batch)` moves them into the block's WriteBatch, so the state of a block is
 * committed atomically with the block itself. Reads look in the overlay first, then in
 * RocksDB (synchronously). Trie nodes are content-addressed, so readers at an older root
 * are never disturbed by a writer; nodes are never deleted (no pruning yet).
 *
 * Keys arrive as unprefixed hex strings (CheckpointDB's encoding). Contract code is stored
 * by MerkleStateManager under 'c' ‖ codeHash (33 bytes, hex starting "63") and goes to the
 * `code` column; everything else is a trie node in the `trie` column.
 */
import type { BatchDBOp, DB } from '@ethereumjs/util'
import type { ColumnName, Database, WriteBatch } from '../db/db.js'
import type { AccountTransition } from './flatAccounts.js'

const CODE_KEY_HEX_LENGTH = 66

function columnOf(keyHex: string): ColumnName {
  return keyHex.length === CODE_KEY_HEX_LENGTH && keyHex.startsWith('63') ? 'code' : 'trie'
}

function keyBytes(keyHex: string): Uint8Array {
  // code keys drop the 'c' prefix: the column already says what they are
  const hex = keyHex.length === CODE_KEY_HEX_LENGTH ? keyHex.slice(2) : keyHex
  return Buffer.from(hex, 'hex')
}

export class TrieStore implements DB<string, string | Uint8Array> {
  readonly #db: Database
  /** Pending writes (hex key → value) not yet in RocksDB. */
  readonly #overlay: Map<string, Uint8Array>
  /** Account writes of the batched flushes since the last commit (the flat table's input). */
  #transitions: AccountTransition[] = []

  constructor(db: Database, overlay = new Map<string, Uint8Array>()) {
    this.#db = db
    this.#overlay = overlay
  }

  /** The database underneath (committed nodes only: trieLookup.ts reads them directly). */
  get database(): Database {
    return this.#db
  }

  /** Number of writes waiting for the next flush. */
  get pendingWrites(): number {
    return this.#overlay.size
  }

  async get(key: string): Promise<Uint8Array | undefined> {
    return this.getSync(key)
  }

  getSync(key: string): Uint8Array | undefined {
    const pending = this.#overlay.get(key)
    if (pending !== undefined) return pending
    return this.#db.getSync(columnOf(key), keyBytes(key))
  }

  async put(key: string, value: string | Uint8Array): Promise<void> {
    this.#overlay.set(key, typeof value === 'string' ? Buffer.from(value, 'hex') : value)
  }

  async del(_key: string): Promise<void> {
    // Content-addressed nodes may still be referenced by older roots: never delete.
  }

  async batch(ops: BatchDBOp<string, string | Uint8Array>[]): Promise<void> {
    for (const op of ops) {
      if (op.type === 'put') await this.put(op.key, op.value as Uint8Array)
    }
  }

  /**
   * The same store (same overlay). MerkleStateManager opens every storage trie as a shallow
   * copy of the account trie, so their writes must land in the overlay that gets flushed.
   */
  shallowCopy(): TrieStore {
    return this
  }

  async open(): Promise<void> {}

  /**
   * Records that the account trie went from `from` to `to` by `writes` (WriterStateManager's
   * batched flush): the commit hands them to the flat account table (flatAccounts.ts).
   */
  recordAccounts(from: Uint8Array, to: Uint8Array, writes: [Uint8Array, Uint8Array | null][]): void {
    this.#transitions.push({ from, to, writes })
  }

  /** The account transitions recorded since the last call, forgotten here. */
  takeAccountTransitions(): AccountTransition[] {
    const taken = this.#transitions
    this.#transitions = []
    return taken
  }

  /** Moves every pending write into `batch` and empties the overlay. */
  flushInto(batch: WriteBatch): void {
    for (const [key, value] of this.#overlay) batch.put(columnOf(key), keyBytes(key), value)
    this.#overlay.clear()
  }

  /** Drops pending writes (after a failed block build). */
  discard(): void {
    this.#overlay.clear()
    this.#transitions = []
  }
}

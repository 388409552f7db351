/**
 * A worker's view of the node's RocksDB: the main thread's open database, attached through its
 * native handle (`new RocksLevel(handle)`, @nxtedition/rocksdb), read-only, with a per-worker
 * cache of trie nodes and contract code.
 *
 *   main thread: openDatabase() ──level.handle (bigint)──▶ workerData
 *   worker:      new RocksLevel(handle) ─▶ open() returns the existing column families
 *                getSync(column, key) ─▶ cache (trie, code) ─miss─▶ RocksDB (sync multi-get)
 *
 * What must always hold:
 *  - a worker never writes and never closes the database (close() here is a no-op; the
 *    handle-attached RocksLevel has no finalizer, so its garbage collection closes nothing);
 *  - the main thread closes the database only after every worker has exited (ExecPool.close);
 *  - cached entries are never stale: trie nodes are keyed by their hash and code by its hash,
 *    and nothing is ever deleted (TrieStore never prunes), so a key maps to one value forever.
 *    Misses are not cached (a node may be written later).
 */
import { RocksLevel } from '@nxtedition/rocksdb'
import { COLUMNS, type ColumnHandle, type ColumnName, type Database, type WriteBatch } from '../../db/db.js'
import { FifoMap } from '../../util/fifoMap.js'

/** Columns whose values are content-addressed, so caching them is always safe. */
const CACHED_COLUMNS: ReadonlySet<ColumnName> = new Set(['trie', 'code'])

export class ReadOnlyDatabaseError extends Error {
  constructor() {
    super('the database is read-only in a worker thread')
    this.name = 'ReadOnlyDatabaseError'
  }
}

/** A byte-bounded cache of immutable values, evicting the oldest insertions first. */
export class NodeCache {
  readonly maxBytes: number
  readonly #map = new FifoMap<string, Uint8Array>()
  #bytes = 0
  hits = 0
  misses = 0

  constructor(maxBytes: number) {
    this.maxBytes = maxBytes
  }

  get(key: string): Uint8Array | undefined {
    const v = this.#map.get(key)
    if (v === undefined) this.misses++
    else this.hits++
    return v
  }

  set(key: string, value: Uint8Array): void {
    // a key is content-addressed: a second set of it carries the same value
    if (this.maxBytes <= 0 || !this.#map.set(key, value)) return
    this.#bytes += value.length + key.length
    while (this.#bytes > this.maxBytes) {
      const oldest = this.#map.shift()
      if (oldest === undefined) break
      this.#bytes -= oldest[1].length + oldest[0].length
    }
  }

  get size(): number {
    return this.#map.size
  }
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** Attaches to the database the main thread opened (`handle` = its `level.handle`). */
export async function attachDatabase(handle: bigint, cacheBytes: number): Promise<Database & { cache: NodeCache }> {
  const level = new RocksLevel(handle as never, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const columnOptions: Record<string, object> = {}
  for (const name of COLUMNS) columnOptions[name] = {}
  // biome-ignore lint/suspicious/noExplicitAny: open options of the addon are untyped
  await level.open({ columns: columnOptions } as any)
  // biome-ignore lint/suspicious/noExplicitAny: the addon's column handles are opaque
  const columns = (level as any).columns as Record<ColumnName, ColumnHandle>
  const optionsByColumn = new Map<ColumnName, { column: ColumnHandle }>()
  for (const name of COLUMNS) {
    if (columns[name] === undefined) throw new Error(`column family ${name} missing in the shared database`)
    optionsByColumn.set(name, { column: columns[name] })
  }
  // biome-ignore lint/suspicious/noExplicitAny: _getManySync is the addon's sync read
  const raw = level as any
  const cache = new NodeCache(cacheBytes)
  const read = (column: ColumnName, keys: Uint8Array[]): (Uint8Array | undefined)[] =>
    (raw._getManySync(keys.map(toBuffer), optionsByColumn.get(column)) as (Buffer | undefined)[]).map(
      (v) => v ?? undefined,
    )
  return {
    level,
    columns,
    cache,
    getSync(column, key) {
      if (!CACHED_COLUMNS.has(column)) return read(column, [key])[0]
      const k = column === 'code' ? `c${toBuffer(key).toString('latin1')}` : toBuffer(key).toString('latin1')
      const hit = cache.get(k)
      if (hit !== undefined) return hit
      const value = read(column, [key])[0]
      if (value !== undefined) cache.set(k, value)
      return value
    },
    getManySync(column, keys) {
      return read(column, keys)
    },
    batch(): WriteBatch {
      throw new ReadOnlyDatabaseError()
    },
    async clearColumn() {
      throw new ReadOnlyDatabaseError()
    },
    async close() {
      // never: the main thread owns the database
    },
  }
}

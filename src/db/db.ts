/**
 * The node's RocksDB: one database, one column family per kind of record. Every block is
 * written with its receipts, indexes and state changes in one WriteBatch (see
 * ChainStore.commitBlock), so a crash leaves either the whole block or none of it.
 *
 * Reads on the hot path use the addon's synchronous multi-get (`_getManySync`), which
 * skips a thread-pool hop for point lookups that RocksDB serves from its block cache.
 */
import { readdirSync, readlinkSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { RocksLevel } from '@nxtedition/rocksdb'

/** Column families and what each holds (keys → values). */
export const COLUMNS = [
  'default',
  /** block hash → RLP header (sealed) */
  'headers',
  /** block hash → RLP [transactions, uncles, withdrawals] */
  'bodies',
  /** block hash → RLP list of stored receipts */
  'receipts',
  /** uint64 BE block number → canonical block hash */
  'canonical',
  /** tx hash → RLP [blockNumber, blockHash, index] */
  'txlookup',
  /** node hash → trie node (world state and storage tries) */
  'trie',
  /** code hash → contract code */
  'code',
  /** UTF-8 name → value: head, genesis, chain config */
  'meta',
  /** log index: kind ‖ address/topic ‖ block number → empty (src/chain/logIndex.ts) */
  'logindex',
  /** explorer indexes: appearances, sender+nonce, creators, fees, revert output (src/chain/explorerIndex.ts) */
  'explorer',
  /** flat account table of one state root: keccak256(address) → account RLP, 'root' → that root (src/state/flatAccounts.ts) */
  'flat',
] as const

export type ColumnName = (typeof COLUMNS)[number]

// biome-ignore lint/suspicious/noExplicitAny: the addon's column handles are opaque
export type ColumnHandle = any

export interface Database {
  readonly level: RocksLevel
  readonly columns: Record<ColumnName, ColumnHandle>
  /** Synchronous point read; undefined when absent. */
  getSync(column: ColumnName, key: Uint8Array): Uint8Array | undefined
  /** Synchronous multi-read. */
  getManySync(column: ColumnName, keys: Uint8Array[]): (Uint8Array | undefined)[]
  /** A new atomic write batch. */
  batch(): WriteBatch
  /** Deletes every key of `column` (one RocksDB DeleteRange). */
  clearColumn(column: ColumnName): Promise<void>
  close(): Promise<void>
}

export interface WriteBatch {
  put(column: ColumnName, key: Uint8Array, value: Uint8Array): void
  del(column: ColumnName, key: Uint8Array): void
  /** Writes atomically; `sync` fsyncs the WAL before resolving. */
  write(sync: boolean): Promise<void>
  readonly length: number
}

function toBuffer(bytes: Uint8Array): Buffer {
  return Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength)
}

/** The database is locked by another process (or another open handle in this one). */
export class DatadirInUseError extends Error {
  override name = 'DatadirInUseError'
  /** The process holding the lock, when it could be found (Linux: /proc). */
  readonly pid: number | undefined

  constructor(datadir: string, pid: number | undefined, options?: { cause?: unknown }) {
    super(
      pid === undefined
        ? `datadir ${datadir} is in use by another ibex process`
        : `datadir ${datadir} is in use by another ibex process (pid ${pid})`,
      options,
    )
    this.pid = pid
  }
}

/** The process with `file` open, found through /proc/<pid>/fd (Linux); undefined elsewhere or when unreadable. */
function holderOf(file: string): number | undefined {
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((d) => /^[0-9]+$/.test(d))
  } catch {
    return undefined
  }
  for (const pid of pids) {
    let fds: string[]
    try {
      fds = readdirSync(`/proc/${pid}/fd`)
    } catch {
      continue
    }
    for (const fd of fds) {
      try {
        if (readlinkSync(`/proc/${pid}/fd/${fd}`) === file) return Number(pid)
      } catch {}
    }
  }
  return undefined
}

/** Block cache of the `trie` column (uncompressed blocks of state trie nodes), bytes. */
export const TRIE_BLOCK_CACHE_BYTES = 64 * 1024 * 1024

/** Block cache of the `flat` column (one row per account, ~110 bytes: 1M accounts are ~110 MB on disk), bytes. */
export const FLAT_BLOCK_CACHE_BYTES = 32 * 1024 * 1024

/**
 * Column options that differ from the addon's defaults (zstd with a dictionary, Bloom filters,
 * an 8 MiB block cache per column). Trie nodes are keccak hashes and RLP around them: zstd saves
 * little on them and costs a decompression on every read that misses the block cache, which on a
 * big state is most of them — on a 1M-account datadir an account read (2–3 node reads) took
 * ~100 µs compressed, ~40 µs uncompressed with point-lookup blocks (hash index in each data block,
 * Ribbon filters). Options apply to files written from now on; older files stay readable as they are.
 */
const COLUMN_OPTIONS: Partial<Record<ColumnName, object>> = {
  trie: { compression: false, optimize: 'point-lookup', cacheSize: TRIE_BLOCK_CACHE_BYTES },
  flat: { compression: false, optimize: 'point-lookup', cacheSize: FLAT_BLOCK_CACHE_BYTES },
  txlookup: { optimize: 'point-lookup' },
  canonical: { optimize: 'point-lookup' },
}

/** Opens (creating if missing) the database at `location` with every column family. */
export async function openDatabase(location: string): Promise<Database> {
  const level = new RocksLevel(location, { keyEncoding: 'buffer', valueEncoding: 'buffer' })
  const columnOptions: Record<string, object> = {}
  for (const name of COLUMNS) columnOptions[name] = COLUMN_OPTIONS[name] ?? {}
  try {
    // biome-ignore lint/suspicious/noExplicitAny: open options of the addon are untyped
    await level.open({ createIfMissing: true, columns: columnOptions } as any)
  } catch (err) {
    // RocksDB's LOCK file: another `ibex start`, or `ibex export` beside a running node
    if ((err as { cause?: { code?: string } }).cause?.code === 'LEVEL_LOCKED') {
      const full = resolve(location)
      throw new DatadirInUseError(dirname(full), holderOf(join(full, 'LOCK')), { cause: err })
    }
    throw err
  }
  // biome-ignore lint/suspicious/noExplicitAny: see above
  const columns = (level as any).columns as Record<ColumnName, ColumnHandle>
  const optionsByColumn = new Map<ColumnName, { column: ColumnHandle }>()
  for (const name of COLUMNS) optionsByColumn.set(name, { column: columns[name] })
  // biome-ignore lint/suspicious/noExplicitAny: _getManySync is the addon's sync read
  const raw = level as any

  const db: Database = {
    level,
    columns,
    getSync(column, key) {
      const [value] = raw._getManySync([toBuffer(key)], optionsByColumn.get(column))
      return value ?? undefined
    },
    getManySync(column, keys) {
      const values = raw._getManySync(keys.map(toBuffer), optionsByColumn.get(column)) as (Buffer | undefined)[]
      return values.map((v) => v ?? undefined)
    },
    batch() {
      const b = level.batch()
      // the addon's own put/del (buffers in, no encoding to do): abstract-level's checks, option
      // copies and operation log cost ~5x the native call, and a block commits ~10k trie nodes
      // biome-ignore lint/suspicious/noExplicitAny: the addon's chained batch internals
      const native = b as any
      const direct = typeof native._put === 'function' && typeof native._del === 'function'
      let length = 0
      return {
        put(column, key, value) {
          if (direct) native._put(toBuffer(key), toBuffer(value), optionsByColumn.get(column))
          else b.put(toBuffer(key), toBuffer(value), optionsByColumn.get(column))
          length++
        },
        del(column, key) {
          if (direct) native._del(toBuffer(key), optionsByColumn.get(column))
          else b.del(toBuffer(key), optionsByColumn.get(column))
          length++
        },
        async write(sync) {
          // biome-ignore lint/suspicious/noExplicitAny: write options of the addon are untyped
          await b.write({ sync } as any)
        },
        get length() {
          return length
        },
      }
    },
    async clearColumn(column) {
      await level.clear(optionsByColumn.get(column))
    },
    async close() {
      await level.close()
    },
  }
  return db
}

/**
 * The log index: for every block, which addresses and topics (per position) its logs carry,
 * so eth_getLogs finds the blocks worth reading without touching the others. Entries live in
 * the `logindex` column family and are written in the block's own WriteBatch
 * (ChainStore.commitBlock), so the index never lags the chain. Keys, values empty:
 *
 *   0x00      ‖ address (20) ‖ block number (8, BE)    a log of this address
 *   0x01 + i  ‖ topic (32)   ‖ block number (8, BE)    a log with this topic at position i (0..3)
 *   0xff      ‖ block number (8, BE)                   the block has logs at all
 *
 * `meta/logindex-head` holds the highest indexed block; a datadir written before the index
 * existed is indexed at start (backfillLogIndex).
 */
import type { Logger } from '../log.js'
import type { Database, WriteBatch } from '../db/db.js'
import type { StoredReceipt } from './receipt.js'
import type { ChainStore } from './store.js'

export const LOG_INDEX_ADDRESS = 0x00
/** Kind byte of topic position `i` is LOG_INDEX_TOPIC + i. */
export const LOG_INDEX_TOPIC = 0x01
export const LOG_INDEX_ANY = 0xff
/** Rows read from RocksDB per synchronous range read. */
export const LOG_INDEX_READ_CHUNK = 16_384
/** Blocks indexed per write batch during a backfill. */
export const LOG_INDEX_BACKFILL_BATCH = 1_000

const HEAD_KEY = Buffer.from('logindex-head')
const EMPTY = new Uint8Array(0)

function key(kind: number, item: Uint8Array, number: bigint): Buffer {
  const k = Buffer.allocUnsafe(1 + item.length + 8)
  k[0] = kind
  k.set(item, 1)
  k.writeBigUInt64BE(number, 1 + item.length)
  return k
}

/** Adds the index entries of block `number` to `batch` and moves the index head there. */
export function writeLogIndex(batch: WriteBatch, number: bigint, receipts: readonly StoredReceipt[]): void {
  const seen = new Set<string>()
  const put = (kind: number, item: Uint8Array) => {
    const k = key(kind, item, number)
    const id = k.toString('latin1')
    if (seen.has(id)) return
    seen.add(id)
    batch.put('logindex', k, EMPTY)
  }
  for (const r of receipts) {
    for (const [address, topics] of r.logs) {
      put(LOG_INDEX_ADDRESS, address)
      for (let i = 0; i < topics.length && i < 4; i++) put(LOG_INDEX_TOPIC + i, topics[i] as Uint8Array)
    }
  }
  if (seen.size > 0) put(LOG_INDEX_ANY, EMPTY)
  const head = Buffer.alloc(8)
  head.writeBigUInt64BE(number)
  batch.put('meta', HEAD_KEY, head)
}

/** Highest indexed block, or undefined when nothing was ever indexed. */
export function logIndexHead(db: Database): bigint | undefined {
  const v = db.getSync('meta', HEAD_KEY)
  return v === undefined ? undefined : Buffer.from(v).readBigUInt64BE(0)
}

/**
 * Numbers of the blocks in [from, to] with an entry `kind ‖ item`, ascending. Synchronous:
 * one RocksDB range read per LOG_INDEX_READ_CHUNK rows.
 */
export function indexedBlocks(db: Database, kind: number, item: Uint8Array, from: bigint, to: bigint): number[] {
  const out: number[] = []
  // biome-ignore lint/suspicious/noExplicitAny: querySync is the addon's synchronous range read
  const level = db.level as any
  let lo = key(kind, item, from)
  const hi = key(kind, item, to)
  const offset = 1 + item.length
  for (;;) {
    const { rows } = level.querySync({
      gte: lo,
      lte: hi,
      column: db.columns.logindex,
      keys: true,
      values: false,
      limit: LOG_INDEX_READ_CHUNK,
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    }) as { rows: (Buffer | undefined)[] }
    for (let i = 0; i < rows.length; i += 2) out.push(Number((rows[i] as Buffer).readBigUInt64BE(offset)))
    if (rows.length / 2 < LOG_INDEX_READ_CHUNK) return out
    lo = key(kind, item, BigInt((out.at(-1) as number) + 1))
  }
}

/** Indexes the blocks a datadir holds beyond the index head (datadirs from before the index). */
export async function backfillLogIndex(store: ChainStore, log: Logger): Promise<number> {
  const db = store.db
  const head = store.head.header.number
  const indexed = logIndexHead(db)
  let next = indexed === undefined ? 0n : indexed + 1n
  if (next > head) return 0
  const first = next
  log.info(`indexing logs of blocks ${next}..${head}`)
  while (next <= head) {
    const batch = db.batch()
    const last =
      next + BigInt(LOG_INDEX_BACKFILL_BATCH) - 1n < head ? next + BigInt(LOG_INDEX_BACKFILL_BATCH) - 1n : head
    for (let n = next; n <= last; n++) {
      const hash = store.getHashByNumber(n)
      writeLogIndex(batch, n, (hash && store.getReceipts(hash)) ?? [])
    }
    await batch.write(false)
    next = last + 1n
  }
  return Number(head - first + 1n)
}

/**
 * The logs of canonical blocks, kept for log queries. A query over a range served before touches
 * no database: per block number the block's logs in block order (address and topics to match)
 * and, once formatted, their frozen JSON objects, which the dispatcher joins from kept text.
 *
 *   queryLogs ─▶ blockLogsAt(store, n) ─hit─▶ match ─▶ kept objects
 *                                 └─miss─▶ canonical hash, receipts ─▶ kept (objects formatted on first match)
 *
 * What always holds: an entry describes the canonical block at its number, which never changes
 * under immediate finality (no reorgs); entries are per ChainStore, so two chains in one process
 * never share one. A log object is formatted only when a query first returns it (a query for one
 * recipient does not format a whole block's logs).
 */
import type { LogTuple } from '../chain/receipt.js'
import type { ChainStore } from '../chain/store.js'
import { FormatCache, LOG_CACHE_ENTRIES } from '../rpc/format/cache.js'
import { formatLog } from '../rpc/format/receipt.js'
import type { LogBlock, LogMatcher } from './match.js'
import { logMatches } from './match.js'

/** Blocks whose logs are kept (an entry weighs its log count, at least 1). */
export const KEPT_LOG_BLOCKS = 100_000
/** Logs kept over all kept blocks: as many as the formatted-log cache keeps. */
export const KEPT_LOG_BLOCKS_LOGS = LOG_CACHE_ENTRIES

export interface KeptBlockLogs {
  readonly hash: Uint8Array
  /** The block's logs in block order (logIndex = position). */
  readonly logs: readonly LogTuple[]
  /** Transaction index of each log. */
  readonly txIndex: Uint32Array
  /** The log objects formatted so far, by logIndex. */
  readonly objects: (Record<string, unknown> | undefined)[]
}

const kept = new WeakMap<ChainStore, FormatCache<KeptBlockLogs>>()

function keptOf(store: ChainStore): FormatCache<KeptBlockLogs> {
  let cache = kept.get(store)
  if (cache === undefined) {
    cache = new FormatCache<KeptBlockLogs>(KEPT_LOG_BLOCKS, KEPT_LOG_BLOCKS_LOGS)
    kept.set(store, cache)
  }
  return cache
}

/** The logs of the canonical block `n` (read and kept on a miss); undefined when it is not stored. */
export function blockLogsAt(store: ChainStore, n: bigint): KeptBlockLogs | undefined {
  const cache = keptOf(store)
  const key = n.toString()
  const hit = cache.get(key)
  if (hit !== undefined) return hit
  const hash = store.getHashByNumber(n)
  if (hash === undefined) return undefined
  const receipts = store.getReceipts(hash)
  if (receipts === undefined) return undefined
  const logs: LogTuple[] = []
  let count = 0
  for (const r of receipts) count += r.logs.length
  const txIndex = new Uint32Array(count)
  receipts.forEach((r, i) => {
    for (const log of r.logs) {
      txIndex[logs.length] = i
      logs.push(log)
    }
  })
  const entry: KeptBlockLogs = { hash, logs, txIndex, objects: new Array(count) }
  return cache.set(key, entry, Math.max(1, count))
}

/**
 * The matching logs of a kept block appended to `out` as log objects; `max` (0 = none) bounds
 * `out` and `onFull` is thrown when one more would exceed it. `source` gives what formatting a
 * log the first time needs (the block's number, timestamp and transaction hashes), read only then.
 */
export function collectKept(
  entry: KeptBlockLogs,
  m: LogMatcher,
  out: Record<string, unknown>[],
  max: number,
  onFull: () => Error,
  source: () => LogBlock | undefined,
): void {
  const { logs, objects } = entry
  let lb: LogBlock | undefined
  let lastTx = -1
  let lastHash: Uint8Array | undefined
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i] as LogTuple
    if (!logMatches(log[0], log[1], m)) continue
    if (max > 0 && out.length >= max) throw onFull()
    let obj = objects[i]
    if (obj === undefined) {
      lb ??= source()
      if (lb === undefined)
        throw new Error(`block ${Buffer.from(entry.hash).toString('hex')} has receipts but no header or body`)
      const txIndex = entry.txIndex[i] as number
      if (txIndex !== lastTx) {
        lastTx = txIndex
        lastHash = lb.txHash(txIndex)
      }
      obj = formatLog(log, { block: lb.block, txHash: lastHash as Uint8Array, txIndex, logIndex: i })
      objects[i] = obj
    }
    out.push(obj)
  }
}

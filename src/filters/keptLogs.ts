/**
 * The logs of canonical blocks, kept for log queries. A query over a range served before touches
 * no database: per block number the block's logs in block order (address and topics to match)
 * and, once a query returned them, their ChainLogs (with the transaction hashes, which cost a
 * body decode and a keccak each to find).
 *
 *   queryLogs ─▶ blockLogsAt(store, n) ─hit─▶ match ─▶ kept ChainLogs
 *                                 └─miss─▶ canonical hash, receipts ─▶ kept (ChainLogs made on first match)
 *
 * What always holds: an entry describes the canonical block at its number, which never changes
 * under immediate finality (no reorgs); entries are per ChainStore, so two chains in one process
 * never share one. A ChainLog is made only when a query first returns it (a query for one
 * recipient does not read the block's header and body for all its logs). The RPC layer keeps the
 * formatted objects of these logs by block hash (src/rpc/format/log.ts).
 */
import type { LogTuple } from '../chain/receipt.js'
import type { ChainStore } from '../chain/store.js'
import { ChainLog, type LogBlockInfo } from './chainLog.js'
import type { LogBlock, LogMatcher } from './match.js'
import { logMatches } from './match.js'
import { SizedCache } from '../util/sizedCache.js'

/** Blocks whose logs are kept (an entry weighs its log count, at least 1). */
export const KEPT_LOG_BLOCKS = 100_000
/** Logs kept over all kept blocks (~100 bytes each before their ChainLogs): bounds the memory. */
export const KEPT_LOG_BLOCKS_LOGS = 50_000

export interface KeptBlockLogs {
  readonly hash: Uint8Array
  /** The block's logs in block order (logIndex = position). */
  readonly logs: readonly LogTuple[]
  /** Transaction index of each log. */
  readonly txIndex: Uint32Array
  /** The ChainLogs made so far, by logIndex. */
  readonly found: (ChainLog | undefined)[]
  /** The block's number, timestamp and log count, once a ChainLog needed them. */
  info: LogBlockInfo | undefined
}

const kept = new WeakMap<ChainStore, SizedCache<KeptBlockLogs>>()

function keptOf(store: ChainStore): SizedCache<KeptBlockLogs> {
  let cache = kept.get(store)
  if (cache === undefined) {
    cache = new SizedCache<KeptBlockLogs>(KEPT_LOG_BLOCKS, KEPT_LOG_BLOCKS_LOGS)
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
  const entry: KeptBlockLogs = { hash, logs, txIndex, found: new Array(count), info: undefined }
  return cache.set(key, entry, Math.max(1, count))
}

/**
 * The matching logs of a kept block appended to `out`; `max` (0 = none) bounds `out` and
 * `onFull` is thrown when one more would exceed it. `source` gives what placing a log the first
 * time needs (the block's number, timestamp and transaction hashes), read only then.
 */
export function collectKept(
  entry: KeptBlockLogs,
  m: LogMatcher,
  out: ChainLog[],
  max: number,
  onFull: () => Error,
  source: () => LogBlock | undefined,
): void {
  const { logs, found } = entry
  let lb: LogBlock | undefined
  let lastTx = -1
  let lastHash: Uint8Array | undefined
  for (let i = 0; i < logs.length; i++) {
    const log = logs[i] as LogTuple
    if (!logMatches(log[0], log[1], m)) continue
    if (max > 0 && out.length >= max) throw onFull()
    let chainLog = found[i]
    if (chainLog === undefined) {
      lb ??= source()
      if (lb === undefined)
        throw new Error(`block ${Buffer.from(entry.hash).toString('hex')} has receipts but no header or body`)
      entry.info ??= { hash: entry.hash, number: lb.number, timestamp: lb.timestamp, logCount: logs.length }
      const txIndex = entry.txIndex[i] as number
      if (txIndex !== lastTx) {
        lastTx = txIndex
        lastHash = lb.txHash(txIndex)
      }
      chainLog = new ChainLog(log, entry.info, lastHash as Uint8Array, txIndex, i)
      found[i] = chainLog
    }
    out.push(chainLog)
  }
}

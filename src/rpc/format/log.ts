/**
 * Log objects in geth's shape, from the domain logs that src/filters hands out (ChainLog) and from
 * receipts. `removed` is always false on an IBFT chain (no reorgs); logIndex counts across the
 * whole block.
 *
 * A log object is built once and kept (frozen, cache.ts) in a per-block list keyed by the block
 * hash, so a log range served before builds nothing again and the dispatcher answers long arrays
 * as bytes assembled from the kept texts:
 *
 *   queryLogs ─▶ ChainLog[] ─▶ formatLogs: per run of one block's logs, its kept list (one lookup)
 *                                         ─▶ kept object at logIndex, or built and kept there
 *   formatReceipt ─▶ formatReceiptLog ─▶ the same per-block list (receipts and eth_getLogs share)
 */
import type { LogTuple } from '../../chain/receipt.js'
import type { ChainLog, LogBlockInfo } from '../../filters/index.js'
import { toData, toQuantity } from '../../util/hex.js'
import type { RpcObject } from './block.js'
import { FormatCache, keep, keyOf, LOG_CACHE_ENTRIES } from './cache.js'

/** Blocks whose log objects are kept (a list weighs its block's log count, at least 1). */
export const LOG_CACHE_BLOCKS = 100_000

/** Per block hash: the block's log objects built so far, by logIndex. */
const keptLogs = new FormatCache<(RpcObject | undefined)[]>(LOG_CACHE_BLOCKS, LOG_CACHE_ENTRIES)

/** The kept list of the block `hash` (made on a miss; a block too big to keep gets a loose one). */
function keptOfBlock(hash: Uint8Array, logCount: number): (RpcObject | undefined)[] {
  const key = keyOf(hash, 'logs')
  const known = keptLogs.get(key)
  if (known !== undefined) return known
  return keptLogs.set(key, new Array<RpcObject | undefined>(logCount), Math.max(1, logCount))
}

function buildLog(
  address: Uint8Array,
  topics: readonly Uint8Array[],
  data: Uint8Array,
  blockHash: Uint8Array,
  blockNumber: bigint,
  blockTimestamp: bigint,
  txHash: Uint8Array,
  txIndex: number,
  logIndex: number,
): RpcObject {
  return keep({
    address: toData(address),
    topics: topics.map((t) => toData(t)),
    data: toData(data),
    blockNumber: toQuantity(blockNumber),
    transactionHash: toData(txHash),
    transactionIndex: toQuantity(txIndex),
    blockHash: toData(blockHash),
    blockTimestamp: toQuantity(blockTimestamp),
    logIndex: toQuantity(logIndex),
    removed: false,
  })
}

/** The log objects of `logs`, in order (kept ones reused). */
export function formatLogs(logs: readonly ChainLog[]): RpcObject[] {
  const out = new Array<RpcObject>(logs.length)
  let block: LogBlockInfo | undefined
  let kept: (RpcObject | undefined)[] = []
  for (let i = 0; i < logs.length; i++) {
    const l = logs[i] as ChainLog
    if (l.block !== block) {
      block = l.block
      kept = keptOfBlock(block.hash, block.logCount)
    }
    let o = kept[l.logIndex]
    if (o === undefined) {
      o = buildLog(
        l.address,
        l.topics,
        l.data,
        block.hash,
        block.number,
        block.timestamp,
        l.txHash,
        l.txIndex,
        l.logIndex,
      )
      kept[l.logIndex] = o
    }
    out[i] = o
  }
  return out
}

/** The log object of one ChainLog (a `logs` subscription's notification). */
export function formatLog(log: ChainLog): RpcObject {
  return formatLogs([log])[0] as RpcObject
}

/** Where a receipt's log sits: its block (with the block's log count) and transaction. */
export interface ReceiptLogPosition {
  blockHash: Uint8Array
  blockNumber: bigint
  blockTimestamp: bigint
  blockLogCount: number
  txHash: Uint8Array
  txIndex: number
}

/** The log objects of one receipt, whose first log has index `firstIndex` in its block. */
export function formatReceiptLogs(logs: readonly LogTuple[], pos: ReceiptLogPosition, firstIndex: number): RpcObject[] {
  const kept = keptOfBlock(pos.blockHash, pos.blockLogCount)
  return logs.map((log, i) => {
    const logIndex = firstIndex + i
    let o = kept[logIndex]
    if (o === undefined) {
      o = buildLog(
        log[0],
        log[1],
        log[2],
        pos.blockHash,
        pos.blockNumber,
        pos.blockTimestamp,
        pos.txHash,
        pos.txIndex,
        logIndex,
      )
      kept[logIndex] = o
    }
    return o
  })
}

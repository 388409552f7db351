/**
 * The logs that log queries, polling filters and subscriptions hand out: a log of a stored block
 * with the facts that place it (geth's types.Log). They are domain values, not JSON: the RPC
 * layer (src/rpc/format/log.ts) turns them into log objects and keeps those per block.
 *
 * What always holds: a ChainLog never changes (blocks are final under IBFT), logIndex counts
 * across the whole block and `block` is shared by the logs of one block that one source produced,
 * so a formatter can look its block up once per run of logs.
 */
import type { LogTuple } from '../chain/receipt.js'

/** The block a log belongs to. */
export interface LogBlockInfo {
  readonly hash: Uint8Array
  readonly number: bigint
  readonly timestamp: bigint
  /** Logs in the whole block (what a per-block cache of formatted logs weighs). */
  readonly logCount: number
}

/** One log of a stored block with its position. */
export class ChainLog {
  readonly address: Uint8Array
  readonly topics: readonly Uint8Array[]
  readonly data: Uint8Array
  readonly block: LogBlockInfo
  /** Hash of the transaction that emitted the log. */
  readonly txHash: Uint8Array
  /** Position of that transaction in the block. */
  readonly txIndex: number
  /** Position of the log among all logs of the block. */
  readonly logIndex: number

  constructor(log: LogTuple, block: LogBlockInfo, txHash: Uint8Array, txIndex: number, logIndex: number) {
    this.address = log[0]
    this.topics = log[1]
    this.data = log[2]
    this.block = block
    this.txHash = txHash
    this.txIndex = txIndex
    this.logIndex = logIndex
  }
}

/** Logs in a block's receipts. */
export function countLogs(receipts: readonly { logs: readonly unknown[] }[]): number {
  let n = 0
  for (const r of receipts) n += r.logs.length
  return n
}

/**
 * Receipts and logs in geth's shapes. Log positions (logIndex) count across the whole
 * block; `removed` is always false on an IBFT chain (no reorgs). A receipt is formatted once per
 * block and position and kept (cache.ts): it can never change.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { logsBloom } from '../../chain/bloom.js'
import type { LogTuple, StoredReceipt } from '../../chain/receipt.js'
import type { ChainBlock } from '../../chain/store.js'
import { toData, toQuantity } from '../hex.js'
import type { RpcObject } from './block.js'
import { FormatCache, keep, keyOf, LOG_CACHE_ENTRIES } from './cache.js'

const receiptCache = new FormatCache<RpcObject>()
const logCache = new FormatCache<RpcObject>(LOG_CACHE_ENTRIES)

export interface LogPosition {
  block: ChainBlock
  txHash: Uint8Array
  txIndex: number
  logIndex: number
}

/**
 * A log object, kept per block and position (frozen, cache.ts): a log query over a range served
 * before builds none again, and the dispatcher joins their kept JSON texts.
 */
/** The kept log object at `logIndex` of the block `blockHash`, when a query formatted it before. */
export function keptLog(blockHash: Uint8Array, logIndex: number): RpcObject | undefined {
  return logCache.get(keyOf(blockHash, `l${logIndex}`))
}

export function formatLog(log: LogTuple, pos: LogPosition): RpcObject {
  const key = keyOf(pos.block.hash, `l${pos.logIndex}`)
  const known = logCache.get(key)
  if (known !== undefined) return known
  return logCache.set(key, keep(buildLog(log, pos)))
}

function buildLog(log: LogTuple, pos: LogPosition): RpcObject {
  return {
    address: toData(log[0]),
    topics: log[1].map((t) => toData(t)),
    data: toData(log[2]),
    blockNumber: toQuantity(pos.block.header.number),
    transactionHash: toData(pos.txHash),
    transactionIndex: toQuantity(pos.txIndex),
    blockHash: toData(pos.block.hash),
    blockTimestamp: toQuantity(pos.block.header.timestamp),
    logIndex: toQuantity(pos.logIndex),
    removed: false,
  }
}

/** Index of the first log of receipt `txIndex` within its block. */
export function firstLogIndex(receipts: StoredReceipt[], txIndex: number): number {
  let n = 0
  for (let i = 0; i < txIndex; i++) n += (receipts[i] as StoredReceipt).logs.length
  return n
}

export function formatReceipt(
  block: ChainBlock,
  receipts: StoredReceipt[],
  txIndex: number,
  tx: TypedTransaction,
  logIndexStart?: number,
): RpcObject {
  const key = keyOf(block.hash, txIndex)
  const known = receiptCache.get(key)
  if (known !== undefined) return known
  return receiptCache.set(key, keep(buildReceipt(block, receipts, txIndex, tx, logIndexStart ?? firstLogIndex(receipts, txIndex))))
}

function buildReceipt(
  block: ChainBlock,
  receipts: StoredReceipt[],
  txIndex: number,
  tx: TypedTransaction,
  logIndexStart: number,
): RpcObject {
  const r = receipts[txIndex] as StoredReceipt
  const txHash = tx.hash()
  const out: RpcObject = {
    blockHash: toData(block.hash),
    blockNumber: toQuantity(block.header.number),
    contractAddress: r.contractAddress === undefined ? null : toData(r.contractAddress),
    cumulativeGasUsed: toQuantity(r.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
    from: toData(r.from),
    gasUsed: toQuantity(r.gasUsed),
    logs: r.logs.map((log, i) => formatLog(log, { block, txHash, txIndex, logIndex: logIndexStart + i })),
    logsBloom: toData(logsBloom(r.logs)),
  }
  if (r.root !== undefined) out.root = toData(r.root)
  else out.status = toQuantity(r.status ?? 0)
  out.to = tx.to === undefined ? null : toData(tx.to.bytes)
  out.transactionHash = toData(txHash)
  out.transactionIndex = toQuantity(txIndex)
  out.type = toQuantity(r.type)
  if (r.type === 3) {
    out.blobGasUsed = toQuantity(r.blobGasUsed)
    out.blobGasPrice = toQuantity(r.blobGasPrice)
  }
  return out
}

/** Every receipt of a block (eth_getBlockReceipts). */
export function formatBlockReceipts(block: ChainBlock, receipts: StoredReceipt[]): RpcObject[] {
  let logIndex = 0
  return block.transactions.map((tx, i) => {
    const out = formatReceipt(block, receipts, i, tx, logIndex)
    logIndex += (receipts[i] as StoredReceipt).logs.length
    return out
  })
}

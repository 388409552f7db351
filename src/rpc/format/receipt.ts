/**
 * Receipts in geth's shape. Their logs are log.ts's objects (logIndex counts across the whole
 * block), shared with eth_getLogs. A receipt is formatted once per block and position and kept
 * (cache.ts): it can never change.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { logsBloom } from '../../chain/bloom.js'
import type { ReceiptInBlock, StoredReceipt } from '../../chain/receipt.js'
import type { ChainBlock } from '../../chain/store.js'
import { toData, toQuantity } from '../../util/hex.js'
import type { RpcObject } from './block.js'
import { FormatCache, keep, keyOf, keyOfOnce } from './cache.js'
import { formatReceiptLogs } from './log.js'

const receiptCache = new FormatCache<RpcObject>()

/** Index of the first log of receipt `txIndex` within its block. */
export function firstLogIndex(receipts: StoredReceipt[], txIndex: number): number {
  let n = 0
  for (let i = 0; i < txIndex; i++) n += (receipts[i] as StoredReceipt).logs.length
  return n
}

/** Logs in all of a block's receipts. */
function blockLogCount(receipts: StoredReceipt[]): number {
  return firstLogIndex(receipts, receipts.length)
}

/**
 * The receipt object of transaction `txIndex`; `logIndexStart` and `logCount` (the index of its
 * first log, the logs of the whole block) are counted here when not given.
 */
export function formatReceipt(
  block: ChainBlock,
  receipts: StoredReceipt[],
  txIndex: number,
  tx: TypedTransaction,
  logIndexStart?: number,
  logCount?: number,
): RpcObject {
  const key = keyOf(block.hash, txIndex)
  const known = receiptCache.get(key)
  if (known !== undefined) return known
  const start = logIndexStart ?? firstLogIndex(receipts, txIndex)
  const count = logCount ?? blockLogCount(receipts)
  return receiptCache.set(key, keep(buildReceipt(block, receipts[txIndex] as StoredReceipt, txIndex, tx, start, count)))
}

/**
 * The receipt object of transaction `txIndex` of block `blockHash` when it was formatted before,
 * else undefined: a lookup by transaction hash answers a kept receipt from its location alone,
 * without reading or decoding the block (on a big chain most blocks are not among the decoded
 * ones the chain store keeps, and a wallet or explorer asks for the same receipt again).
 */
export function keptReceipt(blockHash: Uint8Array, txIndex: number): RpcObject | undefined {
  return receiptCache.get(keyOfOnce(blockHash, txIndex))
}

/**
 * The receipt object of transaction `txIndex`, from that one receipt (`read`: the chain store's
 * getReceipt, called only when the object is not kept already); null when it is not stored.
 */
export function formatOneReceipt(
  block: ChainBlock,
  txIndex: number,
  tx: TypedTransaction,
  read: () => ReceiptInBlock | undefined,
): RpcObject | null {
  const key = keyOf(block.hash, txIndex)
  const known = receiptCache.get(key)
  if (known !== undefined) return known
  const found = read()
  if (found === undefined) return null
  return receiptCache.set(
    key,
    keep(buildReceipt(block, found.receipt, txIndex, tx, found.firstLogIndex, found.blockLogCount)),
  )
}

function buildReceipt(
  block: ChainBlock,
  r: StoredReceipt,
  txIndex: number,
  tx: TypedTransaction,
  logIndexStart: number,
  logCount: number,
): RpcObject {
  const txHash = tx.hash()
  const out: RpcObject = {
    blockHash: toData(block.hash),
    blockNumber: toQuantity(block.header.number),
    contractAddress: r.contractAddress === undefined ? null : toData(r.contractAddress),
    cumulativeGasUsed: toQuantity(r.cumulativeGasUsed),
    effectiveGasPrice: toQuantity(r.effectiveGasPrice),
    from: toData(r.from),
    gasUsed: toQuantity(r.gasUsed),
    logs: formatReceiptLogs(
      r.logs,
      {
        blockHash: block.hash,
        blockNumber: block.header.number,
        blockTimestamp: block.header.timestamp,
        blockLogCount: logCount,
        txHash,
        txIndex,
      },
      logIndexStart,
    ),
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
  const logCount = blockLogCount(receipts)
  let logIndex = 0
  return block.transactions.map((tx, i) => {
    const out = formatReceipt(block, receipts, i, tx, logIndex, logCount)
    logIndex += (receipts[i] as StoredReceipt).logs.length
    return out
  })
}

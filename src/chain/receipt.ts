/**
 * Receipts as ibex stores them: the consensus receipt (status or post-state root,
 * cumulative gas, logs) plus what the RPC layer needs without re-executing or re-recovering
 * (gas used, sender, created contract, effective gas price, blob gas).
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import { countItems, decodeRlp, readSpan, span } from '../util/rlp.js'

export type LogTuple = [address: Uint8Array, topics: Uint8Array[], data: Uint8Array]

export interface StoredReceipt {
  /** EIP-2718 type of the transaction. */
  type: number
  /** 1 success, 0 failure; undefined before Byzantium (then `root` is set). */
  status: 0 | 1 | undefined
  /** Post-transaction state root (pre-Byzantium only). */
  root: Uint8Array | undefined
  cumulativeGasUsed: bigint
  gasUsed: bigint
  logs: LogTuple[]
  from: Uint8Array
  contractAddress: Uint8Array | undefined
  effectiveGasPrice: bigint
  blobGasUsed: bigint
  blobGasPrice: bigint
}

const EMPTY = new Uint8Array(0)

export function encodeStoredReceipts(receipts: StoredReceipt[]): Uint8Array {
  return RLP.encode(
    receipts.map((r) => [
      bigIntToUnpaddedBytes(BigInt(r.type)),
      r.status === undefined ? EMPTY : bigIntToUnpaddedBytes(BigInt(r.status)),
      r.root ?? EMPTY,
      bigIntToUnpaddedBytes(r.cumulativeGasUsed),
      bigIntToUnpaddedBytes(r.gasUsed),
      r.logs,
      r.from,
      r.contractAddress ?? EMPTY,
      bigIntToUnpaddedBytes(r.effectiveGasPrice),
      bigIntToUnpaddedBytes(r.blobGasUsed),
      bigIntToUnpaddedBytes(r.blobGasPrice),
    ]),
  )
}

export function decodeStoredReceipts(bytes: Uint8Array): StoredReceipt[] {
  const list = decodeRlp(bytes) as unknown as Uint8Array[][]
  return list.map(receiptOf)
}

function receiptOf(f: Uint8Array[]): StoredReceipt {
  const statusBytes = f[1] as Uint8Array
  const root = f[2] as Uint8Array
  const contract = f[7] as Uint8Array
  return {
    type: Number(bytesToBigInt(f[0] as Uint8Array)),
    status: root.length > 0 ? undefined : (Number(bytesToBigInt(statusBytes)) as 0 | 1),
    root: root.length > 0 ? root : undefined,
    cumulativeGasUsed: bytesToBigInt(f[3] as Uint8Array),
    gasUsed: bytesToBigInt(f[4] as Uint8Array),
    logs: f[5] as unknown as LogTuple[],
    from: f[6] as Uint8Array,
    contractAddress: contract.length > 0 ? contract : undefined,
    effectiveGasPrice: bytesToBigInt(f[8] as Uint8Array),
    blobGasUsed: bytesToBigInt(f[9] as Uint8Array),
    blobGasPrice: bytesToBigInt(f[10] as Uint8Array),
  }
}

/** One receipt of a block, with where its logs sit among the block's. */
export interface ReceiptInBlock {
  receipt: StoredReceipt
  /** Index of its first log within the block (its logs' logIndex starts here). */
  firstLogIndex: number
  /** Logs in all of the block's receipts. */
  blockLogCount: number
}

/** Receipt `index` of a block's decoded receipts, with where its logs sit among the block's. */
export function receiptInList(receipts: readonly StoredReceipt[], index: number): ReceiptInBlock | undefined {
  const receipt = receipts[index]
  if (receipt === undefined) return undefined
  let before = 0
  let total = 0
  for (let i = 0; i < receipts.length; i++) {
    const logs = (receipts[i] as StoredReceipt).logs.length
    if (i < index) before += logs
    total += logs
  }
  return { receipt, firstLogIndex: before, blockLogCount: total }
}

/** Position of the logs among a stored receipt's fields. */
const LOGS_FIELD = 5

/**
 * Receipt `index` of a block's stored receipts (encodeStoredReceipts), decoding that one only: the
 * others are walked to count their logs. A block of 120 transfers decoded whole was most of an
 * eth_getTransactionReceipt's time on a big chain (issue 22). undefined: no such receipt, or
 * bytes that are not stored receipts.
 */
export function storedReceiptAt(bytes: Uint8Array, index: number): ReceiptInBlock | undefined {
  if (readSpan(bytes, 0, bytes.length) !== bytes.length || !span.list) return undefined
  const listEnd = span.end
  let found: Uint8Array | undefined
  let before = 0
  let total = 0
  for (let at = span.start, i = 0; at < listEnd; i++) {
    const end = readSpan(bytes, at, listEnd)
    if (end < 0 || !span.list) return undefined
    let field = span.start
    for (let k = 0; k < LOGS_FIELD && field >= 0; k++) field = readSpan(bytes, field, end)
    if (field < 0 || readSpan(bytes, field, end) < 0 || !span.list) return undefined
    const logs = countItems(bytes, span.start, span.end)
    if (logs < 0) return undefined
    if (i < index) before += logs
    else if (i === index) found = bytes.subarray(at, end)
    total += logs
    at = end
  }
  if (found === undefined) return undefined
  return {
    receipt: receiptOf(decodeRlp(found) as unknown as Uint8Array[]),
    firstLogIndex: before,
    blockLogCount: total,
  }
}

/**
 * The consensus encoding of a receipt (what the receipts trie holds):
 * type byte (typed txs) ‖ RLP([statusOrRoot, cumulativeGasUsed, bloom, logs]).
 */
export function encodeConsensusReceipt(r: StoredReceipt, bloom: Uint8Array): Uint8Array {
  const first = r.root ?? (r.status === 1 ? Uint8Array.of(1) : EMPTY)
  const body = RLP.encode([first, bigIntToUnpaddedBytes(r.cumulativeGasUsed), bloom, r.logs])
  if (r.type === 0) return body
  const out = new Uint8Array(body.length + 1)
  out[0] = r.type
  out.set(body, 1)
  return out
}

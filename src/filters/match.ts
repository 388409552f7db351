/**
 * Log matching shared by eth_getLogs, polling filters and `logs` subscriptions: addresses (any
 * of them), topics by position (null = any, several = any of them), the header bloom as a cheap
 * pre-check, and the logs of a block with their positions (ChainLog).
 */
import { bloomContains } from '../chain/bloom.js'
import type { StoredReceipt } from '../chain/receipt.js'
import { blockTransaction, type ChainBlock } from '../chain/store.js'
import { ChainLog, countLogs, type LogBlockInfo } from './chainLog.js'

/** What a log must match: addresses and per-position topics as bytes. */
export interface LogMatcher {
  /** Empty = any address. */
  addresses: Uint8Array[]
  /** Per position: null = any, else one of these. */
  topics: (Uint8Array[] | null)[]
}

/** The parts of filter criteria that select logs (as the RPC layer decodes them). */
export interface LogSelection {
  addresses: readonly string[]
  topics: readonly (Uint8Array[] | null)[]
}

export function compileMatcher(sel: LogSelection): LogMatcher {
  return { addresses: sel.addresses.map((a) => Buffer.from(a.slice(2), 'hex')), topics: [...sel.topics] }
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

/** False when the block's bloom proves no log can match. */
export function bloomMayMatch(bloom: Uint8Array, m: LogMatcher): boolean {
  if (m.addresses.length > 0 && !m.addresses.some((a) => bloomContains(bloom, a))) return false
  for (const position of m.topics) {
    if (position === null || position.length === 0) continue
    if (!position.some((t) => bloomContains(bloom, t))) return false
  }
  return true
}

export function logMatches(address: Uint8Array, topics: readonly Uint8Array[], m: LogMatcher): boolean {
  if (m.addresses.length > 0 && !m.addresses.some((a) => equal(a, address))) return false
  if (m.topics.length > topics.length) return false
  for (let i = 0; i < m.topics.length; i++) {
    const position = m.topics[i]
    if (position === null || position === undefined || position.length === 0) continue
    if (!position.some((t) => equal(t, topics[i] as Uint8Array))) return false
  }
  return true
}

/**
 * What a log's position needs of its block: hash, number and timestamp, and the hashes of its
 * transactions, computed only for transactions that have a matching log. Log queries build it
 * from the stored bytes (query.ts) instead of decoding whole blocks.
 */
export interface LogBlock {
  readonly hash: Uint8Array
  readonly number: bigint
  readonly timestamp: bigint
  txHash(index: number): Uint8Array
}

/** A LogBlock over a decoded block. */
export function decodedLogBlock(block: ChainBlock): LogBlock {
  return {
    hash: block.hash,
    number: block.header.number,
    timestamp: block.header.timestamp,
    // one transaction decoded per matching log's transaction, not the whole block
    txHash: (i) => (blockTransaction(block, i) as { hash(): Uint8Array }).hash(),
  }
}

/** The LogBlockInfo of `lb`, whose receipts are `receipts`. */
export function logBlockInfo(lb: LogBlock, receipts: readonly StoredReceipt[]): LogBlockInfo {
  return { hash: lb.hash, number: lb.number, timestamp: lb.timestamp, logCount: countLogs(receipts) }
}

/** Every log of `block`, in block order, with its position. */
export function blockLogs(block: ChainBlock, receipts: readonly StoredReceipt[]): ChainLog[] {
  const out: ChainLog[] = []
  const lb = decodedLogBlock(block)
  const info = logBlockInfo(lb, receipts)
  let logIndex = 0
  receipts.forEach((r, txIndex) => {
    if (r.logs.length === 0) return
    const txHash = lb.txHash(txIndex)
    for (const log of r.logs) out.push(new ChainLog(log, info, txHash, txIndex, logIndex++))
  })
  return out
}

/**
 * The matching logs of a block appended to `out`; `max` (0 = none) bounds `out`, and `onFull`
 * is thrown when one more would exceed it.
 */
export function collectMatches(
  lb: LogBlock,
  receipts: readonly StoredReceipt[],
  m: LogMatcher,
  out: ChainLog[],
  max: number,
  onFull: () => Error,
): void {
  let info: LogBlockInfo | undefined
  let logIndex = 0
  receipts.forEach((r, txIndex) => {
    let txHash: Uint8Array | undefined
    for (const log of r.logs) {
      if (logMatches(log[0], log[1], m)) {
        if (max > 0 && out.length >= max) throw onFull()
        info ??= logBlockInfo(lb, receipts)
        txHash ??= lb.txHash(txIndex)
        out.push(new ChainLog(log, info, txHash, txIndex, logIndex))
      }
      logIndex++
    }
  })
}

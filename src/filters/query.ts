/**
 * Log queries over a block range (eth_getLogs, eth_getFilterLogs):
 *
 *   criteria ─▶ range against the head (geth's errors) ─▶ range limit
 *            ─▶ candidate blocks from the log index (src/chain/logIndex.ts): per address or
 *               topic position the union of its alternatives, then the intersection of the
 *               constrained dimensions (no constraint: the blocks that have logs at all)
 *            ─▶ match only those blocks' logs (kept per block after the first read, keptLogs.ts),
 *               in order, with the result limit ─▶ ChainLogs (the RPC layer formats them)
 *
 * The result limit never refuses a single block: a blockHash query, or a range of one block,
 * answers all of the block's matching logs (as reth does), so the "retry with the range n-n" a
 * wider range is refused with always succeeds; a block's logs are bounded by its gas anyway.
 *
 * A block the index does not cover yet is checked against its header bloom instead. The scan
 * gives the event loop a turn every LOG_SCAN_SLICE_MS, so a query over many blocks never holds
 * the main thread (and consensus timers) for long.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt } from '@ethereumjs/util'
import { LOG_INDEX_ADDRESS, LOG_INDEX_ANY, LOG_INDEX_TOPIC, indexedBlocks, logIndexHead } from '../chain/logIndex.js'
import type { ChainStore } from '../chain/store.js'
import { keccak256 } from '../util/crypto.js'
import { filterErrors } from './errors.js'
import type { ChainLog } from './chainLog.js'
import { blockLogsAt, collectKept } from './keptLogs.js'
import {
  bloomMayMatch,
  collectMatches,
  compileMatcher,
  type LogBlock,
  type LogMatcher,
  type LogSelection,
} from './match.js'

/** Longest stretch of synchronous scanning before the event loop gets a turn. */
export const LOG_SCAN_SLICE_MS = 5

export interface LogQueryLimits {
  /** Largest `to - from` accepted (geth --rpc.rangelimit); 0 = none. */
  maxBlockRange: number
  /** Most logs in one answer of two or more blocks (reth --rpc.max-logs-per-response); 0 = none. */
  maxResults: number
}

/** The result limit of a one-block query: none (0), the block is answered whole. */
const ONE_BLOCK_MAX_RESULTS = 0

/** A bound of a log range: a number, a tag (`earliest` = 0, any other = the head) or a block hash. */
export type LogRangeBound =
  | { readonly kind: 'number'; readonly number: bigint }
  | { readonly kind: 'tag'; readonly tag: string }
  | { readonly kind: 'hash'; readonly hash: Uint8Array }

/** Decoded filter criteria: one block by hash, or a range (undefined bounds: the head). */
export interface LogQuery extends LogSelection {
  readonly blockHash: Uint8Array | undefined
  readonly fromBlock: LogRangeBound | undefined
  readonly toBlock: LogRangeBound | undefined
}

const EMPTY = new Uint8Array(0)
/** Positions in the RLP header list. */
const HEADER_BLOOM = 6
const HEADER_NUMBER = 8
const HEADER_TIMESTAMP = 11

/** A block's LogBlock and header bloom from its stored bytes, without decoding the block. */
function storedLogBlock(store: ChainStore, hash: Uint8Array): { lb: LogBlock; bloom: Uint8Array } | undefined {
  const headerBytes = store.db.getSync('headers', hash)
  const bodyBytes = store.db.getSync('bodies', hash)
  if (headerBytes === undefined || bodyBytes === undefined) return undefined
  const header = RLP.decode(headerBytes) as Uint8Array[]
  let txs: (Uint8Array | Uint8Array[])[] | undefined
  const txHash = (i: number) => {
    txs ??= (RLP.decode(bodyBytes) as unknown as (Uint8Array | Uint8Array[])[][])[0] as (Uint8Array | Uint8Array[])[]
    const tx = txs[i] as Uint8Array | Uint8Array[]
    // typed transactions are stored as type ‖ payload, legacy ones as their RLP list
    return keccak256(tx instanceof Uint8Array ? tx : RLP.encode(tx))
  }
  const lb: LogBlock = {
    hash,
    number: bytesToBigInt(header[HEADER_NUMBER] as Uint8Array),
    timestamp: bytesToBigInt(header[HEADER_TIMESTAMP] as Uint8Array),
    txHash,
  }
  return { lb, bloom: header[HEADER_BLOOM] as Uint8Array }
}

/** A block reference of a filter as a number at `head` (default: latest). */
export function resolveFilterBlock(store: ChainStore, ref: LogRangeBound | undefined, head: bigint): bigint {
  if (ref === undefined) return head
  switch (ref.kind) {
    case 'number':
      return ref.number
    case 'tag':
      return ref.tag === 'earliest' ? 0n : head
    case 'hash': {
      const block = store.getBlockByHash(ref.hash)
      if (block === undefined) throw filterErrors.headerForHash()
      return block.header.number
    }
  }
}

/** True when block `n` lies inside the numeric bounds of `q` (tags bound nothing, as in geth). */
export function inRange(q: LogQuery, n: bigint): boolean {
  if (q.fromBlock?.kind === 'number' && n < q.fromBlock.number) return false
  if (q.toBlock?.kind === 'number' && n > q.toBlock.number) return false
  return true
}

function yieldToEventLoop(): Promise<void> {
  return new Promise((resolve) => setImmediate(resolve))
}

/** Sorted union of sorted lists. */
function union(lists: number[][]): number[] {
  if (lists.length === 1) return lists[0] as number[]
  return [...new Set(lists.flat())].sort((a, b) => a - b)
}

/** Blocks in [from, to] whose index entries can satisfy `m`, ascending. */
export function candidateBlocks(store: ChainStore, m: LogMatcher, from: bigint, to: bigint): number[] {
  const db = store.db
  const dims: number[][] = []
  if (m.addresses.length > 0) {
    dims.push(union(m.addresses.map((a) => indexedBlocks(db, LOG_INDEX_ADDRESS, a, from, to))))
  }
  m.topics.forEach((position, i) => {
    if (position === null || position.length === 0 || i > 3) return
    dims.push(union(position.map((t) => indexedBlocks(db, LOG_INDEX_TOPIC + i, t, from, to))))
  })
  if (dims.length === 0) return indexedBlocks(db, LOG_INDEX_ANY, EMPTY, from, to)
  dims.sort((a, b) => a.length - b.length)
  let result = dims[0] as number[]
  for (let d = 1; d < dims.length && result.length > 0; d++) {
    const other = new Set(dims[d])
    result = result.filter((n) => other.has(n))
  }
  return result
}

/** The logs matching `q`, in chain order. */
export async function queryLogs(store: ChainStore, q: LogQuery, limits: LogQueryLimits): Promise<ChainLog[]> {
  const m = compileMatcher(q)
  const out: ChainLog[] = []
  if (q.blockHash !== undefined) {
    const stored = storedLogBlock(store, q.blockHash)
    if (stored === undefined) throw filterErrors.unknownBlock()
    const n = stored.lb.number
    const canonical = store.getHashByNumber(n)
    // a canonical block: its kept logs (no transaction hashes to compute again)
    const entry =
      canonical !== undefined && Buffer.compare(canonical, q.blockHash) === 0 ? blockLogsAt(store, n) : undefined
    if (entry !== undefined) {
      const lb = stored.lb
      collectKept(
        entry,
        m,
        out,
        ONE_BLOCK_MAX_RESULTS,
        () => filterErrors.resultLimit(ONE_BLOCK_MAX_RESULTS, n, n),
        () => lb,
      )
    } else {
      matchBlock(store, stored.lb, m, out, ONE_BLOCK_MAX_RESULTS, n, n)
    }
    return out
  }
  const head = store.head.header.number
  const from = resolveFilterBlock(store, q.fromBlock, head)
  const to = resolveFilterBlock(store, q.toBlock, head)
  if (to > head) throw filterErrors.beyondHead()
  if (from > to) throw filterErrors.invalidRange()
  if (limits.maxBlockRange > 0 && to - from > BigInt(limits.maxBlockRange))
    throw filterErrors.rangeLimit(limits.maxBlockRange)
  const maxResults = from === to ? ONE_BLOCK_MAX_RESULTS : limits.maxResults

  const indexed = logIndexHead(store.db) ?? -1n
  const blocks: bigint[] =
    from <= indexed ? candidateBlocks(store, m, from, to < indexed ? to : indexed).map(BigInt) : []
  for (let n = indexed + 1n > from ? indexed + 1n : from; n <= to; n++) blocks.push(n)

  let sliceStart = performance.now()
  for (const n of blocks) {
    if (n <= indexed) {
      // the index says the block has logs that may match: its kept logs, read once
      const entry = blockLogsAt(store, n)
      if (entry !== undefined) {
        const fitsUpTo = n > from ? n - 1n : from
        collectKept(
          entry,
          m,
          out,
          maxResults,
          () => filterErrors.resultLimit(maxResults, from, fitsUpTo),
          () => storedLogBlock(store, entry.hash)?.lb,
        )
      }
    } else {
      // past the index: the header bloom first, so blocks without a match cost no receipts
      const hash = store.getHashByNumber(n)
      const stored = hash === undefined ? undefined : storedLogBlock(store, hash)
      if (stored === undefined || !bloomMayMatch(stored.bloom, m)) continue
      matchBlock(store, stored.lb, m, out, maxResults, from, n)
    }
    if (performance.now() - sliceStart > LOG_SCAN_SLICE_MS) {
      await yieldToEventLoop()
      sliceStart = performance.now()
    }
  }
  return out
}

function matchBlock(
  store: ChainStore,
  lb: LogBlock,
  m: LogMatcher,
  out: ChainLog[],
  maxResults: number,
  from: bigint,
  n: bigint,
): void {
  const receipts = store.getReceipts(lb.hash)
  if (receipts === undefined || receipts.length === 0) return
  const fitsUpTo = n > from ? n - 1n : from
  collectMatches(lb, receipts, m, out, maxResults, () => filterErrors.resultLimit(maxResults, from, fitsUpTo))
}

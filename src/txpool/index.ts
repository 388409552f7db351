/**
 * The transaction pool: transactions accepted over eth_sendRawTransaction wait here until a
 * block includes them. Per sender they are kept by nonce; the run of consecutive nonces that
 * starts at the sender's state nonce is *pending* (executable now), everything after a gap is
 * *queued* (future). A transaction's life:
 *
 *                 eth_sendRawTransaction (or the journal at start)
 *                                 │
 *           validate.ts: decode, signature, fees, gas, price limit, nonce too low, funds
 *                                 │ rejected ─▶ -32000 with geth's message (errors.ts)
 *                                 ▼
 *           pool.ts: already known? same (sender, nonce)? ──yes──▶ fee cap and tip both ≥ old + price_bump %
 *                                 │ no                              │ no: replacement transaction underpriced
 *                                 │                                 └ yes: takes the old one's place (same state)
 *               queued cost over balance? account_queue full? pool full (evict the cheapest tail)?
 *                                 │
 *                 ┌───────────────┴───────────────┐
 *                 ▼ nonce = next executable       ▼ nonce gap
 *            ┌─────────┐  the gap fills: promote  ┌────────┐  idle for `lifetime` ──▶ dropped
 *            │ PENDING │◀─────────────────────────│ QUEUED │  cheapest tail, pool full ─▶ evicted
 *            │         │─────────────────────────▶│        │
 *            └────┬────┘  an earlier nonce left   └────────┘
 *                 │       the pool: demote
 *   block builder takes PENDING runs: by tip across senders, by nonce within a sender
 *                 │
 *   new block ──▶ onBlock: re-read each sender's nonce and balance at the new head
 *                 ├─ nonce below the state nonce (mined, or replaced on chain) ─▶ removed
 *                 ├─ costs more than the balance, or over the block gas limit  ─▶ removed
 *                 └─ invalid while building (builder's `dropped`)              ─▶ removed
 *
 * Invariants: one transaction per (sender, nonce); a pending run never has a hole (eviction
 * takes an account's highest nonce, so it never breaks another sender's pending order); a
 * queued transaction never evicts a pending one; listeners hear of a transaction once it
 * becomes pending (new, promoted, or a pending replacement) — what newPendingTransactions and
 * the sealer react to. Accepted transactions are appended to a journal in the datadir
 * (journal.ts) and re-validated from it at start, so a restart keeps the pool — after kill -9 too:
 * the appended records replay in arrival order, queued ones stay queued and a filled gap is filled
 * again, so no sender is stranded behind a nonce the crash forgot.
 * A transaction that leaves without being mined is logged with its reason ("txpool: dropped 0x…:
 * …", info; evictions from a full pool are counted per block, named at debug), and
 * eth_getTransactionByHash answers null for it, as geth does.
 */
import type { TypedTransaction } from '@ethereumjs/tx'

export type { PoolChain, TxPoolLimits } from './pool.js'
export { TransactionPool } from './pool.js'

/** An admitted transaction with what the pool and the builder need, decoded once. */
export interface PoolTx {
  tx: TypedTransaction
  hash: Uint8Array
  hashHex: string
  sender: Uint8Array
  /** Lowercase 0x sender. */
  senderHex: string
  nonce: bigint
  /** Max fee per gas (legacy: gas price). */
  feeCap: bigint
  /** Max priority fee per gas (legacy: gas price). */
  tipCap: bigint
  /** gas × fee cap + value: what the sender must be able to pay. */
  cost: bigint
  /** Effective tip at a given base fee. */
  tipAt(baseFee: bigint): bigint
}

export type NewTxListener = (tx: PoolTx) => void

/** Counts of txpool_status. */
export interface PoolStats {
  pending: number
  queued: number
}

/** Per sender, transactions by increasing nonce. */
export interface PoolContent {
  pending: Map<string, PoolTx[]>
  queued: Map<string, PoolTx[]>
}

/** What the RPC layer and the block producer need from a pool. */
export interface TxPool {
  /** Pending plus queued. */
  readonly size: number
  has(hashHex: string): boolean
  get(hashHex: string): PoolTx | undefined
  /** Validates a raw transaction and admits it; throws TxPoolError with geth's message. */
  submit(raw: Uint8Array): Promise<PoolTx>
  /** First nonce after the pending run of `senderHex` continuing from `stateNonce`. */
  nextNonce(senderHex: string, stateNonce: bigint): bigint
  /** Pending transactions in block order: by tip across senders, by nonce within one. */
  candidates(baseFee: bigint): PoolTx[]
  /** After a block: drops `dropped`, re-reads the senders at the new head, promotes, demotes. */
  onBlock(dropped: readonly PoolTx[]): Promise<void>
  /** Told of every transaction that becomes pending. */
  onNewTx(listener: NewTxListener): void
  stats(): PoolStats
  content(): PoolContent
  contentFrom(senderHex: string): { pending: PoolTx[]; queued: PoolTx[] }
}

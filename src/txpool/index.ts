/**
 * The transaction pool (first cut: pending transactions only; queued/future subpools,
 * replacement and persistence come with the pool/filters issue).
 *
 *   eth_sendRawTransaction ──validate (src/txpool/validate.ts)──▶ pending[sender][nonce]
 *        │ rejected: -32000 with geth's message                 │
 *        ▼                                                      │ block builder drains
 *      (gone)                                                   ▼ nonce order per sender,
 *                                                   included ──▶ removed on commit
 *                                          invalid at build ──▶ removed (dropped)
 *
 * Invariants: one transaction per (sender, nonce); a transaction whose nonce is below the
 * sender's state nonce after a block is removed; the builder never sees a nonce gap (it
 * stops at the first missing nonce of a sender).
 */
import type { TypedTransaction } from '@ethereumjs/tx'

/** Most transactions the pool holds; new ones are refused beyond it. */
export const TXPOOL_MAX_TRANSACTIONS = 10_000

export interface PoolTx {
  tx: TypedTransaction
  hash: Uint8Array
  hashHex: string
  sender: Uint8Array
  senderHex: string
  nonce: bigint
  /** Effective tip at a given base fee. */
  tipAt(baseFee: bigint): bigint
}

export type NewTxListener = (tx: PoolTx) => void

/** What the RPC layer and the block builder need from a pool. */
export interface TxPool {
  readonly size: number
  has(hashHex: string): boolean
  get(hashHex: string): PoolTx | undefined
  add(tx: PoolTx): void
  /** Highest pooled nonce + 1 of `senderHex` continuing from `stateNonce`, else `stateNonce`. */
  nextNonce(senderHex: string, stateNonce: bigint): bigint
  /** Executable transactions, ordered for a block: by tip across senders, by nonce within. */
  candidates(baseFee: bigint, stateNonce: (senderHex: string) => bigint): PoolTx[]
  remove(hashHex: string): void
  /** Drops every transaction of `senderHex` with a nonce below `stateNonce`. */
  pruneSender(senderHex: string, stateNonce: bigint): void
  onNewTx(listener: NewTxListener): void
  all(): PoolTx[]
}

export class PendingPool implements TxPool {
  readonly #byHash = new Map<string, PoolTx>()
  readonly #bySender = new Map<string, Map<bigint, PoolTx>>()
  readonly #listeners: NewTxListener[] = []

  get size(): number {
    return this.#byHash.size
  }

  has(hashHex: string): boolean {
    return this.#byHash.has(hashHex)
  }

  get(hashHex: string): PoolTx | undefined {
    return this.#byHash.get(hashHex)
  }

  add(ptx: PoolTx): void {
    let queue = this.#bySender.get(ptx.senderHex)
    if (queue === undefined) {
      queue = new Map()
      this.#bySender.set(ptx.senderHex, queue)
    }
    const previous = queue.get(ptx.nonce)
    if (previous !== undefined) this.#byHash.delete(previous.hashHex)
    queue.set(ptx.nonce, ptx)
    this.#byHash.set(ptx.hashHex, ptx)
    for (const l of this.#listeners) l(ptx)
  }

  nextNonce(senderHex: string, stateNonce: bigint): bigint {
    const queue = this.#bySender.get(senderHex)
    let n = stateNonce
    if (queue === undefined) return n
    while (queue.has(n)) n++
    return n
  }

  candidates(baseFee: bigint, stateNonce: (senderHex: string) => bigint): PoolTx[] {
    // per sender: the executable run of nonces starting at the state nonce
    const runs: PoolTx[][] = []
    for (const [sender, queue] of this.#bySender) {
      const run: PoolTx[] = []
      let n = stateNonce(sender)
      for (let tx = queue.get(n); tx !== undefined; tx = queue.get(++n)) run.push(tx)
      if (run.length > 0) runs.push(run.reverse())
    }
    // merge: repeatedly take the best-paying head among senders
    const out: PoolTx[] = []
    while (runs.length > 0) {
      let best = 0
      let bestTip = (runs[0] as PoolTx[]).at(-1)?.tipAt(baseFee) ?? 0n
      for (let i = 1; i < runs.length; i++) {
        const tip = (runs[i] as PoolTx[]).at(-1)?.tipAt(baseFee) ?? 0n
        if (tip > bestTip) {
          best = i
          bestTip = tip
        }
      }
      const run = runs[best] as PoolTx[]
      out.push(run.pop() as PoolTx)
      if (run.length === 0) runs.splice(best, 1)
    }
    return out
  }

  remove(hashHex: string): void {
    const ptx = this.#byHash.get(hashHex)
    if (ptx === undefined) return
    this.#byHash.delete(hashHex)
    const queue = this.#bySender.get(ptx.senderHex)
    if (queue === undefined) return
    if (queue.get(ptx.nonce) === ptx) queue.delete(ptx.nonce)
    if (queue.size === 0) this.#bySender.delete(ptx.senderHex)
  }

  pruneSender(senderHex: string, stateNonce: bigint): void {
    const queue = this.#bySender.get(senderHex)
    if (queue === undefined) return
    for (const [nonce, ptx] of queue) {
      if (nonce < stateNonce) {
        queue.delete(nonce)
        this.#byHash.delete(ptx.hashHex)
      }
    }
    if (queue.size === 0) this.#bySender.delete(senderHex)
  }

  onNewTx(listener: NewTxListener): void {
    this.#listeners.push(listener)
  }

  all(): PoolTx[] {
    return [...this.#byHash.values()]
  }
}

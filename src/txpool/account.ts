/**
 * One sender's pooled transactions, by nonce, with the sender's nonce and balance at the head.
 * The executable (pending) run is [stateNonce, stateNonce + pending); every other transaction
 * of the sender is queued behind a gap.
 */
import type { PoolTx } from './index.js'

export class SenderTxs {
  readonly senderHex: string
  readonly byNonce = new Map<bigint, PoolTx>()
  /** Nonce of the sender at the head. */
  stateNonce: bigint
  /** Balance of the sender at the head, wei. */
  balance: bigint
  /** Length of the executable run starting at stateNonce. */
  pending = 0
  /** Last time a transaction of this sender was added or promoted (queued lifetime). */
  lastActiveMs: number
  /** stateNonce as of the last recount: where the pending run started. */
  #runStart: bigint

  constructor(senderHex: string, stateNonce: bigint, balance: bigint, nowMs: number) {
    this.senderHex = senderHex
    this.stateNonce = stateNonce
    this.balance = balance
    this.lastActiveMs = nowMs
    this.#runStart = stateNonce
  }

  get size(): number {
    return this.byNonce.size
  }

  get queued(): number {
    return this.byNonce.size - this.pending
  }

  /** The nonce a new transaction needs to extend the pending run. */
  get nextNonce(): bigint {
    return this.stateNonce + BigInt(this.pending)
  }

  isPending(nonce: bigint): boolean {
    return nonce >= this.stateNonce && nonce < this.nextNonce
  }

  /**
   * Recomputes the pending run after a change; returns the transactions that became pending
   * (promoted), in nonce order. A run that got shorter demotes the rest to queued silently.
   */
  recount(): PoolTx[] {
    const oldStart = this.#runStart
    const oldEnd = oldStart + BigInt(this.pending)
    let n = this.stateNonce
    const promoted: PoolTx[] = []
    for (let tx = this.byNonce.get(n); tx !== undefined; tx = this.byNonce.get(++n)) {
      if (n < oldStart || n >= oldEnd) promoted.push(tx)
    }
    this.pending = Number(n - this.stateNonce)
    this.#runStart = this.stateNonce
    return promoted
  }

  /** Sum of the costs of the pending run (geth's "queued cost"). */
  pendingCost(): bigint {
    let sum = 0n
    let n = this.stateNonce
    for (let i = 0; i < this.pending; i++) sum += (this.byNonce.get(n++) as PoolTx).cost
    return sum
  }

  pendingTxs(): PoolTx[] {
    const out = new Array<PoolTx>(this.pending)
    let n = this.stateNonce
    for (let i = 0; i < this.pending; i++) out[i] = this.byNonce.get(n++) as PoolTx
    return out
  }

  queuedTxs(): PoolTx[] {
    const out: PoolTx[] = []
    for (const [nonce, tx] of this.byNonce) if (!this.isPending(nonce)) out.push(tx)
    return out.sort((a, b) => (a.nonce < b.nonce ? -1 : 1))
  }

  /** The highest-nonce transaction: the only one eviction may take without leaving a hole. */
  tail(): PoolTx | undefined {
    let last: PoolTx | undefined
    for (const tx of this.byNonce.values()) if (last === undefined || tx.nonce > last.nonce) last = tx
    return last
  }
}

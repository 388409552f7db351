/**
 * Sender recovery off the main thread. ecrecover is the largest single cost of admitting a
 * transaction (~50 µs native, an eighth of the main thread at 2,500 tx/s); here it runs on a
 * Piscina pool of worker threads (workers/recover.ts), like the execution pool's lanes, in
 * batches, before the pool's serialized admission:
 *
 *   submit(raw) ─ decode ─▶ prime(tx) ─ batch (one event-loop turn, ≤ RECOVER_BATCH_MAX) ─▶ Piscina
 *                                       [≤ RECOVER_QUEUE_BATCHES waiting] ─▶ worker
 *                                       ◀── keys, addresses ── tx.cache.senderPubKey = key ─┘
 *              ─▶ serialized validation (validate.ts): primedSender() gives the address
 *
 * What must hold: the key put in a transaction's cache is what ethereumjs' own recovery gives
 * (the same native ecrecover, same message hash, v, r, s and chain id); a signature ethereumjs
 * would refuse before recovering (high s after Homestead) is never primed, nor one that does not
 * recover: the main thread then checks it itself and words the error as always. A worker that
 * fails leaves its transactions unprimed and is replaced (Piscina); a batch refused because the
 * queue is full is left unprimed too; priming never rejects.
 */
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { Piscina } from 'piscina'
import { workerEntry } from '../exec/pool/index.js'

/** Signatures sent to a worker in one task. */
export const RECOVER_BATCH_MAX = 256
/**
 * Batches that may wait for a recovery thread (64 × 256 signatures ≈ 0.8 s of one thread's work):
 * past that, admission is behind anyway and the main thread recovers the rest itself, so the
 * queue never grows without bound.
 */
export const RECOVER_QUEUE_BATCHES = 64
/** secp256k1's order / 2: EIP-2 refuses signatures with a larger s. */
const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

export interface RecoverItem {
  hash: Uint8Array
  v: bigint
  r: Uint8Array
  s: Uint8Array
  chainId: bigint | undefined
}

/** One task of the recovery pool: up to RECOVER_BATCH_MAX signatures. */
export type RecoverBatch = RecoverItem[]

export interface RecoverReply {
  keys: (Uint8Array | null)[]
  /** keccak256(key)[12:], the sender's address, per key. */
  addresses: (Uint8Array | null)[]
}

interface Waiting {
  tx: TypedTransaction
  item: RecoverItem
  done: () => void
}

type CachedTx = TypedTransaction & { cache: { senderPubKey?: Uint8Array; ibexSender?: Uint8Array } }

/** The sender's address a worker derived from the key it primed (undefined: not primed). */
export function primedSender(tx: TypedTransaction): Uint8Array | undefined {
  return (tx as CachedTx).cache.ibexSender
}

export class SenderRecovery {
  readonly threads: number
  /** Batches that may wait for a thread; more are left unprimed. */
  readonly queueBatches: number
  #pool: Piscina | undefined
  #queue: Waiting[] = []
  /** Batches handed to Piscina and not yet answered (close() leaves them unprimed). */
  readonly #inFlight = new Set<Waiting[]>()
  #scheduled = false
  #closed = false

  /** `threads` worker threads, started on first use. */
  constructor(threads: number, queueBatches = RECOVER_QUEUE_BATCHES) {
    this.threads = Math.max(1, threads)
    this.queueBatches = queueBatches
  }

  /** Recovers `tx`'s sender on a worker and caches it in the transaction; resolves either way. */
  prime(tx: TypedTransaction | undefined): Promise<void> {
    if (tx === undefined || this.#closed) return Promise.resolve()
    const cached = tx as CachedTx
    if (cached.cache.senderPubKey !== undefined) return Promise.resolve()
    const { v, r, s } = tx
    if (v === undefined || r === undefined || s === undefined) return Promise.resolve()
    // ethereumjs refuses these before recovering: leave them to it
    if (s > SECP256K1_N_DIV_2 && tx.common.gteHardfork('homestead')) return Promise.resolve()
    let hash: Uint8Array
    try {
      hash = tx.getMessageToVerifySignature()
    } catch {
      return Promise.resolve()
    }
    const item: RecoverItem = {
      hash,
      v,
      r: bigIntToUnpaddedBytes(r),
      s: bigIntToUnpaddedBytes(s),
      chainId: tx.supports(Capability.EIP155ReplayProtection) ? tx.common.chainId() : undefined,
    }
    return new Promise<void>((done) => {
      this.#queue.push({ tx, item, done })
      if (!this.#scheduled) {
        this.#scheduled = true
        setImmediate(() => this.#flush())
      }
    })
  }

  /** Stops the workers; transactions still waiting are left to the main thread. */
  async close(): Promise<void> {
    this.#closed = true
    for (const w of this.#queue.splice(0)) w.done()
    for (const waiting of this.#inFlight) this.#settle(waiting, undefined)
    const pool = this.#pool
    this.#pool = undefined
    await pool?.destroy()
  }

  #flush(): void {
    this.#scheduled = false
    if (this.#closed) return
    const pool = this.#start()
    while (this.#queue.length > 0) {
      const waiting = this.#queue.splice(0, RECOVER_BATCH_MAX)
      const batch: RecoverBatch = waiting.map((w) => w.item)
      this.#inFlight.add(waiting)
      // a full queue, a crashed worker or close(): the batch stays unprimed, the main thread recovers it
      pool.run(batch).then(
        (reply: RecoverReply) => this.#settle(waiting, reply.keys, reply.addresses),
        () => this.#settle(waiting, undefined),
      )
    }
  }

  #start(): Piscina {
    if (this.#pool !== undefined) return this.#pool
    const { filename, ibexEntry } = workerEntry('recover')
    const pool = new Piscina({
      filename,
      workerData: { ibexEntry },
      minThreads: this.threads,
      maxThreads: this.threads,
      maxQueue: this.queueBatches,
      idleTimeout: Number.POSITIVE_INFINITY,
    })
    // a worker dying between tasks is replaced by Piscina; nothing to answer
    pool.on('error', () => {})
    this.#pool = pool
    return pool
  }

  #settle(waiting: Waiting[], keys: (Uint8Array | null)[] | undefined, addresses?: (Uint8Array | null)[]): void {
    if (!this.#inFlight.delete(waiting)) return
    waiting.forEach((w, i) => {
      const key = keys?.[i]
      if (key !== undefined && key !== null && key.length === 64) {
        const cache = (w.tx as CachedTx).cache
        cache.senderPubKey = key
        const address = addresses?.[i]
        if (address !== undefined && address !== null && address.length === 20) cache.ibexSender = address
      }
      w.done()
    })
  }
}

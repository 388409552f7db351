/**
 * Sender recovery off the main thread. ecrecover is the largest single cost of admitting a
 * transaction (~50 µs native, an eighth of the main thread at 2,500 tx/s); here it runs on
 * worker threads (workers/recover.ts), in batches, before the pool's serialized admission:
 *
 *   submit(raw) ─ decode ─▶ prime(tx) ─ batch (one event-loop turn, ≤ RECOVER_BATCH_MAX) ─▶ worker
 *                                       ◀── keys, addresses ── tx.cache.senderPubKey = key ─┘
 *              ─▶ serialized validation (validate.ts): primedSender() gives the address
 *
 * What must hold: the key put in a transaction's cache is what ethereumjs' own recovery gives
 * (the same native ecrecover, same message hash, v, r, s and chain id); a signature ethereumjs
 * would refuse before recovering (high s after Homestead) is never primed, nor one that does not
 * recover: the main thread then checks it itself and words the error as always. A worker that
 * fails leaves its transactions unprimed and is replaced; priming never rejects.
 */
import { Worker } from 'node:worker_threads'
import { Capability, type TypedTransaction } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { workerFile } from '../exec/pool/index.js'

/** Signatures sent to a worker in one message. */
export const RECOVER_BATCH_MAX = 256
/** secp256k1's order / 2: EIP-2 refuses signatures with a larger s. */
const SECP256K1_N_DIV_2 = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

export interface RecoverItem {
  hash: Uint8Array
  v: bigint
  r: Uint8Array
  s: Uint8Array
  chainId: bigint | undefined
}

export interface RecoverBatch {
  id: number
  items: RecoverItem[]
}

export interface RecoverReply {
  id: number
  keys: (Uint8Array | null)[]
  /** keccak256(key)[12:], the sender's address, per key. */
  addresses: (Uint8Array | null)[]
}

interface Waiting {
  tx: TypedTransaction
  item: RecoverItem
  done: () => void
}

interface Sent {
  worker: Worker
  waiting: Waiting[]
}

type CachedTx = TypedTransaction & { cache: { senderPubKey?: Uint8Array; ibexSender?: Uint8Array } }

/** The sender's address a worker derived from the key it primed (undefined: not primed). */
export function primedSender(tx: TypedTransaction): Uint8Array | undefined {
  return (tx as CachedTx).cache.ibexSender
}

export class SenderRecovery {
  readonly threads: number
  readonly #workers: (Worker | undefined)[]
  readonly #sent = new Map<number, Sent>()
  #queue: Waiting[] = []
  #scheduled = false
  #nextId = 0
  #nextWorker = 0
  #closed = false

  /** `threads` worker threads, started on first use. */
  constructor(threads: number) {
    this.threads = Math.max(1, threads)
    this.#workers = new Array(this.threads).fill(undefined)
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
    for (const [id, sent] of this.#sent) this.#settle(id, sent, undefined)
    await Promise.all(this.#workers.map((w) => w?.terminate()))
    this.#workers.fill(undefined)
  }

  #flush(): void {
    this.#scheduled = false
    while (this.#queue.length > 0) {
      const waiting = this.#queue.splice(0, RECOVER_BATCH_MAX)
      const worker = this.#worker()
      const id = this.#nextId++
      this.#sent.set(id, { worker, waiting })
      const batch: RecoverBatch = { id, items: waiting.map((w) => w.item) }
      worker.postMessage(batch)
    }
  }

  #worker(): Worker {
    const i = this.#nextWorker
    this.#nextWorker = (i + 1) % this.threads
    let w = this.#workers[i]
    if (w === undefined) {
      const worker = new Worker(workerFile('recover'))
      worker.unref()
      worker.on('message', (reply: RecoverReply) => {
        const sent = this.#sent.get(reply.id)
        if (sent !== undefined) this.#settle(reply.id, sent, reply.keys, reply.addresses)
      })
      const lost = () => {
        if (this.#workers[i] === worker) this.#workers[i] = undefined
        for (const [id, sent] of this.#sent) if (sent.worker === worker) this.#settle(id, sent, undefined)
      }
      worker.on('error', lost)
      worker.on('exit', lost)
      this.#workers[i] = worker
      w = worker
    }
    return w
  }

  #settle(id: number, sent: Sent, keys: (Uint8Array | null)[] | undefined, addresses?: (Uint8Array | null)[]): void {
    this.#sent.delete(id)
    sent.waiting.forEach((w, i) => {
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

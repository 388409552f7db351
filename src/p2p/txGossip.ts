/**
 * Transactions gossiped in batches: the pool's new pending transactions of a short window go out
 * as one gossip message, RLP([raw…]) on /ibex/<g>/txs/1, instead of one message each.
 *
 *   pool new pending ─▶ add(raw) ─┬─ first of a batch: flush in TX_GOSSIP_BATCH_MS
 *                                 └─ TX_GOSSIP_BATCH_MAX_TXS or _BYTES reached: flush now
 *   flush ─▶ publish(RLP([raw…]))  ─▶ peers: decodeTxBatch ─▶ each raw to their pool
 *
 * Why: every gossip message costs each node a Noise frame to decrypt, a gossipsub frame to
 * decode, an ed25519 signature to check and a frame to encrypt per mesh peer it forwards to —
 * far more than admitting the transaction it carries. Under a transfer load
 * (bench/validators.ts) that per-message work was over a third of a validator's main thread.
 * The price is up to TX_GOSSIP_BATCH_MS more before peers see a transaction (blocks are ≥ 1 s).
 *
 * Peers of an older version listen only to the single-transaction topic (/tx/1): they get these
 * transactions from the pending announcements (txSync.ts) instead; single messages from them are
 * still taken.
 */
import { RLP } from '@ethereumjs/rlp'

/** A batch is sent this long after its first transaction (unless full before). */
export const TX_GOSSIP_BATCH_MS = 20
/** Most transactions in one batch. */
export const TX_GOSSIP_BATCH_MAX_TXS = 256
/** A batch is sent once its transactions reach this many bytes (well under P2P_MAX_FRAME_BYTES). */
export const TX_GOSSIP_BATCH_MAX_BYTES = 512 * 1024

export function encodeTxBatch(raws: readonly Uint8Array[]): Uint8Array {
  return RLP.encode(raws as Uint8Array[])
}

/** The raw transactions of a batch; undefined when it is not RLP([bytes…]). */
export function decodeTxBatch(data: Uint8Array): Uint8Array[] | undefined {
  try {
    const item = RLP.decode(data)
    if (!Array.isArray(item) || !item.every((r) => r instanceof Uint8Array)) return undefined
    return item as Uint8Array[]
  } catch {
    return undefined
  }
}

/** Collects raw transactions and publishes them as batches (see the module doc). */
export class TxGossipBatcher {
  readonly #publish: (batch: Uint8Array) => void
  readonly #delayMs: number
  #raws: Uint8Array[] = []
  #bytes = 0
  #timer: NodeJS.Timeout | undefined

  constructor(publish: (batch: Uint8Array) => void, delayMs = TX_GOSSIP_BATCH_MS) {
    this.#publish = publish
    this.#delayMs = delayMs
  }

  add(raw: Uint8Array): void {
    this.#raws.push(raw)
    this.#bytes += raw.length
    if (this.#raws.length >= TX_GOSSIP_BATCH_MAX_TXS || this.#bytes >= TX_GOSSIP_BATCH_MAX_BYTES) this.flush()
    else this.#timer ??= setTimeout(() => this.flush(), this.#delayMs)
  }

  /** Publishes what is collected (nothing when empty). */
  flush(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    if (this.#raws.length === 0) return
    const raws = this.#raws
    this.#raws = []
    this.#bytes = 0
    this.#publish(encodeTxBatch(raws))
  }

  /** Drops what is collected (the node is stopping: peers get it from the announcements). */
  stop(): void {
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    this.#timer = undefined
    this.#raws = []
    this.#bytes = 0
  }
}

/**
 * Block production for a chain with one validator (the dev network, or a single-validator
 * testnet): this node is the proposer of every round and the only committer, so a block is
 * final as soon as it is sealed. The multi-validator IBFT state machine replaces this loop
 * when the validator set has more than one member.
 *
 *   block time 0:  transaction arrives ─▶ seal on the next tick (coalescing a burst)
 *                  ─▶ more executable transactions left? seal again
 *   block time T:  every T, seal whatever is executable (empty blocks too)
 *
 * Builds never overlap: one runs at a time, the next waits for it.
 */
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { BlockBuilder } from './blockBuilder.js'
import type { PoolTx, TxPool } from '../txpool/index.js'

export interface SealerOptions {
  store: ChainStore
  builder: BlockBuilder
  pool: TxPool
  /** 0 = seal when transactions arrive. */
  blockTimeMs: number
  onBlock(block: ChainBlock, included: PoolTx[]): void
  onError(err: unknown): void
}

export class SingleValidatorSealer {
  readonly #o: SealerOptions
  #timer: NodeJS.Timeout | undefined
  #scheduled = false
  #running: Promise<void> | undefined
  #stopped = false

  constructor(opts: SealerOptions) {
    this.#o = opts
  }

  start(): void {
    if (this.#o.blockTimeMs === 0) {
      this.#o.pool.onNewTx(() => this.#schedule())
      if (this.#o.pool.size > 0) this.#schedule()
    } else {
      this.#armTimer()
    }
  }

  async stop(): Promise<void> {
    this.#stopped = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
    await this.#running
  }

  #armTimer(): void {
    if (this.#stopped) return
    const parentMs = Number(this.#o.store.head.header.timestamp) * 1000
    const due = Math.max(parentMs + this.#o.blockTimeMs - Date.now(), 0)
    this.#timer = setTimeout(
      () => {
        this.#run().finally(() => this.#armTimer())
      },
      Math.min(due, this.#o.blockTimeMs),
    )
  }

  #schedule(): void {
    if (this.#scheduled || this.#stopped) return
    this.#scheduled = true
    setImmediate(() => {
      this.#scheduled = false
      void this.#run().then(() => {
        if (this.#hasExecutable()) this.#schedule()
      })
    })
  }

  #hasExecutable(): boolean {
    return this.#o.pool.size > 0 && this.#candidates().length > 0
  }

  #candidates(): PoolTx[] {
    const head = this.#o.store.head
    const baseFee = head.header.common.isActivatedEIP(1559) ? head.header.calcNextBaseFee() : 0n
    return this.#o.pool.candidates(baseFee)
  }

  async #run(): Promise<void> {
    while (this.#running !== undefined) await this.#running
    if (this.#stopped) return
    const job = this.#sealOnce()
    this.#running = job
    try {
      await job
    } finally {
      this.#running = undefined
    }
  }

  async #sealOnce(): Promise<void> {
    const { store, builder, pool } = this.#o
    const candidates = this.#candidates()
    if (this.#o.blockTimeMs === 0 && candidates.length === 0) return
    const parentTs = store.head.header.timestamp
    const now = BigInt(Math.floor(Date.now() / 1000))
    const timestamp = now > parentTs ? now : parentTs + 1n
    try {
      const { block, included, dropped } = await builder.build(candidates, timestamp)
      this.#o.onBlock(block, included)
      // the pool re-reads its senders at the new head before the next build starts
      await pool.onBlock(dropped.map((d) => d.ptx))
    } catch (err) {
      this.#o.onError(err)
    }
  }
}

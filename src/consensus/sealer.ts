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
 * Builds never overlap: one runs at a time, the next waits for it. A turn (`turn`, the dev
 * methods of src/consensus/devControl.ts) takes the same place in line: while it runs no build
 * does, and it may seal blocks (with or without transactions) and replace the head's state.
 * Timestamps come from a BlockClock: the wall clock, or the dev clock (devClock.ts) that
 * evm_increaseTime and evm_setNextBlockTimestamp move.
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
  /** Block timestamps; default WALL_CLOCK. */
  clock?: BlockClock
}

/** Chooses the timestamps of the blocks this node seals. */
export interface BlockClock {
  /** The next block's timestamp, its parent's being `parentTimestamp`: always after it. */
  next(parentTimestamp: bigint): bigint
  /** A block stamped `timestamp` was sealed. */
  sealed(timestamp: bigint): void
}

/** WALL_CLOCK: now, or one second after the parent while the clock has not passed it. */
export const WALL_CLOCK: BlockClock = {
  next(parentTimestamp) {
    const now = BigInt(Math.floor(Date.now() / 1000))
    return now > parentTimestamp ? now : parentTimestamp + 1n
  },
  sealed() {},
}

/** What a turn (SingleValidatorSealer.turn) may do while no build runs. */
export interface SealerTurn {
  /** Seals a block now with the pool's executable transactions, none is fine; rejects if building fails. */
  seal(): Promise<ChainBlock>
  /** The head's state was replaced (ChainStore.commitStateEdit): the builder and the pool read it again. */
  stateReplaced(): Promise<void>
}

const noop = () => {}

export class SingleValidatorSealer {
  readonly #o: SealerOptions
  readonly #clock: BlockClock
  readonly #turn: SealerTurn
  #timer: NodeJS.Timeout | undefined
  #scheduled = false
  #running: Promise<void> | undefined
  #stopped = false

  constructor(opts: SealerOptions) {
    this.#o = opts
    this.#clock = opts.clock ?? WALL_CLOCK
    this.#turn = {
      seal: async () => (await this.#sealOnce(true)) as ChainBlock,
      stateReplaced: async () => {
        await this.#o.builder.resync()
        // senders' nonces and balances changed without a block: the pool reads them again
        await this.#o.pool.onBlock([])
      },
    }
  }

  /**
   * Runs `job` in line with the builds, none running meanwhile; afterwards, on a chain that seals
   * when transactions arrive, seals what became executable (an edited balance can make it so).
   */
  async turn<T>(job: (turn: SealerTurn) => Promise<T>): Promise<T> {
    try {
      return await this.#exclusive(() => job(this.#turn))
    } finally {
      if (this.#o.blockTimeMs === 0 && this.#hasExecutable()) this.#schedule()
    }
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
    // a stopped sealer refuses; #sealOnce reports its own failures
    await this.#exclusive(() => this.#sealOnce(false)).catch(noop)
  }

  /** Runs `job` once no build or turn is running, and holds the others off until it ends. */
  async #exclusive<T>(job: () => Promise<T>): Promise<T> {
    while (this.#running !== undefined) await this.#running
    if (this.#stopped) throw new Error('block production has stopped')
    const done = job()
    this.#running = done.then(noop, noop)
    try {
      return await done
    } finally {
      this.#running = undefined
    }
  }

  /**
   * Builds and commits one block. Without `force`, a chain that seals when transactions arrive
   * skips an empty block, and a failure goes to onError; with it (evm_mine), the block is sealed
   * empty or not and a failure rejects.
   */
  async #sealOnce(force: boolean): Promise<ChainBlock | undefined> {
    const { store, builder, pool } = this.#o
    const candidates = this.#candidates()
    if (!force && this.#o.blockTimeMs === 0 && candidates.length === 0) return undefined
    const timestamp = this.#clock.next(store.head.header.timestamp)
    try {
      const { block, included, dropped } = await builder.build(candidates, timestamp)
      this.#clock.sealed(block.header.timestamp)
      this.#o.onBlock(block, included)
      // the pool re-reads its senders at the new head before the next build starts
      await pool.onBlock(dropped.map((d) => d.ptx))
      return block
    } catch (err) {
      if (force) throw err
      this.#o.onError(err)
      return undefined
    }
  }
}

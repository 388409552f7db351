/**
 * Speculator: hands a block's transactions to speculation workers (workers/speculate.ts, Piscina)
 * before the main thread executes the block, and answers, per transaction index, what its
 * speculative run gave.
 *
 *   speculate(items) ─ fewer than SPECULATE_MIN_TXS contract transactions? ─▶ undefined (sequential)
 *                    └─ chains (one per sender, nonce order) ─▶ tasks of ~SPECULATE_TASK_TXS, in
 *                       block order ─▶ workers ─▶ SpeculatedBlock.get(i): the run, or undefined
 *
 * Tasks go out in block order, so the first results are back while later ones still run, and the
 * main thread validates and applies while the workers go on. A worker that fails or dies costs
 * its task's transactions their speculation only: they run sequentially. With `workers = 0` the
 * runs happen in this thread (tests: the same code without a build of the workers).
 */
import type { Worker } from 'node:worker_threads'
import type { BlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Piscina } from 'piscina'
import type { GenesisJson } from '../../chain/common.js'
import type { Database } from '../../chain/db.js'
import type { ChainStore } from '../../chain/store.js'
import type { ExecTx } from '../blockExec.js'
import { ExecContext, type ExecWorkerData } from '../pool/context.js'
import { workerFile } from '../pool/index.js'
import { speculateTask } from './speculate.js'
import type { SpecChain, SpeculatedTx, SpeculateResult, SpeculateTask } from './types.js'

/**
 * Contract transactions (calls and creations) a block needs before speculation pays: below it,
 * the hop to the workers and the parent-state reads cost more than the main thread's runTx saves.
 */
export const SPECULATE_MIN_TXS = 8
/** Transactions per worker task: ~10 ms of EVM work, so the first results come back early. */
export const SPECULATE_TASK_TXS = 16
/** Tasks a worker holds at once (run one after another): the next is there when one ends. */
export const SPECULATE_PIPELINE_DEPTH = 2
/** How long close() waits for the worker threads to exit. */
export const SPECULATE_EXIT_WAIT_MS = 10_000

export interface SpeculatorOptions {
  db: Database
  store: ChainStore
  common: Common
  genesis: GenesisJson
  /** Worker threads; 0 = speculate on this thread (tests). */
  workers: number
  /** Per-worker trie-node cache, bytes. */
  cacheBytes: number
  /** V8 old-space limit of each worker, MiB; 0 = Node's default. */
  workerHeapMb: number
}

/** A block's transactions as executeTransactions sees them, and the state they start from. */
export interface SpeculationParams {
  /** State root of the parent block (committed: the workers read it from the database). */
  parentStateRoot: Uint8Array
  /** The block's header before execution (its environment: coinbase, number, base fee, …). */
  header: BlockHeader
  /** The hardfork the block's VM runs. */
  hardfork: string
  items: readonly ExecTx[]
}

/** A transaction the EVM must run (not a candidate for the plain-transfer path). */
function isContractTx(tx: TypedTransaction): boolean {
  return tx.to === undefined || tx.data.length > 0
}

/** Types speculation runs (blob transactions are not on our chains). */
function speculable(tx: TypedTransaction, hardfork: string): boolean {
  return tx.type !== 3 && tx.common.hardfork() === hardfork
}

type CachedTx = TypedTransaction & { cache: { senderPubKey?: Uint8Array } }

interface Slot {
  task: number
  chain: number
  pos: number
}

/** The speculative runs of one block, as they arrive. */
export class SpeculatedBlock {
  readonly #tasks: Promise<SpeculateResult | undefined>[]
  readonly #slots: (Slot | undefined)[]
  /** Transactions sent to the workers. */
  readonly sent: number

  constructor(tasks: Promise<SpeculateResult | undefined>[], slots: (Slot | undefined)[], sent: number) {
    this.#tasks = tasks
    this.#slots = slots
    this.sent = sent
  }

  /** The speculative run of transaction `index`, or undefined (not sent, or its task failed). */
  async get(index: number): Promise<SpeculatedTx | undefined> {
    const slot = this.#slots[index]
    if (slot === undefined) return undefined
    const result = await this.#tasks[slot.task]
    return result?.[slot.chain]?.[slot.pos]
  }
}

export class Speculator {
  readonly workers: number
  readonly #opts: SpeculatorOptions
  readonly #inline: ExecContext | undefined
  #inlineTail: Promise<unknown> = Promise.resolve()
  #pool: Piscina | undefined
  readonly #threads = new Set<Worker>()
  readonly #exits: Promise<void>[] = []
  #closed = false

  constructor(opts: SpeculatorOptions) {
    this.#opts = opts
    this.workers = Math.max(0, opts.workers)
    if (this.workers === 0) this.#inline = new ExecContext(opts.db, opts.common, opts.store)
  }

  /** Starts the worker threads (each loads the EVM: ~1 s of CPU); at the latest on first use. */
  start(): void {
    if (this.#inline !== undefined || this.#pool !== undefined || this.#closed) return
    const o = this.#opts
    const workerData: ExecWorkerData = { dbHandle: o.db.level.handle as unknown as bigint, genesis: o.genesis, cacheBytes: o.cacheBytes }
    const pool = new Piscina({
      filename: workerFile('speculate'),
      minThreads: this.workers,
      maxThreads: this.workers,
      maxQueue: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: SPECULATE_PIPELINE_DEPTH,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData,
      resourceLimits: o.workerHeapMb > 0 ? { maxOldGenerationSizeMb: o.workerHeapMb } : undefined,
    })
    // a worker dying between tasks is replaced by Piscina; its task answers nothing (sequential)
    pool.on('error', () => {})
    pool.on('workerCreate', () => this.#track(pool))
    this.#pool = pool
  }

  /** Sends the block's contract transactions to the workers; undefined when the block is not worth it. */
  speculate(params: SpeculationParams): SpeculatedBlock | undefined {
    if (this.#closed) return undefined
    const { items, hardfork } = params
    let contractTxs = 0
    for (const it of items) if (isContractTx(it.tx) && speculable(it.tx, hardfork)) contractTxs++
    if (contractTxs < SPECULATE_MIN_TXS) return undefined
    this.start()

    // one chain per sender that sends a contract transaction: all its transactions, in order
    const bySender = new Map<string, { chain: SpecChain; indexes: number[]; contract: boolean }>()
    items.forEach((it, i) => {
      if (!speculable(it.tx, hardfork)) return
      let entry = bySender.get(it.senderHex)
      if (entry === undefined) {
        entry = { chain: { txs: [], senderPubKey: (it.tx as CachedTx).cache.senderPubKey }, indexes: [], contract: false }
        bySender.set(it.senderHex, entry)
      }
      entry.chain.txs.push(it.tx.serialize())
      entry.indexes.push(i)
      if (isContractTx(it.tx)) entry.contract = true
    })
    const base = {
      root: params.parentStateRoot,
      head: params.header.number - 1n,
      hardfork,
      header: params.header.serialize(),
    }
    const slots: (Slot | undefined)[] = new Array(items.length).fill(undefined)
    const tasks: Promise<SpeculateResult | undefined>[] = []
    let chains: SpecChain[] = []
    let size = 0
    let sent = 0
    const flush = () => {
      tasks.push(this.#run({ ...base, chains }))
      chains = []
      size = 0
    }
    for (const entry of bySender.values()) {
      if (!entry.contract) continue
      entry.indexes.forEach((index, pos) => {
        slots[index] = { task: tasks.length, chain: chains.length, pos }
      })
      chains.push(entry.chain)
      size += entry.chain.txs.length
      sent += entry.chain.txs.length
      if (size >= SPECULATE_TASK_TXS) flush()
    }
    if (chains.length > 0) flush()
    return new SpeculatedBlock(tasks, slots, sent)
  }

  #run(task: SpeculateTask): Promise<SpeculateResult | undefined> {
    const inline = this.#inline
    let run: Promise<SpeculateResult>
    if (inline !== undefined) {
      run = this.#inlineTail.then(() => speculateTask(inline, task))
      this.#inlineTail = run.catch(() => undefined)
    } else {
      run = (this.#pool as Piscina).run(task) as Promise<SpeculateResult>
    }
    return run.catch(() => undefined)
  }

  #track(pool: Piscina): void {
    for (const t of pool.threads) {
      if (this.#threads.has(t)) continue
      this.#threads.add(t)
      this.#exits.push(new Promise<void>((done) => t.once('exit', () => done())))
    }
  }

  /** Stops the workers and waits until every thread ever started has exited (they read the database). */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    const pool = this.#pool
    if (pool === undefined) return
    this.#track(pool)
    await pool.destroy().catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const giveUp = new Promise<void>((r) => {
      timer = setTimeout(r, SPECULATE_EXIT_WAIT_MS)
    })
    await Promise.race([Promise.allSettled(this.#exits), giveUp])
    clearTimeout(timer)
  }
}

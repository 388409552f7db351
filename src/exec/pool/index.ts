/**
 * ExecPool: EVM work off the main thread — the only way the node's main thread (HTTP, IBFT) gets
 * a message executed for a client. Two Piscina pools of worker threads, each worker reading state
 * itself from the node's RocksDB (attached by handle, see sharedDb.ts):
 *
 *                      ┌─ calls: eth_call, eth_estimateGas, ─▶ [queue ≤ call_queue] ─▶ `workers` threads (workers/execute.js)
 *                      │         eth_createAccessList, eth_simulateV1
 *   main thread ──task─┤
 *                      └─ traces: debug_trace* ───────────────▶ [queue ≤ trace_queue] ─▶ `trace_workers` threads (workers/trace.js)
 *
 * Calls and traces have their own threads and queues (lane.ts: first come, first served), so a
 * burst of 30M-gas traces cannot starve eth_call. What always holds:
 *  - a full queue refuses the request at once (-32005 PoolBusyError), nothing queues unbounded;
 *  - a task not taken by a worker within `queue_timeout` of its submission (queued behind other
 *    requests, here or in a worker's inbox) is refused unrun: -32005 QueueTimeoutError, "busy: …",
 *    never a timeout of its own — the time others' work took is not charged to it;
 *  - every task a worker takes has a time budget, counted from that moment: eth_call's evm
 *    timeout (eth_estimateGas: ESTIMATE_TIMEOUT_FACTOR times it), a trace's per-transaction
 *    `timeout` times its transactions. The EVM checks it itself (deadline.ts) and stops, so the
 *    worker survives, answering geth's `execution aborted (timeout = 5s)`; a task still running
 *    ABORT_GRACE_MS later (stuck outside the opcode loop) is aborted and its worker terminated and
 *    replaced — a pure-compute loop cannot hold a thread;
 *  - a worker that dies (crash, out of memory under `worker_heap_mb`) is replaced and its request
 *    answers -32603; the node keeps serving;
 *  - close() waits until every worker thread ever started has exited, so the main thread never
 *    closes the database under a reader.
 *
 * Results and failures cross as plain data (tasks.ts): simulated blocks are formatted in the
 * worker, failures carry their kind (and eth_simulateV1's geth code) and become the same error
 * classes here. The in-process pool (ExecPool.inProcess: tasks on the calling thread, no
 * isolation, no deadline that stops pure compute) is for tests and kernel benchmarks only; the
 * node always runs at least one call worker.
 */
import { Worker } from 'node:worker_threads'
import type { Common } from '@ethereumjs/common'
import { Piscina } from 'piscina'
import type { GenesisJson } from '../../chain/common.js'
import type { Database } from '../../db/db.js'
import type { ChainStore } from '../../chain/store.js'
import { callFingerprint, callKey, callResults } from './callCache.js'
import type { AccessListResult } from '../../evm/accessList.js'
import { ExecutionError, ExecutionRevertedError } from '../../evm/errors.js'
import { reviveError } from '../../util/errors.js'
import { ExecContext, type ExecWorkerData } from './context.js'
import { CALL_PIPELINE_DEPTH } from './constants.js'
import { NodeShuttingDownError, PoolBusyError, QueueTimeoutError, TraceLimitError } from './errors.js'
import { type ActivityReplay, BUSY } from '../../block/explorerBackfill.js'
import { Lane } from './lane.js'
import { workerEntry } from './workerFiles.js'
import { RingLane } from './ringLane.js'
import { pipelineBalancer } from './balancer.js'
import type { TxActivity } from '../../chain/explorerIndex.js'
import {
  type AccessListTask,
  type CallLaneTask,
  type CallTask,
  type ExecTask,
  type ExplorerActivityTask,
  runTask,
  type SimulatedPresenter,
  type SimulateTask,
  type TaskFailure,
  type TestingBlockTask,
  TASK_ERROR_CLASSES,
  type TaskResult,
  type TraceParts,
  type TraceTask,
} from './tasks.js'

export { CALL_PIPELINE_DEPTH, TRACE_THREAD_NICE } from './constants.js'
export { workerEntry, workerFile } from './workerFiles.js'
export {
  type ExecPoolError,
  NodeShuttingDownError,
  PoolBusyError,
  QueueTimeoutError,
  TraceLimitError,
  WorkerCrashedError,
} from './errors.js'
export type {
  AccessListTask,
  CallOverrides,
  CallTask,
  SimulatedPresenter,
  SimulateTask,
  TraceParts,
  TraceTask,
} from './tasks.js'
// What callers (src/rpc) need of the execution modules: the shapes tasks are built from and answers
// read as, the decoders of task options, and the errors answers come back as. src/rpc imports
// them from here and never a module behind the thread boundary (biome.json, noRestrictedImports).
export type { AccessListEntry, AccessListResult } from '../../evm/accessList.js'
export type { CallLimits, CallRequest } from '../../evm/call.js'
export type { CallAuthorization } from '../../evm/message.js'
export * from '../../evm/errors.js'
export { SimulationError } from '../../simulate/errors.js'
export type { SimulatedBlock, SimulatedCall } from '../../simulate/index.js'
export {
  type AccountOverride as SimAccountOverride,
  type BlockOverrides,
  emptyBlockOverrides,
  type SimBlock,
  type SimCall,
  type SimulateRequest,
  type StateOverrides,
  type Withdrawal,
} from '../../simulate/types.js'
export {
  decodeTraceOptions,
  defaultTraceOptions,
  TraceConfigError,
  type TraceOptions,
  TraceOptionsError,
} from '../../trace/options.js'
export {
  MAX_TESTING_EXTRA_BYTES,
  type TestingBlockRequest,
  TestingBuildError,
} from '../simulate/buildTestingBlock.js'

/**
 * eth_estimateGas runs the call many times (geth's binary search) and geth bounds it by no timer
 * at all; here it gets this many times the call timeout, so it stays bounded on a public node.
 */
export const ESTIMATE_TIMEOUT_FACTOR = 3
/** How long past its deadline a task may run before its worker is terminated (the EVM should have stopped it). */
export const ABORT_GRACE_MS = 1000
/** The methods the call lane serves, as a refusal names them (-32005 when its queue is full). */
export const CALL_LANE_METHODS = 'eth_call/eth_estimateGas/eth_createAccessList/eth_simulateV1'
/** Time a trace gets beyond its transactions' timeouts, to replay the block's earlier transactions. */
export const TRACE_REPLAY_MS = 5000
/**
 * Time the explorer index backfill's replay of one stored block may take on a trace worker: far
 * above what importing the block took (it ran within a block time), so only a stuck worker hits it.
 */
export const EXPLORER_REPLAY_MS = 60_000
/**
 * Default of `exec.queue_timeout`: how long a request may wait for a worker before it is refused
 * busy. Under the evm timeout (5 s), so a client waits at most the two together, 7 s — inside
 * viem's default 10 s request timeout — and hears "busy" rather than a timeout it did not cause.
 */
export const QUEUE_TIMEOUT_MS = 2000
/**
 * How much longer than the queue timeout a request may wait while its lane's workers are still
 * loading (a node just started: module loading took over 2 s on a loaded 2-core CI box, and
 * refusing a request busy for that would be refusing it for no one's work).
 */
export const WORKER_BOOT_ALLOWANCE_MS = 30_000
/** How long close() waits for worker threads to exit before giving up on them. */
export const WORKER_EXIT_WAIT_MS = 10_000

export interface ExecPoolOptions {
  db: Database
  store: ChainStore
  common: Common
  genesis: GenesisJson
  /** Call workers; 0 = run everything in process (tests and benchmarks only: ExecPool.inProcess). */
  workers: number
  /** Calls allowed to wait for a worker. */
  callQueue: number
  /** Trace workers (concurrent traces). */
  traceWorkers: number
  /** Traces allowed to wait for a worker. */
  traceQueue: number
  /** Longest a call or trace waits for a worker before it is refused (-32005), ms; QUEUE_TIMEOUT_MS if absent. */
  queueTimeoutMs?: number
  /** V8 old-space limit of each worker, MiB; 0 = Node's default. */
  workerHeapMb: number
  /** Per-worker trie-node cache, bytes. */
  cacheBytes: number
  /**
   * Formats eth_simulateV1's blocks when tasks run in process (src/rpc/format/simulated.ts's
   * formatSimulatedBlocks); the call workers apply that one themselves (workers/execute.ts).
   */
  presentSimulated?: SimulatedPresenter
}

/** startBy of a task before a lane queues it (in process it never waits). */
const UNQUEUED = Number.POSITIVE_INFINITY

function failureError(f: TaskFailure): Error {
  switch (f.kind) {
    case 'revert':
      return new ExecutionRevertedError(f.data)
    case 'tooLarge':
      return new TraceLimitError(f.message)
    case 'error':
      return reviveError(f.error, TASK_ERROR_CLASSES)
    case 'internal':
      // an unexpected error, answered -32603 without its text (src/rpc/errors.ts)
      return new Error(f.message)
    case 'notStarted':
      // the lane answers these itself (QueueTimeoutError); a task run in process is never refused
      return new Error('a task was refused outside a lane')
    default:
      return new ExecutionError(f.message)
  }
}

export class ExecPool {
  readonly #opts: ExecPoolOptions
  #calls: RingLane | undefined
  #traces: Lane | undefined
  readonly #inline: ExecContext | undefined
  readonly #threads = new Set<Worker>()
  readonly #exits: Promise<void>[] = []
  #closed = false

  constructor(opts: ExecPoolOptions) {
    this.#opts = opts
    if (opts.workers <= 0) this.#inline = new ExecContext(opts.db, opts.common, opts.store)
  }

  /**
   * Starts the worker threads (at the latest on the first task). The node calls it once it
   * serves, so the workers' module loading does not slow its start.
   */
  start(): void {
    if (this.#inline !== undefined || this.#calls !== undefined || this.#closed) return
    const opts = this.#opts
    const workerData: ExecWorkerData = {
      dbHandle: opts.db.level.handle as unknown as bigint,
      genesis: opts.genesis,
      cacheBytes: opts.cacheBytes,
    }
    const resourceLimits = opts.workerHeapMb > 0 ? { maxOldGenerationSizeMb: opts.workerHeapMb } : undefined
    const queueTimeoutMs = opts.queueTimeoutMs ?? QUEUE_TIMEOUT_MS
    const calls = workerEntry('execute')
    this.#calls = new RingLane({
      spawn: (ring) =>
        new Worker(calls.filename, {
          workerData: { ...workerData, ibexEntry: calls.ibexEntry, ring },
          transferList: [ring.port],
          resourceLimits,
        }),
      what: CALL_LANE_METHODS,
      workers: opts.workers,
      depth: CALL_PIPELINE_DEPTH,
      maxQueue: opts.callQueue,
      graceMs: ABORT_GRACE_MS,
      queueTimeoutMs,
      bootAllowanceMs: WORKER_BOOT_ALLOWANCE_MS,
    })
    const traces = workerEntry('trace')
    const traceThreads = Math.max(1, opts.traceWorkers)
    const pool = new Piscina({
      filename: traces.filename,
      minThreads: traceThreads,
      maxThreads: traceThreads,
      // the Lane queues (first come, first served, bounded): Piscina only ever holds running tasks
      maxQueue: Number.POSITIVE_INFINITY,
      concurrentTasksPerWorker: 1,
      // Piscina's own balancer gives a task that carries an abort signal only to an idle worker
      // (every message does): see pipelineBalancer
      loadBalancer: pipelineBalancer(1),
      // its per-task run/wait histograms: nobody reads them, and they cost the main thread per task
      recordTiming: false,
      idleTimeout: Number.POSITIVE_INFINITY,
      workerData: { ...workerData, ibexEntry: traces.ibexEntry },
      resourceLimits,
    })
    // a worker dying between tasks is replaced by Piscina; nothing to answer
    pool.on('error', () => {})
    pool.on('workerCreate', () => this.#track(pool))
    this.#traces = new Lane(
      pool,
      'debug_trace',
      traceThreads,
      opts.traceQueue,
      ABORT_GRACE_MS,
      queueTimeoutMs,
      WORKER_BOOT_ALLOWANCE_MS,
    )
  }

  /**
   * A pool that runs every task on the calling thread (workers = 0): for tests and kernel
   * benchmarks, never the node. Without `presentSimulated`, eth_simulateV1 answers -32603.
   */
  static inProcess(db: Database, store: ChainStore, common: Common, presentSimulated?: SimulatedPresenter): ExecPool {
    return new ExecPool({
      db,
      store,
      common,
      genesis: {},
      workers: 0,
      callQueue: 0,
      traceWorkers: 0,
      traceQueue: 0,
      workerHeapMb: 0,
      cacheBytes: 0,
      presentSimulated,
    })
  }

  /** True when tasks run on worker threads. */
  get offloaded(): boolean {
    return this.#inline === undefined
  }

  /**
   * eth_call / eth_estimateGas: the call's result (bytes or gas), or its ExecutionError. An
   * eth_call already answered at the same block is answered from this thread's result cache
   * (callCache.ts), without a hop to a worker.
   */
  async call(unscheduled: CallJob): Promise<unknown> {
    const { limits } = unscheduled
    // the key is built only for a call seen before (callCache.ts): a one-off call costs a fingerprint
    const fingerprint =
      unscheduled.kind === 'call' && unscheduled.overrides === undefined
        ? callFingerprint(unscheduled.blockHash, unscheduled.request, limits.gasCap)
        : undefined
    const key =
      fingerprint !== undefined && callResults.seen(fingerprint)
        ? callKey(unscheduled.blockHash, unscheduled.request, limits.gasCap)
        : undefined
    if (key !== undefined) {
      const known = callResults.get(key)
      if (known !== undefined) {
        if (known.reverted) throw new ExecutionRevertedError(known.data)
        return known.data
      }
    }
    const budgetMs = unscheduled.kind === 'estimateGas' ? limits.timeoutMs * ESTIMATE_TIMEOUT_FACTOR : limits.timeoutMs
    // every field named, no spread: spreading the job cost ~1.3 µs a call (node 20)
    const task: CallTask = {
      kind: unscheduled.kind,
      head: unscheduled.head,
      blockHash: unscheduled.blockHash,
      request: unscheduled.request,
      overrides: unscheduled.overrides,
      limits: { gasCap: limits.gasCap, timeoutMs: budgetMs },
      budgetMs,
      startBy: UNQUEUED,
      started: undefined,
    }
    if (fingerprint === undefined) return this.#run('calls', task)
    try {
      const data = (await this.#run('calls', task)) as Uint8Array
      if (key === undefined) callResults.see(fingerprint)
      else callResults.set(key, { reverted: false, data })
      return data
    } catch (err) {
      if (err instanceof ExecutionRevertedError) {
        if (key === undefined) callResults.see(fingerprint)
        else callResults.set(key, { reverted: true, data: err.data })
      }
      throw err
    }
  }

  /** eth_createAccessList on a call worker, within the call timeout (the EVM stops at the deadline). */
  async createAccessList(unscheduled: AccessListJob): Promise<AccessListResult> {
    const task: AccessListTask = { ...unscheduled, budgetMs: unscheduled.limits.timeoutMs, startBy: UNQUEUED }
    return (await this.#run('calls', task)) as AccessListResult
  }

  /**
   * eth_simulateV1 on a call worker, within the call timeout: the answer's JSON-ready blocks
   * (formatted by the worker), or a SimulationError with geth's code.
   */
  async simulate(unscheduled: SimulateJob): Promise<unknown[]> {
    const task: SimulateTask = { ...unscheduled, budgetMs: unscheduled.timeoutMs, startBy: UNQUEUED }
    return (await this.#run('calls', task)) as unknown[]
  }

  /** testing_buildBlockV1 on a call worker, within the call timeout: geth's payload envelope, JSON-ready. */
  async buildTestingBlock(unscheduled: TestingBlockJob): Promise<unknown> {
    const task: TestingBlockTask = { ...unscheduled, budgetMs: unscheduled.timeoutMs, startBy: UNQUEUED }
    return this.#run('calls', task)
  }

  /**
   * A debug_trace* task: the trace's JSON as ASCII byte chunks (src/trace/sink.ts decodeParts joins
   * them into the text). `txCount` (the block's) sizes the task's time budget.
   */
  async trace(unscheduled: TraceJob, txCount: number): Promise<TraceParts> {
    const budgetMs = unscheduled.options.timeoutMs * Math.max(1, txCount) + TRACE_REPLAY_MS
    const task = { ...unscheduled, budgetMs, startBy: UNQUEUED } as TraceTask
    return (await this.#run('traces', task)) as TraceParts
  }

  /**
   * The explorer index backfill's replay of the stored block `blockHash` on a trace worker
   * (src/block/explorerBackfill.ts): each transaction's activity, as the live commit records it.
   */
  async explorerActivity(blockHash: Uint8Array, head: bigint): Promise<TxActivity[]> {
    const task: ExplorerActivityTask = {
      kind: 'explorerActivity',
      blockHash,
      head,
      budgetMs: EXPLORER_REPLAY_MS,
      startBy: UNQUEUED,
    }
    return (await this.#run('traces', task)) as TxActivity[]
  }

  /** The explorer backfill's replays as explorerActivity tasks; BUSY while the trace lane cannot take one. */
  explorerReplay(store: ChainStore): ActivityReplay {
    return async (block) => {
      try {
        return await this.explorerActivity(block.hash, store.head.header.number)
      } catch (err) {
        if (err instanceof PoolBusyError || err instanceof QueueTimeoutError) return BUSY
        throw err
      }
    }
  }

  async #run(kind: 'calls' | 'traces', task: ExecTask): Promise<unknown> {
    if (this.#closed) throw new NodeShuttingDownError()
    this.start()
    let result: TaskResult<unknown>
    if (this.#inline !== undefined) {
      result = await runTask(this.#inline, task, this.#opts.presentSimulated)
    } else if (kind === 'calls') {
      result = await (this.#calls as RingLane).submit(task as CallLaneTask)
    } else {
      const lane = this.#traces as Lane
      try {
        result = await lane.submit(task)
      } finally {
        this.#track(lane.pool)
      }
    }
    if (!result.ok) throw failureError(result.failure)
    return result.value
  }

  /** Remembers every thread a pool starts, so close() can wait for its exit. */
  #track(pool: Piscina): void {
    for (const t of pool.threads) {
      if (this.#threads.has(t)) continue
      this.#threads.add(t)
      this.#exits.push(
        new Promise<void>((done) => {
          t.once('exit', () => {
            this.#threads.delete(t)
            done()
          })
        }),
      )
    }
  }

  /** Counters for logs and benchmarks. */
  stats(): { calls: PoolStats | undefined; traces: PoolStats | undefined } {
    const of = (l: Lane | RingLane | undefined): PoolStats | undefined =>
      l === undefined
        ? undefined
        : {
            threads: l instanceof Lane ? l.pool.threads.length : l.threads.length,
            running: l.running,
            queued: l.waiting,
            completed: l.completed,
          }
    return { calls: of(this.#calls), traces: of(this.#traces) }
  }

  /** Stops every worker and waits until all threads ever started have exited. */
  async close(): Promise<void> {
    if (this.#closed) return
    this.#closed = true
    this.#calls?.drop(new NodeShuttingDownError())
    if (this.#traces !== undefined) {
      this.#traces.drop(new NodeShuttingDownError())
      this.#track(this.#traces.pool)
    }
    await this.#traces?.pool.destroy().catch(() => undefined)
    let timer: NodeJS.Timeout | undefined
    const giveUp = new Promise<void>((r) => {
      timer = setTimeout(r, WORKER_EXIT_WAIT_MS)
    })
    await Promise.race([Promise.allSettled([...this.#exits, this.#calls?.destroy()]), giveUp])
    clearTimeout(timer)
  }
}

/** A task as a caller builds it: the pool sets its time budget, the lane its start-by time. */
export type Unscheduled<T> = T extends unknown ? Omit<T, 'budgetMs' | 'startBy' | 'started'> : never
/** An eth_call / eth_estimateGas task before submission. */
export type CallJob = Unscheduled<CallTask>
/** An eth_createAccessList task before submission. */
export type AccessListJob = Unscheduled<AccessListTask>
/** An eth_simulateV1 task before submission. */
export type SimulateJob = Unscheduled<SimulateTask>
/** A testing_buildBlockV1 task before submission. */
export type TestingBlockJob = Unscheduled<TestingBlockTask>
/** A debug_trace* task before submission. */
export type TraceJob = Unscheduled<TraceTask>

export interface PoolStats {
  threads: number
  running: number
  queued: number
  completed: number
}

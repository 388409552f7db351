/**
 * The call lane: eth_call and its kin on `workers` threads, each fed through its own ring
 * (ring.ts) of `depth` slots, behind a bounded first-come-first-served queue. What it keeps of
 * lane.ts (the trace lane, on Piscina) is the contract, not the transport:
 *
 *   submit ─ a slot free? ─yes─▶ the worker with the fewest tasks in hand ─▶ answer ─▶ next waiting
 *          └─ no ─▶ queue full? ─yes─▶ PoolBusyError (-32005)
 *                   └─ no ─▶ wait here, in arrival order, until a slot frees or `queueTimeoutMs`
 *
 *  - a task no worker has taken `queueTimeoutMs` after its submission (waiting here or in a ring)
 *    is refused with QueueTimeoutError and never runs (startClaim.ts decides the race);
 *  - a task a worker took runs its whole `budgetMs` (the EVM stops itself then); one still running
 *    `graceMs` later gets its worker terminated (a watchdog looks every WATCHDOG_MS), and answers
 *    the timeout; the tasks behind it in that ring are refused busy, those answered stay answered;
 *  - a worker that dies is replaced; the task it was running answers WorkerCrashedError;
 *  - while no worker has loaded, a task may wait `bootAllowanceMs` more before it is refused.
 *
 * Each worker's tasks run one after another in ring order, so answers come back in that order:
 * the main thread keeps the tasks in hand per worker as a FIFO and reads answers up to ANSWERED.
 */
import { MessageChannel, type MessagePort, receiveMessageOnPort, type Worker } from 'node:worker_threads'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, QueueTimeoutError, WorkerCrashedError } from './errors.js'
import {
  ANSWERED,
  answerForm,
  FORM_PORT,
  markTaskOnPort,
  READY,
  readAnswer,
  RingLayout,
  type RingShared,
  SLEEPING,
  SUBMITTED,
  writeTask,
} from './ring.js'
import { finished, refuseStart, resetStartFlag, running } from './startClaim.js'
import { type CallLaneTask, type TaskResult, timeoutMessage } from './tasks.js'

/** Atomics.waitAsync (ES2024, in Node since 16), typed here: the project's lib is ES2023. */
const waitAsync = (
  Atomics as unknown as {
    waitAsync(
      a: Int32Array,
      i: number,
      v: number,
    ): { async: false; value: string } | { async: true; value: Promise<string> }
  }
).waitAsync.bind(Atomics)

/** How often the watchdog looks for a task running past its budget and grace, ms. */
export const WATCHDOG_MS = 100

/**
 * How long after a worker died before it loaded (a module or database error at start) its
 * replacement starts, ms: such a failure repeats, and an immediate respawn would spin a core.
 */
export const RESPAWN_DELAY_MS = 1000

/** Starts a call worker on its ring: the lane transfers `ring.port` (in workerData.ring). */
export type RingSpawn = (ring: RingShared) => Worker

export interface RingLaneOptions {
  spawn: RingSpawn
  /** The methods the lane serves, for errors (`eth_call/eth_estimateGas`). */
  what: string
  workers: number
  /** Slots of each worker's ring: the tasks a worker holds at once. */
  depth: number
  maxQueue: number
  graceMs: number
  queueTimeoutMs: number
  bootAllowanceMs: number
}

interface Pending {
  task: CallLaneTask & { started?: Int32Array }
  resolve: (r: TaskResult<unknown>) => void
  reject: (err: unknown) => void
  /** Fires at task.startBy: refuses the task if no worker has taken it. */
  timer: NodeJS.Timeout | undefined
  /** In a ring (its start flag set), not waiting here. */
  placed: boolean
}

/** One call worker and its ring, as the main thread sees them. */
class RingWorker {
  readonly thread: Worker
  readonly ring: RingLayout
  readonly port: MessagePort
  /** Tasks written and not yet answered, in ring order. */
  readonly inHand: Pending[] = []
  written = 0
  read = 0
  waiting = false
  dead = false
  /** Terminated by the watchdog: its running task answers the timeout. */
  overran = false
  readonly exited: Promise<void>

  constructor(spawn: RingSpawn, depth: number) {
    this.ring = RingLayout.create(depth)
    const { port1, port2 } = new MessageChannel()
    this.port = port1
    this.thread = spawn({ sab: this.ring.sab, depth, port: port2 })
    this.thread.unref()
    this.thread.on('error', () => {})
    this.exited = new Promise((done) => this.thread.once('exit', () => done()))
  }

  get ready(): boolean {
    return Atomics.load(this.ring.control, READY) === 1
  }
}

export class RingLane {
  readonly what: string
  readonly depth: number
  readonly maxQueue: number
  readonly graceMs: number
  readonly queueTimeoutMs: number
  readonly bootAllowanceMs: number
  readonly #spawn: RingSpawn
  readonly #workers: RingWorker[] = []
  readonly #waiting: Pending[] = []
  readonly #exits: Promise<void>[] = []
  readonly #watchdog: NodeJS.Timeout
  #warm: boolean
  #running = 0
  #completed = 0
  #closing: Error | undefined

  constructor(opts: RingLaneOptions) {
    this.what = opts.what
    this.depth = Math.max(1, opts.depth)
    this.maxQueue = opts.maxQueue
    this.graceMs = opts.graceMs
    this.queueTimeoutMs = opts.queueTimeoutMs
    this.bootAllowanceMs = opts.bootAllowanceMs
    this.#warm = opts.bootAllowanceMs === 0
    this.#spawn = opts.spawn
    for (let i = 0; i < Math.max(1, opts.workers); i++) this.#add()
    this.#watchdog = setInterval(() => this.#watch(), WATCHDOG_MS).unref()
  }

  /** True once a worker has loaded (it marked its ring ready, or a task completed). */
  get warm(): boolean {
    if (!this.#warm && (this.#completed > 0 || this.loaded)) this.#warm = true
    return this.#warm
  }

  /** True while some worker has loaded and serves its ring. */
  get loaded(): boolean {
    return this.#workers.some((w) => w.ready)
  }

  get running(): number {
    return this.#running
  }

  get waiting(): number {
    return this.#waiting.length
  }

  get completed(): number {
    return this.#completed
  }

  /** The live worker threads. */
  get threads(): Worker[] {
    return this.#workers.map((w) => w.thread)
  }

  /**
   * Runs `task` now or after those that came first. Rejects at once when the queue is full, with
   * QueueTimeoutError when no worker takes it within queueTimeoutMs. The lane owns `task` from
   * here on and sets its startBy and start flag: the caller builds one for each submission (a copy
   * here cost ~1.3 µs a call, an object spread of the task's fields).
   */
  submit(task: CallLaneTask): Promise<TaskResult<unknown>> {
    if (this.#closing !== undefined) return Promise.reject(this.#closing)
    const free = this.#workers.length * this.depth - this.#running
    if (free <= 0 && this.#waiting.length >= this.maxQueue) {
      return Promise.reject(new PoolBusyError(this.what, this.maxQueue))
    }
    const waitMs = this.queueTimeoutMs + (this.warm ? 0 : this.bootAllowanceMs)
    task.startBy = Date.now() + waitMs
    return new Promise((resolve, reject) => {
      const p: Pending = { task, resolve, reject, timer: undefined, placed: false }
      p.timer = setTimeout(() => this.#expire(p), waitMs)
      const w = free > 0 ? this.#roomiest() : undefined
      if (w !== undefined) this.#place(w, p)
      else this.#waiting.push(p)
    })
  }

  /** Rejects everything waiting, and what is answered from now on, with `reason` (the pool closes). */
  drop(reason: Error): void {
    this.#closing = reason
    for (const p of this.#waiting.splice(0)) {
      clearTimeout(p.timer)
      p.reject(reason)
    }
  }

  /** Terminates every worker; resolves once all threads this lane started have exited. */
  async destroy(): Promise<void> {
    this.#closing ??= new Error('the call lane is closed')
    clearInterval(this.#watchdog)
    await Promise.allSettled(this.#workers.map((w) => w.thread.terminate()))
    await Promise.allSettled(this.#exits)
  }

  #add(): RingWorker {
    const w = new RingWorker(this.#spawn, this.depth)
    this.#workers.push(w)
    this.#exits.push(w.exited)
    w.thread.once('exit', () => this.#died(w))
    return w
  }

  /** The live worker with the fewest tasks in hand and a free slot. */
  #roomiest(): RingWorker | undefined {
    let best: RingWorker | undefined
    for (const w of this.#workers) {
      if (w.dead || w.inHand.length >= this.depth) continue
      if (best === undefined || w.inHand.length < best.inHand.length) best = w
    }
    return best
  }

  #place(w: RingWorker, p: Pending): void {
    const slot = w.written % this.depth
    const flag = w.ring.flags[slot] as Int32Array
    resetStartFlag(flag)
    if (!writeTask(w.ring, slot, p.task)) {
      // the worker reads its own view of the flag; a clone of this one would be a second buffer
      w.port.postMessage({ ...p.task, started: undefined })
      markTaskOnPort(w.ring, slot)
    }
    p.task.started = flag
    p.placed = true
    if (w.inHand.length === 0) w.thread.ref()
    w.inHand.push(p)
    this.#running++
    w.written++
    Atomics.store(w.ring.control, SUBMITTED, w.written | 0)
    if (Atomics.load(w.ring.control, SLEEPING) === 1) Atomics.notify(w.ring.control, SUBMITTED)
    this.#listen(w)
  }

  /** Waits (asynchronously) for the worker's next answers. */
  #listen(w: RingWorker): void {
    if (w.waiting || w.dead) return
    w.waiting = true
    const wait = waitAsync(w.ring.control, ANSWERED, w.read | 0)
    const then = () => {
      w.waiting = false
      this.#collect(w)
    }
    if (wait.async) void wait.value.then(then)
    else queueMicrotask(then)
  }

  /** Answers the tasks the worker has answered, hands it waiting ones, and listens on if it holds more. */
  #collect(w: RingWorker): void {
    if (w.dead) return
    this.#readAnswers(w)
    this.#next()
    if (w.inHand.length > 0) this.#listen(w)
    else w.thread.unref()
  }

  #readAnswers(w: RingWorker): void {
    const answered = Atomics.load(w.ring.control, ANSWERED)
    while ((w.read | 0) !== answered && w.inHand.length > 0) {
      const slot = w.read % this.depth
      const p = w.inHand.shift() as Pending
      let result: TaskResult<unknown> | undefined
      if (answerForm(w.ring, slot) === FORM_PORT) {
        result = receiveMessageOnPort(w.port)?.message as TaskResult<unknown> | undefined
      } else {
        result = readAnswer(w.ring, slot)
      }
      w.read++
      this.#settled(p)
      if (result === undefined) p.reject(new WorkerCrashedError(new Error('an answer went missing')))
      else if (!result.ok && result.failure.kind === 'notStarted') {
        p.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
      } else p.resolve(result)
    }
  }

  #settled(p: Pending): void {
    clearTimeout(p.timer)
    this.#running--
    this.#completed++
  }

  #next(): void {
    while (this.#waiting.length > 0) {
      const w = this.#roomiest()
      if (w === undefined) return
      this.#place(w, this.#waiting.shift() as Pending)
    }
  }

  /** The task's start-by time came: refused, unless a worker has taken it already. */
  #expire(p: Pending): void {
    if (!p.placed) {
      const i = this.#waiting.indexOf(p)
      if (i >= 0) this.#waiting.splice(i, 1)
      p.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
    } else if (refuseStart(p.task.started as Int32Array)) {
      // it keeps its slot until the worker reaches it and skips it
      p.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
    }
  }

  /** Terminates a worker whose running task is past its start-by time, budget and grace. */
  #watch(): void {
    const now = Date.now()
    for (const w of this.#workers) {
      const p = w.inHand[0]
      if (w.dead || w.overran || p === undefined) continue
      if (running(p.task.started as Int32Array) && now > p.task.startBy + p.task.budgetMs + this.graceMs) {
        w.overran = true
        void w.thread.terminate()
      }
    }
  }

  /** A worker exited: what it answered stands, the rest fail by how far they got; a new worker takes its place. */
  #died(w: RingWorker): void {
    this.#readAnswers(w)
    w.dead = true
    for (const p of w.inHand.splice(0)) {
      this.#settled(p)
      p.reject(this.#failure(p, w.overran))
    }
    const i = this.#workers.indexOf(w)
    if (i >= 0) this.#workers.splice(i, 1)
    // releases this thread's own Atomics.waitAsync on the dead ring
    Atomics.notify(w.ring.control, ANSWERED)
    w.port.close()
    if (this.#closing !== undefined) return
    if (w.ready) this.#replace()
    else setTimeout(() => this.#replace(), RESPAWN_DELAY_MS).unref()
  }

  #replace(): void {
    if (this.#closing !== undefined) return
    this.#add()
    this.#next()
  }

  /** What a task in hand of a dead worker answers. */
  #failure(p: Pending, overran: boolean): Error {
    if (this.#closing !== undefined) return this.#closing
    const flag = p.task.started as Int32Array
    if (refuseStart(flag)) return new QueueTimeoutError(this.what, this.queueTimeoutMs)
    if (finished(flag)) return new WorkerCrashedError(new Error('its worker exited before the answer was read'))
    if (overran) return new ExecutionError(timeoutMessage(p.task))
    return new WorkerCrashedError(new Error('its worker exited while running it'))
  }
}

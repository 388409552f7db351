/**
 * A Lane: one kind of task (calls, or traces) on its own Piscina pool, behind its own bounded
 * first-come-first-served queue.
 *
 *   submit ─ a slot free? ─yes─▶ Piscina (at most `threads` tasks in it) ─▶ answer ─▶ next waiting
 *          └─ no ─▶ queue full? ─yes─▶ PoolBusyError (-32005)
 *                   └─ no ─▶ wait here, in arrival order, until a slot frees or `queueTimeoutMs`
 *
 * Piscina queues tasks too, but not in arrival order once they carry an abort signal (a task that
 * finds no free worker goes to the tail, or with `stricterFIFO` the newest goes to the head), and
 * it does not count them against `maxQueue`; so nothing waits in Piscina, only here.
 *
 * `threads` counts slots: worker threads × the tasks each worker holds at once (its pipeline
 * depth; ExecPool sets it), so a task in Piscina may still wait in its worker's inbox. With
 * `batch` above 1 the tasks submitted in one turn of the event loop are handed over together, once
 * the turn's I/O callbacks have run (setImmediate): up to `batch` of them (and no more than the
 * free slots) as one message — one post, one wake of the worker, one answer back, where the hop
 * was most of a fast call's cost. What always holds: at most `threads` tasks are inside Piscina;
 * at most `maxQueue` wait here for a slot; a task a worker
 * has not taken `queueTimeoutMs` after its submission — waiting here or in a worker's inbox — is
 * refused with QueueTimeoutError (-32005) and never runs (startClaim.ts decides the race with the
 * worker); a task a worker took runs its whole `budgetMs`, counted from that moment, and is
 * aborted, its worker terminated and replaced, only when it runs past that plus `graceMs`. The
 * tasks of an aborted message answer by their start flag: the one running then times out, those
 * not taken are refused busy, those finished (their answers lost with the worker) are
 * WorkerCrashedError.
 *
 * A lane whose workers are still loading (a node just started, on a loaded box that can take
 * seconds) is cold: a task submitted then waits for the first worker at most `bootAllowanceMs`
 * more than the queue timeout, since the wait is not others' work. The lane is warm once a task
 * has completed or Piscina reports a ready idle worker.
 */
import type { Piscina } from 'piscina'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, QueueTimeoutError, WorkerCrashedError } from './errors.js'
import { finished, newStartFlag, refuseStart } from './startClaim.js'
import { type ExecTask, type TaskResult, timeoutMessage } from './tasks.js'

/** A submitted task until it is answered: waiting here, or handed to Piscina (`inPool`). */
interface Submitted {
  task: ExecTask & { started: Int32Array }
  resolve: (r: TaskResult<unknown>) => void
  reject: (err: unknown) => void
  /** Fires at task.startBy: refuses the task if no worker has taken it. */
  timer: NodeJS.Timeout | undefined
  inPool: boolean
}

/**
 * A message's time limit, in the EventEmitter form of abort signal Piscina accepts: one timer,
 * cleared when the message settles. An AbortSignal.timeout (an EventTarget, a timer and a weak
 * reference) cost the main thread more than the rest of a call's hand-over (2026-11-28 profile).
 */
export class MessageDeadline {
  aborted = false
  #listener: (() => void) | undefined
  readonly #timer: NodeJS.Timeout

  constructor(ms: number) {
    this.#timer = setTimeout(() => this.#fire(), ms).unref()
  }

  once(_event: 'abort', listener: () => void): void {
    this.#listener = listener
  }

  off(_event: 'abort', _listener: () => void): void {
    this.#listener = undefined
  }

  /** Piscina 5 removes its listener by this name. */
  removeListener(event: 'abort', listener: () => void): void {
    this.off(event, listener)
  }

  /** The message settled: the limit no longer applies. */
  clear(): void {
    clearTimeout(this.#timer)
    this.#listener = undefined
  }

  #fire(): void {
    this.aborted = true
    const listener = this.#listener
    this.#listener = undefined
    listener?.()
  }
}

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.constructor?.name === 'AbortError')
}

/** Piscina's error for the messages a worker still held when it was terminated (another message's abort). */
function isTermination(err: unknown): boolean {
  return err instanceof Error && err.message === 'Terminating worker thread'
}

export class Lane {
  readonly pool: Piscina
  /** The methods this lane serves, for errors (`eth_call/eth_estimateGas`). */
  readonly what: string
  readonly threads: number
  readonly maxQueue: number
  /** Running a task this long past its budget gets its worker terminated. */
  readonly graceMs: number
  /** Longest a task waits for a worker to take it before it is refused (exec.queue_timeout). */
  readonly queueTimeoutMs: number
  /** Extra wait allowed to a task submitted while no worker has loaded yet (0 = the lane is warm from the start). */
  readonly bootAllowanceMs: number
  /** Most tasks one message to a worker carries (1: a message per task). */
  readonly batch: number
  #warm: boolean
  #running = 0
  readonly #waiting: Submitted[] = []
  /** A hand-over of the waiting tasks is scheduled for the end of this event-loop turn. */
  #flushing = false
  #completed = 0
  /** Set once the pool closes: what a message failing from then on answers. */
  #closing: Error | undefined

  constructor(
    pool: Piscina,
    what: string,
    threads: number,
    maxQueue: number,
    graceMs: number,
    queueTimeoutMs: number,
    bootAllowanceMs = 0,
    batch = 1,
  ) {
    this.pool = pool
    this.what = what
    this.threads = threads
    this.maxQueue = maxQueue
    this.graceMs = graceMs
    this.queueTimeoutMs = queueTimeoutMs
    this.bootAllowanceMs = bootAllowanceMs
    this.#warm = bootAllowanceMs === 0
    this.batch = Math.max(1, batch)
  }

  /** True once a worker has loaded (a task completed, or Piscina has a ready idle worker). */
  get warm(): boolean {
    if (!this.#warm && (this.#completed > 0 || (this.pool.idleThreads ?? 0) > 0)) this.#warm = true
    return this.#warm
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

  /**
   * Runs `task` now or after those that came first. Rejects at once when the queue is full, with
   * QueueTimeoutError when no worker takes it within queueTimeoutMs; its budgetMs and startBy
   * are the caller's, its start flag the lane's.
   */
  submit(unflagged: ExecTask): Promise<TaskResult<unknown>> {
    // tasks waiting for this turn's hand-over take the free slots first
    const free = Math.max(0, this.threads - this.#running)
    if (this.#waiting.length >= this.maxQueue + free) {
      return Promise.reject(new PoolBusyError(this.what, this.maxQueue))
    }
    const waitMs = this.queueTimeoutMs + (this.warm ? 0 : this.bootAllowanceMs)
    const task = { ...unflagged, startBy: Date.now() + waitMs, started: newStartFlag() }
    return new Promise((resolve, reject) => {
      const s: Submitted = { task, resolve, reject, timer: undefined, inPool: false }
      s.timer = setTimeout(() => this.#expire(s), waitMs)
      if (this.batch > 1) {
        this.#waiting.push(s)
        this.#flushSoon()
      } else if (this.#running < this.threads) this.#start([s])
      else this.#waiting.push(s)
    })
  }

  /** Rejects everything still waiting, and what fails from now on (the pool is closing: its workers go). */
  drop(reason: Error): void {
    this.#closing = reason
    for (const s of this.#waiting.splice(0)) {
      clearTimeout(s.timer)
      s.reject(reason)
    }
  }

  /** The task's start-by time came: refused, unless a worker has taken it already. */
  #expire(s: Submitted): void {
    if (!s.inPool) {
      const i = this.#waiting.indexOf(s)
      if (i >= 0) this.#waiting.splice(i, 1)
      s.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
    } else if (refuseStart(s.task.started)) {
      // it stays in its worker's inbox (its slot held) until the worker skips it
      s.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
    }
  }

  /** Hands the waiting tasks to the workers once this turn's I/O callbacks have submitted theirs. */
  #flushSoon(): void {
    if (this.#flushing) return
    this.#flushing = true
    setImmediate(() => {
      this.#flushing = false
      this.#next()
    })
  }

  /** Hands `batch` (one task, or several in arrival order) to a worker as one message. */
  #start(batch: Submitted[]): void {
    this.#running += batch.length
    let endBy = 0
    for (const s of batch) {
      s.inPool = true
      endBy = Math.max(endBy, s.task.startBy + s.task.budgetMs)
    }
    // a worker takes each task by its startBy at the latest (or skips it), then runs it at most
    // budgetMs; the tasks of a message run one after another, so the last ends by the latest of these
    const limitMs = Math.max(0, endBy - Date.now()) + this.graceMs
    const message = batch.length === 1 ? (batch[0] as Submitted).task : batch.map((s) => s.task)
    const deadline = new MessageDeadline(limitMs)
    this.pool
      .run(message, { signal: deadline })
      .then(
        (answer: TaskResult<unknown> | TaskResult<unknown>[]) => {
          const results = Array.isArray(answer) ? answer : [answer]
          for (const [i, s] of batch.entries()) this.#answer(s, results[i] as TaskResult<unknown>)
        },
        (err: unknown) => {
          for (const s of batch) s.reject(this.#failure(s, err, batch.length))
        },
      )
      .finally(() => {
        deadline.clear()
        for (const s of batch) clearTimeout(s.timer)
        this.#running -= batch.length
        this.#completed += batch.length
        this.#next()
      })
  }

  #answer(s: Submitted, result: TaskResult<unknown>): void {
    if (!result.ok && result.failure.kind === 'notStarted') {
      s.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
    } else {
      s.resolve(result)
    }
  }

  /**
   * What a task of a message that failed answers: aborted past its time, dropped with a worker
   * terminated for another message's abort (never started: refused busy), or its worker died.
   */
  #failure(s: Submitted, err: unknown, size: number): Error {
    if (this.#closing !== undefined) return this.#closing
    const aborted = isAbort(err)
    if (!aborted && !isTermination(err)) return new WorkerCrashedError(err)
    if (aborted && size === 1) return new ExecutionError(timeoutMessage(s.task))
    if (refuseStart(s.task.started)) return new QueueTimeoutError(this.what, this.queueTimeoutMs)
    return finished(s.task.started) ? new WorkerCrashedError(err) : new ExecutionError(timeoutMessage(s.task))
  }

  #next(): void {
    while (this.#running < this.threads && this.#waiting.length > 0) {
      this.#start(this.#waiting.splice(0, Math.min(this.batch, this.threads - this.#running)))
    }
  }
}

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
 * depth, with pipelineBalancer), so a task in Piscina may still wait in its worker's inbox. The
 * node's trace lane holds one task a worker; the call lane has its own transport (ringLane.ts).
 * What always holds: at most `threads` tasks are inside Piscina;
 * at most `maxQueue` wait here for a slot; a task a worker
 * has not taken `queueTimeoutMs` after its submission — waiting here or in a worker's inbox — is
 * refused with QueueTimeoutError (-32005) and never runs (startClaim.ts decides the race with the
 * worker); a task a worker took runs its whole `budgetMs`, counted from that moment, and is
 * aborted, its worker terminated and replaced, only when it runs past that plus `graceMs`; the
 * messages that worker held behind it are refused busy (never taken) or, if one had started,
 * answer WorkerCrashedError.
 *
 * A lane whose workers are still loading (a node just started, on a loaded box that can take
 * seconds) is cold: a task submitted then waits for the first worker at most `bootAllowanceMs`
 * more than the queue timeout, since the wait is not others' work. The lane is warm once a task
 * has completed or Piscina reports a ready idle worker.
 */
import type { Piscina } from 'piscina'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, QueueTimeoutError, WorkerCrashedError } from './errors.js'
import { newStartFlag, refuseStart } from './startClaim.js'
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
  #warm: boolean
  #running = 0
  readonly #waiting: Submitted[] = []
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
  ) {
    this.pool = pool
    this.what = what
    this.threads = threads
    this.maxQueue = maxQueue
    this.graceMs = graceMs
    this.queueTimeoutMs = queueTimeoutMs
    this.bootAllowanceMs = bootAllowanceMs
    this.#warm = bootAllowanceMs === 0
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
    if (this.#running >= this.threads && this.#waiting.length >= this.maxQueue) {
      return Promise.reject(new PoolBusyError(this.what, this.maxQueue))
    }
    const waitMs = this.queueTimeoutMs + (this.warm ? 0 : this.bootAllowanceMs)
    const task = { ...unflagged, startBy: Date.now() + waitMs, started: newStartFlag() }
    return new Promise((resolve, reject) => {
      const s: Submitted = { task, resolve, reject, timer: undefined, inPool: false }
      s.timer = setTimeout(() => this.#expire(s), waitMs)
      if (this.#running < this.threads) this.#start(s)
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

  /** Hands `s` to Piscina as one message. */
  #start(s: Submitted): void {
    this.#running++
    s.inPool = true
    // a worker takes the task by its startBy at the latest (or skips it), then runs it at most budgetMs
    const limitMs = Math.max(0, s.task.startBy + s.task.budgetMs - Date.now()) + this.graceMs
    const deadline = new MessageDeadline(limitMs)
    this.pool
      .run(s.task, { signal: deadline })
      .then(
        (result: TaskResult<unknown>) => this.#answer(s, result),
        (err: unknown) => s.reject(this.#failure(s, err)),
      )
      .finally(() => {
        deadline.clear()
        clearTimeout(s.timer)
        this.#running--
        this.#completed++
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
   * What a task whose message failed answers: aborted past its time, dropped with a worker
   * terminated for another message's abort (never started: refused busy), or its worker died.
   */
  #failure(s: Submitted, err: unknown): Error {
    if (this.#closing !== undefined) return this.#closing
    if (isAbort(err)) return new ExecutionError(timeoutMessage(s.task))
    if (!isTermination(err)) return new WorkerCrashedError(err)
    return refuseStart(s.task.started)
      ? new QueueTimeoutError(this.what, this.queueTimeoutMs)
      : new WorkerCrashedError(err)
  }

  #next(): void {
    while (this.#running < this.threads && this.#waiting.length > 0) this.#start(this.#waiting.shift() as Submitted)
  }
}

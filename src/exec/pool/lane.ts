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
 * depth; ExecPool sets it), so a task in Piscina may still wait in its worker's inbox. What always
 * holds: at most `threads` tasks are inside Piscina; at most `maxQueue` wait here; a task a worker
 * has not taken `queueTimeoutMs` after its submission — waiting here or in a worker's inbox — is
 * refused with QueueTimeoutError (-32005) and never runs (startClaim.ts decides the race with the
 * worker); a task a worker took runs its whole `budgetMs`, counted from that moment, and is
 * aborted, its worker terminated and replaced, only when it runs past that plus `graceMs`.
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

function isAbort(err: unknown): boolean {
  return err instanceof Error && (err.name === 'AbortError' || err.constructor?.name === 'AbortError')
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

  /** Rejects everything still waiting (the pool is closing). */
  drop(reason: Error): void {
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

  #start(s: Submitted): void {
    s.inPool = true
    this.#running++
    // a worker takes the task by startBy at the latest (or skips it), then runs at most budgetMs
    const limitMs = Math.max(0, s.task.startBy - Date.now()) + s.task.budgetMs + this.graceMs
    this.pool
      .run(s.task, { signal: AbortSignal.timeout(limitMs) })
      .then(
        (result: TaskResult<unknown>) => {
          if (!result.ok && result.failure.kind === 'notStarted') {
            s.reject(new QueueTimeoutError(this.what, this.queueTimeoutMs))
          } else {
            s.resolve(result)
          }
        },
        (err: unknown) =>
          s.reject(isAbort(err) ? new ExecutionError(timeoutMessage(s.task)) : new WorkerCrashedError(err)),
      )
      .finally(() => {
        clearTimeout(s.timer)
        this.#running--
        this.#completed++
        this.#next()
      })
  }

  #next(): void {
    while (this.#running < this.threads) {
      const s = this.#waiting.shift()
      if (s === undefined) return
      this.#start(s)
    }
  }
}

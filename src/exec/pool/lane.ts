/**
 * A Lane: one kind of task (calls, or traces) on its own Piscina pool, behind its own bounded
 * first-come-first-served queue.
 *
 *   submit ─ a slot free? ─yes─▶ Piscina (at most `threads` tasks in it) ─▶ answer ─▶ next waiting
 *          └─ no ─▶ queue full? ─yes─▶ PoolBusyError (-32005)
 *                   └─ no ─▶ wait here, in arrival order, until a thread frees or the deadline
 *
 * Piscina queues tasks too, but not in arrival order once they carry an abort signal (a task that
 * finds no free worker goes to the tail, or with `stricterFIFO` the newest goes to the head), and
 * it does not count them against `maxQueue`; so nothing waits in Piscina, only here.
 *
 * `threads` counts slots: worker threads × the tasks each worker holds at once (its pipeline
 * depth; ExecPool sets it). What always holds: at most `threads` tasks are inside Piscina; at most `maxQueue` wait; a task
 * leaves the queue by starting or by its deadline (then it answers the timeout, never runs); a
 * running task past its deadline + grace is aborted, its worker terminated and replaced.
 */
import type { Piscina } from 'piscina'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, WorkerCrashedError } from './errors.js'
import { type ExecTask, type TaskResult, timeoutMessage } from './tasks.js'

interface Waiting {
  task: ExecTask
  resolve: (r: TaskResult<unknown>) => void
  reject: (err: unknown) => void
  timer: NodeJS.Timeout
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
  /** Running a task this long past its deadline gets its worker terminated. */
  readonly graceMs: number
  #running = 0
  readonly #waiting: Waiting[] = []
  #completed = 0

  constructor(pool: Piscina, what: string, threads: number, maxQueue: number, graceMs: number) {
    this.pool = pool
    this.what = what
    this.threads = threads
    this.maxQueue = maxQueue
    this.graceMs = graceMs
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

  /** Runs `task` now or after those that came first; rejects when the queue is full or the deadline passes. */
  submit(task: ExecTask): Promise<TaskResult<unknown>> {
    if (this.#running < this.threads) return this.#start(task)
    if (this.#waiting.length >= this.maxQueue) return Promise.reject(new PoolBusyError(this.what, this.maxQueue))
    return new Promise((resolve, reject) => {
      const w: Waiting = {
        task,
        resolve,
        reject,
        timer: setTimeout(
          () => {
            const i = this.#waiting.indexOf(w)
            if (i >= 0) this.#waiting.splice(i, 1)
            reject(new ExecutionError(timeoutMessage(task)))
          },
          Math.max(0, task.deadlineAt - Date.now()),
        ),
      }
      this.#waiting.push(w)
    })
  }

  /** Rejects everything still waiting (the pool is closing). */
  drop(reason: Error): void {
    for (const w of this.#waiting.splice(0)) {
      clearTimeout(w.timer)
      w.reject(reason)
    }
  }

  async #start(task: ExecTask): Promise<TaskResult<unknown>> {
    this.#running++
    const signal = AbortSignal.timeout(Math.max(0, task.deadlineAt - Date.now()) + this.graceMs)
    try {
      return (await this.pool.run(task, { signal })) as TaskResult<unknown>
    } catch (err) {
      if (isAbort(err)) throw new ExecutionError(timeoutMessage(task))
      throw new WorkerCrashedError(err)
    } finally {
      this.#running--
      this.#completed++
      this.#next()
    }
  }

  #next(): void {
    while (this.#running < this.threads) {
      const w = this.#waiting.shift()
      if (w === undefined) return
      clearTimeout(w.timer)
      this.#start(w.task).then(w.resolve, w.reject)
    }
  }
}

/** The Lane's queue: first come first served, bounded, deadlines for waiting and running tasks. */
import type { Piscina } from 'piscina'
import { describe, expect, it } from 'vitest'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, WorkerCrashedError } from './errors.js'
import { Lane } from './lane.js'
import type { ExecTask, TaskResult } from './tasks.js'

/** A stand-in for Piscina: each run() waits until the test finishes it (or its signal aborts it). */
function fakePool() {
  const running: { id: number; finish: (r: TaskResult<unknown> | Error) => void }[] = []
  const pool = {
    run(task: { id: number }, opts: { signal: AbortSignal }): Promise<TaskResult<unknown>> {
      return new Promise((resolve, reject) => {
        const entry = {
          id: task.id,
          finish: (r: TaskResult<unknown> | Error) => (r instanceof Error ? reject(r) : resolve(r)),
        }
        running.push(entry)
        opts.signal.addEventListener('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
      })
    },
  }
  return { pool: pool as unknown as Piscina, running }
}

function task(id: number, deadlineMs = 10_000): ExecTask {
  return {
    id,
    kind: 'call',
    head: 0n,
    blockHash: new Uint8Array(32),
    request: {},
    limits: { gasCap: 1n, timeoutMs: deadlineMs },
    deadlineAt: Date.now() + deadlineMs,
  } as unknown as ExecTask
}

const tick = () => new Promise((r) => setTimeout(r, 5))

describe('Lane', () => {
  it('runs at most `threads` tasks and starts the waiting ones in arrival order', async () => {
    const { pool, running } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 10, 1000)
    const answers = [1, 2, 3, 4].map((id) => lane.submit(task(id)))
    expect(running.map((r) => r.id)).toEqual([1])
    for (let i = 0; i < 4; i++) {
      running[i]?.finish({ ok: true, value: i + 1 })
      await tick()
    }
    expect(running.map((r) => r.id)).toEqual([1, 2, 3, 4])
    expect(await Promise.all(answers)).toEqual([1, 2, 3, 4].map((v) => ({ ok: true, value: v })))
  })

  it('refuses at once when the queue is full', async () => {
    const { pool } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 1, 1000)
    void lane.submit(task(1)).catch(() => {})
    void lane.submit(task(2)).catch(() => {})
    await expect(lane.submit(task(3))).rejects.toBeInstanceOf(PoolBusyError)
  })

  it('a task still waiting at its deadline answers the timeout and never runs', async () => {
    const { pool, running } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 5, 1000)
    void lane.submit(task(1)).catch(() => {})
    await expect(lane.submit(task(2, 20))).rejects.toEqual(new ExecutionError('execution aborted (timeout = 0.02s)'))
    running[0]?.finish({ ok: true, value: 0 })
    await tick()
    expect(running.map((r) => r.id)).toEqual([1])
    expect(lane.waiting).toBe(0)
  })

  it('aborts a task running past its deadline plus grace; a crash is WorkerCrashedError', async () => {
    const { pool, running } = fakePool()
    const lane = new Lane(pool, 'eth_call', 2, 5, 10)
    await expect(lane.submit(task(1, 10))).rejects.toEqual(new ExecutionError('execution aborted (timeout = 0.01s)'))
    const crashed = lane.submit(task(2))
    running[1]?.finish(new Error('worker exited with code: 70'))
    await expect(crashed).rejects.toBeInstanceOf(WorkerCrashedError)
    expect(lane.running).toBe(0)
  })
})

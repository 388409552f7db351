/**
 * The Lane's queue: first come first served, bounded; a task no worker takes within the queue
 * timeout is refused busy (never run, never reported as its own timeout); a task a worker took
 * keeps its whole budget, counted from then.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Piscina } from 'piscina'
import { describe, expect, it } from 'vitest'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, QueueTimeoutError, WorkerCrashedError } from './errors.js'
import { Lane, MessageDeadline } from './lane.js'
import { pipelineBalancer } from './balancer.js'
import { claimStart } from './startClaim.js'
import type { ExecTask, TaskResult } from './tasks.js'

type Flagged = { id: number; started: Int32Array; startBy: number }

/**
 * A stand-in for Piscina: each run() waits until the test finishes it (or its signal aborts it).
 * `take` plays the worker taking a task from its inbox (the start claim a real worker makes).
 */
function fakePool() {
  const running: { id: number; task: Flagged; finish: (r: TaskResult<unknown> | Error) => void }[] = []
  const pool = {
    run(task: Flagged, opts: { signal: MessageDeadline }): Promise<TaskResult<unknown>> {
      return new Promise((resolve, reject) => {
        const entry = {
          id: task.id,
          task,
          finish: (r: TaskResult<unknown> | Error) => (r instanceof Error ? reject(r) : resolve(r)),
        }
        running.push(entry)
        opts.signal.once('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
      })
    },
  }
  const take = (i: number): boolean => {
    const t = running[i]?.task as Flagged
    return claimStart(t.started, t.startBy)
  }
  return { pool: pool as unknown as Piscina, running, take }
}

function task(id: number, budgetMs = 10_000): ExecTask {
  return {
    id,
    kind: 'call',
    head: 0n,
    blockHash: new Uint8Array(32),
    request: {},
    limits: { gasCap: 1n, timeoutMs: budgetMs },
    budgetMs,
    startBy: Number.POSITIVE_INFINITY,
  } as unknown as ExecTask
}

const tick = (ms = 5) => new Promise((r) => setTimeout(r, ms))
const LONG_QUEUE_MS = 10_000

/** A stand-in for Piscina that records each message and lets the test fail it. */
function messagePool() {
  const messages: { tasks: Flagged[]; finish: (r: unknown) => void; fail: (err: Error) => void }[] = []
  const pool = {
    run(message: Flagged | Flagged[], opts: { signal: MessageDeadline }): Promise<unknown> {
      return new Promise((resolve, reject) => {
        messages.push({ tasks: Array.isArray(message) ? message : [message], finish: resolve, fail: reject })
        opts.signal.once('abort', () => reject(Object.assign(new Error('aborted'), { name: 'AbortError' })))
      })
    },
  }
  return { pool: pool as unknown as Piscina, messages }
}

describe('Lane', () => {
  it('runs at most `threads` tasks and starts the waiting ones in arrival order', async () => {
    const { pool, running } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 10, 1000, LONG_QUEUE_MS)
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
    const lane = new Lane(pool, 'eth_call', 1, 1, 1000, LONG_QUEUE_MS)
    void lane.submit(task(1)).catch(() => {})
    void lane.submit(task(2)).catch(() => {})
    await expect(lane.submit(task(3))).rejects.toBeInstanceOf(PoolBusyError)
  })

  it('a task still queued after the queue timeout is refused busy (-32005), not timed out, and never runs', async () => {
    const { pool, running } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 5, 1000, 20)
    void lane.submit(task(1)).catch(() => {})
    const refused = lane.submit(task(2, 5000))
    await expect(refused).rejects.toBeInstanceOf(QueueTimeoutError)
    await expect(refused).rejects.toThrow(
      'busy: request not run, it waited 0.02s for a free eth_call worker (exec.queue_timeout), try again later',
    )
    running[0]?.finish({ ok: true, value: 0 })
    await tick()
    expect(running.map((r) => r.id)).toEqual([1])
    expect(lane.waiting).toBe(0)
  })

  it("a task in a worker's inbox is refused at the queue timeout unless the worker took it", async () => {
    const { pool, running, take } = fakePool()
    // two slots on one worker (its pipeline): both tasks go to the worker at once
    const lane = new Lane(pool, 'eth_call', 2, 5, 1000, 30)
    const first = lane.submit(task(1))
    const second = lane.submit(task(2))
    expect(take(0)).toBe(true)
    await expect(second).rejects.toBeInstanceOf(QueueTimeoutError)
    // the worker reaches the refused task later and skips it: no second answer, its slot frees
    expect(take(1)).toBe(false)
    running[1]?.finish({ ok: false, failure: { kind: 'notStarted' } })
    // the task it took keeps running past the queue timeout, to its own answer
    running[0]?.finish({ ok: true, value: '0x' })
    expect(await first).toEqual({ ok: true, value: '0x' })
    await tick()
    expect(lane.running).toBe(0)
  })

  it('a worker taking a task after its start-by time refuses it itself', async () => {
    const { pool, running, take } = fakePool()
    const lane = new Lane(pool, 'eth_call', 1, 5, 1000, 10_000)
    const answer = lane.submit(task(1))
    const t = running[0]?.task as Flagged
    t.startBy = Date.now() - 1 // as if the lane's timer were late
    expect(take(0)).toBe(false)
    running[0]?.finish({ ok: false, failure: { kind: 'notStarted' } })
    await expect(answer).rejects.toBeInstanceOf(QueueTimeoutError)
  })

  it('while no worker has loaded, a task waits the boot allowance more before it is refused; then the queue timeout alone', async () => {
    const { pool, running, take } = fakePool()
    const lane = new Lane(pool, 'debug_trace', 1, 5, 1000, 20, 200)
    expect(lane.warm).toBe(false)
    const first = lane.submit(task(1))
    await tick(60)
    // past the queue timeout, but the worker was loading: it takes the task and answers
    expect(take(0)).toBe(true)
    running[0]?.finish({ ok: true, value: 1 })
    expect(await first).toEqual({ ok: true, value: 1 })
    await tick()
    expect(lane.warm).toBe(true)
    // warm: a task queued behind others' work is refused at the queue timeout
    void lane.submit(task(2)).catch(() => {})
    await expect(lane.submit(task(3))).rejects.toBeInstanceOf(QueueTimeoutError)
  })

  it('aborts a task running past its budget plus grace; a crash is WorkerCrashedError', async () => {
    const { pool, running, take } = fakePool()
    const lane = new Lane(pool, 'eth_call', 2, 5, 10, LONG_QUEUE_MS)
    // with a long queue timeout the abort comes at startBy + budget + grace: claim it, then abort a short one
    const short = new Lane(pool, 'eth_call', 1, 5, 10, 5)
    const aborted = short.submit(task(1, 10))
    expect(take(0)).toBe(true)
    await expect(aborted).rejects.toEqual(new ExecutionError('execution aborted (timeout = 0.01s)'))
    const crashed = lane.submit(task(2))
    running[1]?.finish(new Error('worker exited with code: 70'))
    await expect(crashed).rejects.toBeInstanceOf(WorkerCrashedError)
    expect(lane.running).toBe(0)
  })
})

describe('pipelining', () => {
  it('a message dropped with a worker terminated for another message: its tasks never taken are refused busy, not crashed', async () => {
    const { pool, messages } = messagePool()
    const lane = new Lane(pool, 'debug_trace', 4, 10, 1000, LONG_QUEUE_MS)
    const answers = [1, 2].map((id) => lane.submit(task(id)))
    // Piscina's error for the messages a worker held behind the aborted one
    messages[0]?.fail(new Error('Terminating worker thread'))
    messages[1]?.fail(new Error('Terminating worker thread'))
    for (const a of answers) await expect(a).rejects.toBeInstanceOf(QueueTimeoutError)
    // any other failure of the worker is still a crash
    const crashed = lane.submit(task(3))
    messages[2]?.fail(new Error('worker exited with code: 70'))
    await expect(crashed).rejects.toBeInstanceOf(WorkerCrashedError)
  })

  it("gives a worker holding abortable messages more, up to the lane's depth (Piscina's balancer gave it none)", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-balancer-'))
    const filename = join(dir, 'sleep.mjs')
    // blocks its thread, as a call worker runs its messages one after another
    writeFileSync(
      filename,
      'export default (ms) => (Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms), ms)\n',
    )
    const { Piscina } = await import('piscina')
    const depth = 3
    const real = new Piscina({
      filename,
      minThreads: 1,
      maxThreads: 1,
      concurrentTasksPerWorker: depth,
      loadBalancer: pipelineBalancer(depth),
    })
    try {
      await real.run(0) // the worker has loaded
      const runs = [1, 2, 3, 4].map(() => real.run(300, { signal: AbortSignal.timeout(60_000) }))
      // three messages went to the worker at once; only the fourth waits in Piscina
      expect(real.queueSize).toBe(1)
      expect(await Promise.all(runs)).toEqual([300, 300, 300, 300])
      // a message past its MessageDeadline is aborted and its worker terminated; the message held
      // behind it on that worker fails with the termination error; a new worker takes the next
      const stuck = real.run(60_000, { signal: new MessageDeadline(200) })
      const behind = real.run(1, { signal: new MessageDeadline(60_000) })
      await expect(stuck).rejects.toMatchObject({ name: 'AbortError' })
      await expect(behind).rejects.toThrow('Terminating worker thread')
      expect(await real.run(5, { signal: new MessageDeadline(60_000) })).toBe(5)
    } finally {
      await real.destroy()
      rmSync(dir, { recursive: true, force: true })
    }
  })
})

describe('runTask', () => {
  it('skips a task the lane refused: it answers notStarted without running', async () => {
    const { runTask } = await import('./tasks.js')
    const { newStartFlag, refuseStart } = await import('./startClaim.js')
    const started = newStartFlag()
    expect(refuseStart(started)).toBe(true)
    // a context that throws if the task touched it
    const ctx = new Proxy({}, { get: () => expect.unreachable('the refused task ran') })
    const refused = { ...(task(1) as object), startBy: Date.now() + 10_000, started } as unknown as ExecTask
    expect(await runTask(ctx as never, refused)).toEqual({ ok: false, failure: { kind: 'notStarted' } })
  })
})

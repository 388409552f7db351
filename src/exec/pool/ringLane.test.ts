/**
 * The call lane on real worker threads and their rings (a scripted worker instead of the EVM):
 * answers in order from several workers, through the bytes or the port; a bounded queue; refusals
 * at the queue timeout of tasks never run; a task running past its budget and grace terminates its
 * worker and answers the timeout; a crash answers WorkerCrashedError; a replacement serves on.
 * Needs the build (the worker imports dist/src/exec/pool/ringWorker.js), as `npm test` makes it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import { Worker } from 'node:worker_threads'
import { afterAll, describe, expect, it } from 'vitest'
import { ExecutionError } from '../../evm/errors.js'
import { PoolBusyError, QueueTimeoutError, WorkerCrashedError } from './errors.js'
import type { RingShared } from './ring.js'
import { RingLane, type RingLaneOptions } from './ringLane.js'
import type { CallTask } from './tasks.js'

const dist = resolve(dirname(fileURLToPath(import.meta.url)), '../../../dist/src/exec/pool')
const dir = mkdtempSync(join(tmpdir(), 'ibex-ring-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

// op = data[0]: 0 echo the data, 1 sleep data[1]*10 ms then echo, 2 spin for ever, 3 exit (a crash),
// 4 revert with the data, 5 answer 4 KiB (too long for the ring), 6 answer the gas (a number);
// every task it runs (its start claimed) adds 1 to workerData.ran[0]; with workerData.failLoad it
// throws before it serves (a worker that cannot load)
const WORKER = join(dir, 'worker.mjs')
writeFileSync(
  WORKER,
  `import { workerData } from 'node:worker_threads'
import { serveRing } from ${JSON.stringify(pathToFileURL(join(dist, 'ringWorker.js')).href)}
import { claimStart } from ${JSON.stringify(pathToFileURL(join(dist, 'startClaim.js')).href)}
const ran = new Int32Array(workerData.ran)
if (workerData.failLoad) throw new Error('this worker cannot load')
serveRing(workerData.ring, async (task) => {
  if (!claimStart(task.started, task.startBy)) return { ok: false, failure: { kind: 'notStarted' } }
  Atomics.add(ran, 0, 1)
  const data = task.request.data ?? new Uint8Array([0])
  switch (data[0]) {
    case 1: Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, data[1] * 10); break
    case 2: for (;;) {}
    case 3: process.exit(70)
    case 4: return { ok: false, failure: { kind: 'revert', data } }
    case 5: return { ok: true, value: new Uint8Array(4096).fill(7) }
    case 6: return { ok: true, value: task.request.gas }
  }
  return { ok: true, value: data }
})
`,
)

const LONG_QUEUE_MS = 10_000

function lane(
  overrides: Partial<RingLaneOptions> = {},
  failLoad = false,
): { lane: RingLane; ran: Int32Array; spawned: () => number } {
  const ran = new Int32Array(new SharedArrayBuffer(4))
  let spawned = 0
  const spawn = (ring: RingShared) => {
    spawned++
    return new Worker(WORKER, { workerData: { ring, ran: ran.buffer, failLoad }, transferList: [ring.port] })
  }
  const l = new RingLane({
    spawn,
    what: 'eth_call',
    workers: 1,
    depth: 4,
    maxQueue: 16,
    graceMs: 50,
    queueTimeoutMs: LONG_QUEUE_MS,
    bootAllowanceMs: 0,
    ...overrides,
  })
  return { lane: l, ran, spawned: () => spawned }
}

function task(data: number[], budgetMs = 5000, request: CallTask['request'] = {}): CallTask {
  return {
    kind: 'call',
    head: 0n,
    blockHash: new Uint8Array(32),
    request: { data: new Uint8Array(data), ...request },
    limits: { gasCap: 1n, timeoutMs: budgetMs },
    budgetMs,
    startBy: 0,
  }
}

/** Resolves once a worker serves (the timings below count from a loaded worker). */
async function loaded(l: RingLane): Promise<void> {
  for (let i = 0; i < 1000 && !l.loaded; i++) await new Promise((r) => setTimeout(r, 10))
  expect(l.loaded).toBe(true)
}

const value = (data: number[]) => ({ ok: true, value: new Uint8Array(data) })

describe('RingLane', () => {
  it('answers each task, in order, from two workers, through the ring or the port', async () => {
    const { lane: l, ran } = lane({ workers: 2 })
    try {
      const tasks = [
        task([0, 1]),
        task([1, 2, 3]),
        task([4, 9]),
        task([6], 5000, { gas: 21_000n }),
        // an access list does not cross as bytes; a 4 KiB answer does not either
        task([0, 2], 5000, { accessList: [] }),
        task([5]),
        ...Array.from({ length: 12 }, (_, i) => task([0, i])),
      ]
      const answers = await Promise.allSettled(tasks.map((t) => l.submit(t)))
      expect(answers[0]).toEqual({ status: 'fulfilled', value: value([0, 1]) })
      expect(answers[1]).toEqual({ status: 'fulfilled', value: value([1, 2, 3]) })
      expect(answers[2]).toEqual({
        status: 'fulfilled',
        value: { ok: false, failure: { kind: 'revert', data: new Uint8Array([4, 9]) } },
      })
      expect(answers[3]).toEqual({ status: 'fulfilled', value: { ok: true, value: 21_000n } })
      expect(answers[4]).toEqual({ status: 'fulfilled', value: value([0, 2]) })
      expect(answers[5]).toEqual({ status: 'fulfilled', value: { ok: true, value: new Uint8Array(4096).fill(7) } })
      for (let i = 0; i < 12; i++) expect(answers[6 + i]).toEqual({ status: 'fulfilled', value: value([0, i]) })
      expect(l.completed).toBe(tasks.length)
      expect(l.running).toBe(0)
      expect(Atomics.load(ran, 0)).toBe(tasks.length)
      expect(l.threads).toHaveLength(2)
    } finally {
      await l.destroy()
    }
  })

  it('refuses at once when every slot is taken and the queue is full', async () => {
    const { lane: l } = lane({ depth: 2, maxQueue: 1 })
    try {
      const held = [1, 2, 3].map(() => l.submit(task([1, 20])))
      await expect(l.submit(task([0]))).rejects.toBeInstanceOf(PoolBusyError)
      expect(l.waiting).toBe(1)
      await Promise.all(held)
    } finally {
      await l.destroy()
    }
  })

  it('a task not taken by the queue timeout is refused busy and never runs, in the queue or in a ring', async () => {
    const { lane: l, ran } = lane({ depth: 2, queueTimeoutMs: 100 })
    try {
      await loaded(l)
      const slow = l.submit(task([1, 40]))
      const refused = await Promise.allSettled([l.submit(task([0, 1])), l.submit(task([0, 2]))])
      for (const r of refused) expect(r.status === 'rejected' && r.reason).toBeInstanceOf(QueueTimeoutError)
      expect(await slow).toEqual(value([1, 40]))
      expect(Atomics.load(ran, 0)).toBe(1)
      expect(await l.submit(task([0, 3]))).toEqual(value([0, 3]))
    } finally {
      await l.destroy()
    }
  })

  it('a task running past its budget and grace: its worker is terminated, it answers the timeout, the one behind it is refused busy, a new worker serves', async () => {
    const { lane: l, ran } = lane({ queueTimeoutMs: 200 })
    try {
      await loaded(l)
      const [stuck, behind] = await Promise.allSettled([l.submit(task([2], 100)), l.submit(task([0, 1]))])
      expect(stuck).toEqual({ status: 'rejected', reason: new ExecutionError('execution aborted (timeout = 0.1s)') })
      expect(behind.status === 'rejected' && behind.reason).toBeInstanceOf(QueueTimeoutError)
      expect(await l.submit(task([0, 2]))).toEqual(value([0, 2]))
      expect(Atomics.load(ran, 0)).toBe(2)
      expect(l.threads).toHaveLength(1)
    } finally {
      await l.destroy()
    }
  })

  it('a worker that dies answers WorkerCrashedError for the task it ran; answered ones stand; a new worker serves', async () => {
    const { lane: l } = lane()
    try {
      const [before, crash] = await Promise.allSettled([l.submit(task([0, 1])), l.submit(task([3]))])
      expect(before).toEqual({ status: 'fulfilled', value: value([0, 1]) })
      expect(crash.status === 'rejected' && crash.reason).toBeInstanceOf(WorkerCrashedError)
      expect(await l.submit(task([0, 2]))).toEqual(value([0, 2]))
    } finally {
      await l.destroy()
    }
  })

  it('a worker that dies before it loads is replaced after RESPAWN_DELAY_MS, not at once; its task is refused busy', async () => {
    const { lane: l, ran, spawned } = lane({ queueTimeoutMs: 300 }, true)
    try {
      await expect(l.submit(task([0, 1]))).rejects.toBeInstanceOf(QueueTimeoutError)
      // a respawn on every exit would have started dozens by now
      expect(spawned()).toBeLessThanOrEqual(2)
      expect(Atomics.load(ran, 0)).toBe(0)
      expect(l.loaded).toBe(false)
    } finally {
      await l.destroy()
    }
  })

  it('closing: the waiting and the tasks in hand answer the closing reason; every thread exits', async () => {
    const { lane: l } = lane({ depth: 1 })
    const answers = Promise.allSettled([l.submit(task([1, 50])), l.submit(task([0]))])
    const reason = new Error('shutting down')
    l.drop(reason)
    const threads = l.threads
    await l.destroy()
    expect(await answers).toEqual([
      { status: 'rejected', reason },
      { status: 'rejected', reason },
    ])
    expect(threads.every((t) => t.threadId === -1)).toBe(true)
    await expect(l.submit(task([0]))).rejects.toBe(reason)
  })
})

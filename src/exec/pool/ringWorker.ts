/**
 * The worker's end of the call lane's ring (ring.ts): takes the tasks in order, runs each with
 * the handler, writes its answer and wakes the main thread. Sleeps in Atomics.wait while the ring
 * is empty; Worker.terminate() interrupts that wait as it interrupts a running task.
 */
import { receiveMessageOnPort } from 'node:worker_threads'
import {
  ANSWERED,
  FORM_PORT,
  markAnswerOnPort,
  READY,
  readTask,
  RingLayout,
  type RingShared,
  RING_SPIN_US,
  SLEEPING,
  SUBMITTED,
  taskForm,
  writeAnswer,
} from './ring.js'
import { markFinished } from './startClaim.js'
import type { CallLaneTask, TaskResult } from './tasks.js'

/** Runs a task; what it throws (a bug) is answered -32603 and the worker serves on. */
export type RingHandler = (task: CallLaneTask) => Promise<TaskResult<unknown>>

const spinMs = RING_SPIN_US / 1000

/**
 * Waits for a task after `seen`: spins RING_SPIN_US first (the next call of a busy node comes
 * within it, and a wake through Atomics.notify costs the main thread a futex syscall and this
 * thread a reschedule), then sleeps. SLEEPING is set before the last look at SUBMITTED and the
 * main thread reads it after storing SUBMITTED, so one of the two sees the other: no lost wake.
 */
function idle(control: Int32Array, seen: number): void {
  if (spinMs > 0) {
    const until = performance.now() + spinMs
    do {
      if (Atomics.load(control, SUBMITTED) !== seen) return
    } while (performance.now() < until)
  }
  Atomics.store(control, SLEEPING, 1)
  Atomics.wait(control, SUBMITTED, seen)
  Atomics.store(control, SLEEPING, 0)
}

/** Serves the ring until the thread is terminated; resolves never. */
export async function serveRing(shared: RingShared, handle: RingHandler): Promise<never> {
  const ring = new RingLayout(shared.sab, shared.depth)
  const { control } = ring
  Atomics.store(control, READY, 1)
  let seq = 0
  for (;;) {
    if (Atomics.load(control, SUBMITTED) === (seq | 0)) {
      idle(control, seq | 0)
      continue
    }
    const slot = seq % ring.depth
    const flag = ring.flags[slot] as Int32Array
    let task: CallLaneTask
    if (taskForm(ring, slot) === FORM_PORT) {
      const received = receiveMessageOnPort(shared.port)
      if (received === undefined) throw new Error(`call ring: task ${seq} missing from the port`)
      task = received.message as CallLaneTask
    } else {
      task = readTask(ring, slot)
    }
    task.started = flag
    let result: TaskResult<unknown>
    try {
      result = await handle(task)
    } catch (err) {
      result = { ok: false, failure: { kind: 'internal', message: err instanceof Error ? err.message : String(err) } }
    }
    if (!(!result.ok && result.failure.kind === 'notStarted')) markFinished(flag)
    if (!writeAnswer(ring, slot, result)) {
      shared.port.postMessage(result)
      markAnswerOnPort(ring, slot)
    }
    seq++
    Atomics.store(control, ANSWERED, seq | 0)
    Atomics.notify(control, ANSWERED)
  }
}

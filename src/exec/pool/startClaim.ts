/**
 * Who decides a queued task's fate: the worker that takes it, or the lane's queue timer. A task
 * handed to a worker may still wait in that worker's ring (CALL_PIPELINE_DEPTH slots, ring.ts) or
 * inbox behind slow calls, where the main thread cannot see whether it has started. Each task
 * submitted through a lane carries a 4-byte shared flag (a ring slot's, or one of its own); both
 * sides claim it with one compare-and-swap, and the first claim wins:
 *
 *   UNCLAIMED ──worker takes it, before task.startBy──▶ STARTED   (it runs, with its whole budget)
 *       └──────lane timer at startBy, or worker after it─▶ REFUSED (answered busy, never runs)
 *
 * So a request is either run with its full time limit or refused as busy (-32005), never charged
 * for the time it spent waiting behind others. A worker marks a task it ran FINISHED (markFinished):
 * when a worker dies with several tasks in hand, the lane tells the one that was running from those
 * already done.
 */

const UNCLAIMED = 0
const STARTED = 1
const REFUSED = 2
const FINISHED = 3

/** A new, unclaimed start flag (shared with the worker by structured clone). */
export function newStartFlag(): Int32Array {
  return new Int32Array(new SharedArrayBuffer(Int32Array.BYTES_PER_ELEMENT))
}

/**
 * claimStart: the worker, about to run a task, claims it. False when the task is refused: the
 * lane refused it already, or its start-by time has passed (then it is refused here).
 */
export function claimStart(flag: Int32Array, startBy: number): boolean {
  if (Date.now() > startBy) return !refuseStart(flag)
  return Atomics.compareExchange(flag, 0, UNCLAIMED, STARTED) !== REFUSED
}

/** refuseStart: the lane's queue timer refuses a task; false when a worker has started it already. */
export function refuseStart(flag: Int32Array): boolean {
  const was = Atomics.compareExchange(flag, 0, UNCLAIMED, REFUSED)
  return was === UNCLAIMED || was === REFUSED
}

/** markFinished: the worker has run the task to its end (its answer is on its way). */
export function markFinished(flag: Int32Array): void {
  Atomics.store(flag, 0, FINISHED)
}

/** finished: true when a worker ran the task to its end. */
export function finished(flag: Int32Array): boolean {
  return Atomics.load(flag, 0) === FINISHED
}

/** running: true while a worker runs the task (it claimed it and has not finished it). */
export function running(flag: Int32Array): boolean {
  return Atomics.load(flag, 0) === STARTED
}

/** resetStartFlag: a reused flag (a ring slot's, ring.ts) is unclaimed again for its next task. */
export function resetStartFlag(flag: Int32Array): void {
  Atomics.store(flag, 0, UNCLAIMED)
}

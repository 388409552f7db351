/**
 * Piscina entry point of the speculation workers (src/exec/parallel/speculator.ts): a block's
 * contract transactions run on the parent block's state, read from the node's RocksDB attached by
 * handle, each recorded (read set, op log, result) for the main thread to validate and apply. One
 * ExecContext per thread, built before the first task and kept; the thread never writes to or
 * closes the database.
 *
 * Piscina hands a worker up to SPECULATE_PIPELINE_DEPTH tasks at once; they run here strictly one
 * after another (they share the thread's speculation state), in arrival order.
 */
import { workerData } from 'node:worker_threads'
import { speculateTask } from '../src/exec/parallel/speculate.js'
import type { SpeculateResult, SpeculateTask } from '../src/exec/parallel/types.js'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'

const context = await ExecContext.attach(workerData as ExecWorkerData)

/** The task running or last queued on this thread: the next one starts when it settles. */
let tail: Promise<unknown> = Promise.resolve()

export default function speculate(task: SpeculateTask): Promise<SpeculateResult> {
  const run = tail.then(() => speculateTask(context, task))
  tail = run.catch(() => undefined)
  return run
}

/**
 * Piscina entry point of the trace workers (ExecPool's `traces` lane): debug_trace* and the explorer
 * index backfill's block replays, on state read from the node's RocksDB, attached by handle. The trace's JSON leaves the thread as byte chunks
 * that are transferred, not copied (Piscina.move), so a 100 MB trace costs the main thread no copy.
 *
 * The thread lowers its own scheduling priority (TRACE_THREAD_NICE): when cores are short, a
 * 30M-gas trace waits for them, not the main thread's answers to everyone else. On Linux the
 * niceness of setpriority(PRIO_PROCESS, 0) belongs to the calling thread only.
 */
import { setPriority } from 'node:os'
import { workerData } from 'node:worker_threads'
import { move, transferableSymbol, valueSymbol } from 'piscina'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'
import { TRACE_THREAD_NICE } from '../src/exec/pool/constants.js'
import { runTask, type TaskResult, type TraceLaneTask, type TraceParts } from '../src/exec/pool/tasks.js'
import { transferablesOf } from '../src/trace/sink.js'

try {
  setPriority(0, TRACE_THREAD_NICE)
} catch {
  // not permitted (or not supported): the thread runs at the node's priority
}

const context = await ExecContext.attach(workerData as ExecWorkerData)

export default async function trace(task: TraceLaneTask): Promise<unknown> {
  const result: TaskResult<unknown> = await runTask(context, task)
  // a backfill replay's activity is small plain data: cloned, nothing to transfer
  if (!result.ok || task.kind === 'explorerActivity') return result
  const parts = result.value as TraceParts
  return move({
    [transferableSymbol]: transferablesOf(parts),
    [valueSymbol]: result,
  } as never)
}

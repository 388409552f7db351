/**
 * Piscina entry point of the trace workers (ExecPool's `traces` lane): debug_trace* on state read
 * from the node's RocksDB, attached by handle. The trace's JSON leaves the thread as byte chunks
 * that are transferred, not copied (Piscina.move), so a 100 MB trace costs the main thread no copy.
 */
import { workerData } from 'node:worker_threads'
import { move, transferableSymbol, valueSymbol } from 'piscina'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'
import { runTask, type TaskResult, type TraceParts, type TraceTask } from '../src/exec/pool/tasks.js'
import { transferablesOf } from '../src/exec/tracers/sink.js'

const context = await ExecContext.attach(workerData as ExecWorkerData)

export default async function trace(task: TraceTask): Promise<unknown> {
  const result: TaskResult<unknown> = await runTask(context, task)
  if (!result.ok) return result
  const parts = result.value as TraceParts
  return move({
    [transferableSymbol]: transferablesOf(parts),
    [valueSymbol]: result,
  } as never)
}

/**
 * Piscina entry point of the call workers (ExecPool's `calls` lane): eth_call, eth_estimateGas,
 * eth_createAccessList and eth_simulateV1 on state read from the node's RocksDB, attached by
 * handle. Simulated blocks are formatted here, into the JSON-ready answer (rpc/format/simulated.ts),
 * because their ethereumjs objects would lose their classes crossing threads. One ExecContext per
 * thread, built before the first task (module top level) and kept: its trie-node cache and block
 * cache stay warm across tasks. The thread never writes to or closes the database.
 *
 * Piscina hands a worker up to CALL_PIPELINE_DEPTH messages at once, each one task or a batch of
 * them (the lane's CALL_BATCH_MAX: calls that waited while the worker was busy); every task runs
 * here strictly one after another (the EVM deadline of deadline.ts is one per thread), in arrival
 * order, and a batch is answered in one message. A task that throws (a bug) answers -32603
 * alone; the rest of its batch runs.
 *
 * Fault injection for tests: with IBEX_TEST_WORKER_EXIT=<address> in the environment, a call to
 * that address ends the thread on the spot (as a native crash would), so tests can check that the
 * node answers -32603 and replaces the worker. Unset, it costs one comparison per task.
 */
import { workerData } from 'node:worker_threads'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'
import { markFinished } from '../src/exec/pool/startClaim.js'
import { type CallLaneTask, runTask, type TaskResult } from '../src/exec/pool/tasks.js'
import { formatSimulatedBlocks } from '../src/rpc/format/simulated.js'

/** Exit code of an injected crash. */
const INJECTED_CRASH_EXIT_CODE = 70

const crashAddress = process.env.IBEX_TEST_WORKER_EXIT?.toLowerCase()
const context = await ExecContext.attach(workerData as ExecWorkerData)

/** The task running or last queued on this thread: the next one starts when it settles. */
let tail: Promise<unknown> = Promise.resolve()

function runOne(task: CallLaneTask): Promise<TaskResult<unknown>> {
  const to = task.kind === 'simulate' || task.kind === 'buildTestingBlock' ? undefined : task.request.to
  if (crashAddress !== undefined && to !== undefined && `0x${Buffer.from(to).toString('hex')}` === crashAddress) {
    process.exit(INJECTED_CRASH_EXIT_CODE)
  }
  return runTask(context, task, formatSimulatedBlocks)
}

async function runBatch(tasks: CallLaneTask[]): Promise<TaskResult<unknown>[]> {
  const results: TaskResult<unknown>[] = []
  for (const task of tasks) {
    try {
      results.push(await runOne(task))
    } catch (err) {
      // a bug in one task: answered -32603 (src/rpc/errors.ts), as a thrown task is alone
      results.push({
        ok: false,
        failure: { kind: 'internal', message: err instanceof Error ? err.message : String(err) },
      })
    }
    if (task.started !== undefined) markFinished(task.started)
  }
  return results
}

export default function execute(
  message: CallLaneTask | CallLaneTask[],
): Promise<TaskResult<unknown> | TaskResult<unknown>[]> {
  const run = tail.then(
    (): Promise<TaskResult<unknown> | TaskResult<unknown>[]> =>
      Array.isArray(message) ? runBatch(message) : runOne(message),
  )
  tail = run.catch(() => undefined)
  return run
}

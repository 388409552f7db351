/**
 * Piscina entry point of the call workers (ExecPool's `calls` lane): eth_call, eth_estimateGas,
 * eth_createAccessList and eth_simulateV1 on state read from the node's RocksDB, attached by
 * handle. Simulated blocks are formatted here, into the JSON-ready answer (rpc/format/simulated.ts),
 * because their ethereumjs objects would lose their classes crossing threads. One ExecContext per
 * thread, built before the first task (module top level) and kept: its trie-node cache and block
 * cache stay warm across tasks. The thread never writes to or closes the database.
 *
 * Piscina hands a worker up to CALL_PIPELINE_DEPTH tasks at once; they run here strictly one
 * after another (the EVM deadline of deadline.ts is one per thread), in arrival order.
 *
 * Fault injection for tests: with IBEX_TEST_WORKER_EXIT=<address> in the environment, a call to
 * that address ends the thread on the spot (as a native crash would), so tests can check that the
 * node answers -32603 and replaces the worker. Unset, it costs one comparison per task.
 */
import { workerData } from 'node:worker_threads'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'
import { type CallLaneTask, runTask, type TaskResult } from '../src/exec/pool/tasks.js'
import { formatSimulatedBlocks } from '../src/rpc/format/simulated.js'

/** Exit code of an injected crash. */
const INJECTED_CRASH_EXIT_CODE = 70

const crashAddress = process.env.IBEX_TEST_WORKER_EXIT?.toLowerCase()
const context = await ExecContext.attach(workerData as ExecWorkerData)

/** The task running or last queued on this thread: the next one starts when it settles. */
let tail: Promise<unknown> = Promise.resolve()

export default function execute(task: CallLaneTask): Promise<TaskResult<unknown>> {
  const run = tail.then(() => {
    const to = task.kind === 'simulate' || task.kind === 'buildTestingBlock' ? undefined : task.request.to
    if (crashAddress !== undefined && to !== undefined && `0x${Buffer.from(to).toString('hex')}` === crashAddress) {
      process.exit(INJECTED_CRASH_EXIT_CODE)
    }
    return runTask(context, task, formatSimulatedBlocks)
  })
  tail = run.catch(() => undefined)
  return run
}

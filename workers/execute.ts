/**
 * Entry point of the call workers (ExecPool's call lane, src/exec/pool/ringLane.ts): eth_call,
 * eth_estimateGas, eth_createAccessList and eth_simulateV1 on state read from the node's RocksDB,
 * attached by handle. Tasks come through this worker's ring (src/exec/pool/ring.ts) and run here
 * strictly one after another (the EVM deadline of deadline.ts is one per thread), in ring order.
 * Simulated blocks are formatted here, into the JSON-ready answer (rpc/format/simulated.ts),
 * because their ethereumjs objects would lose their classes crossing threads. One ExecContext per
 * thread, built before the first task (module top level) and kept: its trie-node cache and block
 * cache stay warm across tasks. The thread never writes to or closes the database.
 *
 * Fault injection for tests: with IBEX_TEST_WORKER_EXIT=<address> in the environment, a call to
 * that address ends the thread on the spot (as a native crash would), so tests can check that the
 * node answers -32603 and replaces the worker. Unset, it costs one comparison per task.
 */
import { workerData } from 'node:worker_threads'
import { ExecContext, type ExecWorkerData } from '../src/exec/pool/context.js'
import type { RingShared } from '../src/exec/pool/ring.js'
import { serveRing } from '../src/exec/pool/ringWorker.js'
import { claimStart } from '../src/exec/pool/startClaim.js'
import { type CallLaneTask, runTask, type TaskResult } from '../src/exec/pool/tasks.js'
import { formatSimulatedBlocks } from '../src/rpc/format/simulated.js'

/** Exit code of an injected crash. */
const INJECTED_CRASH_EXIT_CODE = 70

const crashAddress = process.env.IBEX_TEST_WORKER_EXIT?.toLowerCase()
const data = workerData as ExecWorkerData & { ring: RingShared }
const context = await ExecContext.attach(data)

function runOne(task: CallLaneTask): Promise<TaskResult<unknown>> {
  const to = task.kind === 'simulate' || task.kind === 'buildTestingBlock' ? undefined : task.request.to
  if (crashAddress !== undefined && to !== undefined && `0x${Buffer.from(to).toString('hex')}` === crashAddress) {
    // as a crash in the middle of the call: taken (its start claimed), then gone
    if (task.started !== undefined) claimStart(task.started, task.startBy)
    process.exit(INJECTED_CRASH_EXIT_CODE)
  }
  return runTask(context, task, formatSimulatedBlocks)
}

// after this module's evaluation ends (workers/entry.cts's import resolves): the loop blocks the
// thread in Atomics.wait whenever its ring is empty
setImmediate(() => void serveRing(data.ring, runOne))

/**
 * The tasks the pool runs, as plain data (structured-cloneable), and runTask, which executes one
 * against an ExecContext — in a worker (workers/execute.ts, workers/trace.ts) or in process.
 * Results cross threads as plain data too: an access list is strings and a bigint; simulated
 * blocks hold ethereumjs objects (headers, transactions), so the thread that made them formats
 * them with the presenter its owner gives (SimulatedPresenter) before they leave.
 *
 * Blocks travel as hashes: the main thread resolves tags and numbers (cheap, cached) and the
 * worker reads the block itself. Expected failures come back as values (TaskFailure), because an
 * Error thrown in a worker reaches the main thread stripped of its class; anything thrown is a bug
 * or a crash and answers -32603.
 */
import { createBlockFromRLP } from '@ethereumjs/block'
import { type AccessListResult, createAccessList } from '../../evm/accessList.js'
import type { MessageOverrides } from '../../evm/overrides.js'
import { type CallLimits, type CallRequest, call, estimateGas } from '../../evm/call.js'
import { EXEC_ERRORS, ExecutionRevertedError } from '../../evm/errors.js'
import { type ErrorWire, errorClasses, IbexError, toWireError } from '../../util/errors.js'
import { type SimulatedBlock, SimulationError, simulate } from '../../simulate/index.js'
import { applyStateOverrides } from '../../simulate/overrides.js'
import type { BlockOverrides, SimulateRequest, StateOverrides } from '../../simulate/types.js'
import type { TraceOptions } from '../../trace/options.js'
import { TraceConfigError } from '../../trace/options.js'
import { type BlockToTrace, TraceError, TraceTimeoutError, traceBlockAll, traceBlockTx } from '../../trace/run.js'
import { TraceTooLargeError } from '../../trace/sink.js'
import { traceCall } from '../../trace/traceCall.js'
import type { ExecContext } from './context.js'
import { buildTestingBlock, type TestingBlockRequest, TestingBuildError } from '../simulate/buildTestingBlock.js'
import { replayActivity } from '../../block/explorerBackfill.js'
import { withEvmDeadline } from '../../evm/deadline.js'
import { claimStart } from './startClaim.js'

interface TaskBase {
  /** Head block number the main thread knew when it sent the task. */
  head: bigint
  /** Time the task may run once a worker takes it, ms (the EVM stops it then: a timeout). */
  budgetMs: number
  /**
   * Wall-clock time (Date.now()) by which a worker must take the task: waiting longer (queued
   * behind other requests) refuses it as busy, unrun (startClaim.ts). Infinity in process.
   */
  startBy: number
  /** The start flag both the worker and the lane's queue timer claim (startClaim.ts); absent in process. */
  started?: Int32Array
}

/**
 * A call's state and block overrides (geth's override.StateOverride and BlockOverrides), as plain
 * data; the worker turns them into the message runner's MessageOverrides (messageOverrides).
 */
export interface CallOverrides {
  state?: StateOverrides
  block?: BlockOverrides
}

export interface CallTask extends TaskBase {
  kind: 'call' | 'estimateGas'
  blockHash: Uint8Array
  request: CallRequest
  limits: CallLimits
  overrides?: CallOverrides
}

interface TraceBase extends TaskBase {
  options: TraceOptions
  /** Largest trace JSON, bytes. */
  maxBytes: number
}

export interface TraceTxTask extends TraceBase {
  kind: 'traceTx'
  blockHash: Uint8Array
  index: number
}

export interface TraceBlockTask extends TraceBase {
  kind: 'traceBlock'
  blockHash: Uint8Array
}

export interface TraceRlpBlockTask extends TraceBase {
  kind: 'traceRlpBlock'
  rlp: Uint8Array
}

export interface TraceCallTask extends TraceBase {
  kind: 'traceCall'
  blockHash: Uint8Array
  request: CallRequest
  overrides?: CallOverrides
  gasCap: bigint
}

/** eth_createAccessList: answers an AccessListResult. */
export interface AccessListTask extends TaskBase {
  kind: 'createAccessList'
  blockHash: Uint8Array
  request: CallRequest
  limits: CallLimits
  /** geth's SuggestGasTipCap when the request came (the fee defaults' tip). */
  suggestedTip: bigint
  /** State overrides only (geth's eth_createAccessList takes no block overrides). */
  overrides?: CallOverrides
}

/** eth_simulateV1 on top of the block `blockHash`: answers what the thread's SimulatedPresenter makes of the blocks. */
export interface SimulateTask extends TaskBase {
  kind: 'simulate'
  blockHash: Uint8Array
  request: SimulateRequest
  /** The request's gas pool (0 = unlimited). */
  gasCap: bigint
  timeoutMs: number
  /** EIP-6110 deposit contract of the chain. */
  depositContract: Uint8Array
}

/** testing_buildBlockV1: the block built on `blockHash` (the head), answered as geth's payload envelope. */
export interface TestingBlockTask extends TaskBase {
  kind: 'buildTestingBlock'
  blockHash: Uint8Array
  request: TestingBlockRequest
  timeoutMs: number
}

/**
 * The explorer index backfill's replay of a stored block (src/block/explorerBackfill.ts): what
 * each transaction touched, created and reverted with, as the live commit records it (TxActivity[]).
 */
export interface ExplorerActivityTask extends TaskBase {
  kind: 'explorerActivity'
  blockHash: Uint8Array
}

export type TraceTask = TraceTxTask | TraceBlockTask | TraceRlpBlockTask | TraceCallTask
/** The tasks of the call lane (workers/execute.ts). */
export type CallLaneTask = CallTask | AccessListTask | SimulateTask | TestingBlockTask
/** The tasks of the trace lane (workers/trace.ts). */
export type TraceLaneTask = TraceTask | ExplorerActivityTask
export type ExecTask = CallLaneTask | TraceLaneTask

/**
 * Turns simulated blocks into the JSON-ready answer (src/rpc/format/simulated.ts). Given by the
 * owner of the thread that runs the simulation, because the exec layer does not import rpc.
 */
export type SimulatedPresenter = (blocks: SimulatedBlock[], fullTransactions: boolean) => unknown

/**
 * Why a task failed, in a form that crosses threads: `simulation` keeps eth_simulateV1's geth
 * code (-380xx …), `internal` is an unexpected error of a simulation or access list (answers
 * -32603, as it did when they ran on the main thread).
 */
export type TaskFailure =
  | { kind: 'revert'; data: Uint8Array }
  | { kind: 'execution' | 'timeout' | 'tooLarge' | 'internal'; message: string }
  /** Refused before it ran: it waited past its start-by time (the lane answers QueueTimeoutError). */
  | { kind: 'notStarted' }
  /** One of our errors (its kind and facts), revived on the main thread (reviveError). */
  | { kind: 'error'; error: ErrorWire }

export type TaskResult<T> = { ok: true; value: T } | { ok: false; failure: TaskFailure }

/** Trace JSON as latin1 byte chunks (transferred, not copied, out of a worker). */
export type TraceParts = Uint8Array[]

/** The classes of the errors a task may fail with, to revive them on the main thread. */
export const TASK_ERROR_CLASSES = errorClasses(
  ...EXEC_ERRORS,
  SimulationError,
  TestingBuildError,
  TraceError,
  TraceTimeoutError,
  TraceConfigError,
)

function failureOf(err: unknown, task: ExecTask): TaskFailure | undefined {
  if (err instanceof ExecutionRevertedError) return { kind: 'revert', data: err.data }
  if (err instanceof TraceTimeoutError) return { kind: 'timeout', message: err.message }
  if (err instanceof TraceTooLargeError) return { kind: 'tooLarge', message: err.message }
  if (err instanceof IbexError) return { kind: 'error', error: toWireError(err) }
  // these threw plain errors on the main thread before, answered -32603 there; not a worker crash
  if (task.kind === 'simulate' || task.kind === 'createAccessList' || task.kind === 'buildTestingBlock') {
    return { kind: 'internal', message: err instanceof Error ? err.message : String(err) }
  }
  return undefined
}

function blockOf(ctx: ExecContext, task: TaskBase & { blockHash: Uint8Array }) {
  const block = ctx.store(task.head).getBlockByHash(task.blockHash)
  if (block === undefined) throw new TraceError(`block 0x${Buffer.from(task.blockHash).toString('hex')} not found`)
  return block
}

function parentStateRoot(ctx: ExecContext, head: bigint, parentHash: Uint8Array, number: bigint): Uint8Array {
  const parent = ctx.store(head).getBlockByHash(parentHash)
  if (parent === undefined)
    throw new TraceError(`parent block #${number - 1n} 0x${Buffer.from(parentHash).toString('hex')} not found`)
  return parent.header.stateRoot
}

function stored(ctx: ExecContext, task: TraceTxTask | TraceBlockTask): BlockToTrace {
  const block = blockOf(ctx, task)
  if (block.header.number === 0n) throw new TraceError('genesis is not traceable')
  return {
    header: block.header,
    transactions: block.transactions,
    parentStateRoot: parentStateRoot(ctx, task.head, block.header.parentHash, block.header.number),
  }
}

function decoded(ctx: ExecContext, task: TraceRlpBlockTask): BlockToTrace {
  let block: ReturnType<typeof createBlockFromRLP>
  try {
    block = createBlockFromRLP(task.rlp, {
      common: ctx.common.copy(),
      setHardfork: true,
      skipConsensusFormatValidation: true,
    })
  } catch (err) {
    throw new TraceError('could not decode block', { cause: err })
  }
  if (block.header.number === 0n) throw new TraceError('genesis is not traceable')
  return {
    header: block.header,
    transactions: [...block.transactions],
    parentStateRoot: parentStateRoot(ctx, task.head, block.header.parentHash, block.header.number),
  }
}

async function execute(ctx: ExecContext, task: ExecTask, present: SimulatedPresenter | undefined): Promise<unknown> {
  switch (task.kind) {
    case 'call':
    case 'estimateGas': {
      const store = ctx.store(task.head)
      const env = { db: ctx.db, store, common: ctx.common, block: blockOf(ctx, task) }
      const overrides = messageOverrides(task.overrides, true)
      return task.kind === 'call'
        ? call(env, task.request, task.limits, overrides)
        : estimateGas(env, task.request, task.limits, overrides)
    }
    case 'createAccessList': {
      const env = { db: ctx.db, store: ctx.store(task.head), common: ctx.common, block: blockOf(ctx, task) }
      const result: AccessListResult = await createAccessList(env, task.request, task.limits, {
        suggestedTip: task.suggestedTip,
        overrides: messageOverrides(task.overrides, false),
      })
      return result
    }
    case 'simulate': {
      if (present === undefined) throw new Error('no presenter for simulated blocks on this thread')
      const env = {
        db: ctx.db,
        store: ctx.store(task.head),
        common: ctx.common,
        base: blockOf(ctx, task),
        gasCap: task.gasCap,
        timeoutMs: task.timeoutMs,
        depositContract: task.depositContract,
      }
      return present(await simulate(env, task.request), task.request.returnFullTransactions)
    }
    case 'buildTestingBlock': {
      const env = { db: ctx.db, store: ctx.store(task.head), common: ctx.common }
      return buildTestingBlock(env, blockOf(ctx, task), task.request)
    }
    case 'traceTx':
      return traceBlockTx(
        { db: ctx.db, store: ctx.store(task.head) },
        stored(ctx, task),
        task.index,
        task.options,
        task.maxBytes,
      )
    case 'traceBlock':
      return traceBlockAll({ db: ctx.db, store: ctx.store(task.head) }, stored(ctx, task), task.options, task.maxBytes)
    case 'traceRlpBlock':
      return traceBlockAll({ db: ctx.db, store: ctx.store(task.head) }, decoded(ctx, task), task.options, task.maxBytes)
    case 'traceCall': {
      const chain = { db: ctx.db, store: ctx.store(task.head) }
      const params = {
        block: blockOf(ctx, task),
        request: task.request,
        overrides: messageOverrides(task.overrides, true),
        gasCap: task.gasCap,
      }
      return traceCall(chain, params, task.options, task.maxBytes)
    }
    case 'explorerActivity': {
      const store = ctx.store(task.head)
      return replayActivity(store, blockOf(ctx, task))
    }
  }
}

/**
 * The message runner's overrides for a call's: state overrides applied by src/simulate's
 * applyStateOverrides (the one implementation, movePrecompileToAddress included) on the
 * message's state and precompile table; geth's eth_createAccessList applies them without the
 * table (`precompiles` false: a move is refused as geth refuses it, nothing is taken off).
 */
function messageOverrides(o: CallOverrides | undefined, precompiles: boolean): MessageOverrides | undefined {
  if (o === undefined || (o.state === undefined && o.block === undefined)) return undefined
  const state = o.state
  return {
    block: o.block,
    state:
      state === undefined ? undefined : (sm, table) => applyStateOverrides(sm, state, precompiles ? table : new Map()),
  }
}

/** geth's message when a task runs out of time. */
export function timeoutMessage(task: ExecTask): string {
  switch (task.kind) {
    case 'call':
    case 'estimateGas':
    case 'createAccessList':
      return evmTimeoutMessage(task.limits.timeoutMs)
    case 'simulate':
    case 'buildTestingBlock':
      return evmTimeoutMessage(task.timeoutMs)
    default:
      return 'execution timeout'
  }
}

function evmTimeoutMessage(ms: number): string {
  return `execution aborted (timeout = ${ms / 1000}s)`
}

/**
 * Runs one task; expected failures are returned, bugs thrown. A task that comes with a start flag
 * is first claimed (startClaim.ts): one waited for too long is refused unrun. In a worker
 * (ctx.evmDeadline) the EVM stops itself `budgetMs` after the start; in process only traces' own
 * timeouts apply.
 */
export async function runTask(
  ctx: ExecContext,
  task: ExecTask,
  present?: SimulatedPresenter,
): Promise<TaskResult<unknown>> {
  let value: unknown
  let error: unknown
  if (task.started !== undefined && !claimStart(task.started, task.startBy)) {
    return { ok: false, failure: { kind: 'notStarted' } }
  }
  if (ctx.evmDeadline) {
    const message = timeoutMessage(task)
    // the budget counts from here, when this worker takes the task, never from its queueing
    const run = await withEvmDeadline(task.budgetMs, message, () => execute(ctx, task, present))
    if (run.timedOut) return { ok: false, failure: { kind: 'timeout', message } }
    value = run.value
    error = run.error
  } else {
    try {
      value = await execute(ctx, task, present)
    } catch (err) {
      error = err
    }
  }
  if (error === undefined) return { ok: true, value }
  const failure = failureOf(error, task)
  if (failure === undefined) throw error
  return { ok: false, failure }
}

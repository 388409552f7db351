/**
 * Errors of the execution pool's host side. Execution failures inside a task (reverts, out of
 * gas, timeouts) are the errors of ../errors.ts instead; src/rpc/errors.ts gives each its code.
 */
import type { TestingBuildError } from '../simulate/buildTestingBlock.js'
import { IbexError } from '../../util/errors.js'
import type { ExecError } from '../../evm/errors.js'
import type { SimulationError } from '../../simulate/errors.js'
import type { TraceConfigError, TraceOptionsError } from '../../trace/options.js'
import type { OverrideError } from '../../trace/overrides.js'
import type { TraceError, TraceTimeoutError } from '../../trace/run.js'
import type { TraceTooLargeError } from '../../trace/sink.js'

/** The queue of waiting tasks of one kind is full: the request is refused, not queued (-32005). */
export class PoolBusyError extends IbexError {
  readonly kind = 'poolBusy'
  constructor(
    /** Which lane: `eth_call/eth_estimateGas`, `debug_trace`. */
    readonly what: string,
    readonly waiting: number,
  ) {
    super(`limit exceeded: too many ${what} requests waiting (${waiting}), try again later`)
  }
}

/**
 * The request waited `waitedMs` (exec.queue_timeout) for a worker of its lane and was not run
 * (-32005): the workers were busy with other requests. Its own time limit never started, so it is
 * not answered as an execution timeout.
 */
export class QueueTimeoutError extends IbexError {
  readonly kind = 'poolBusy'
  constructor(
    /** Which lane: `eth_call/eth_estimateGas/…`, `debug_trace`. */
    readonly what: string,
    readonly waitedMs: number,
  ) {
    super(
      `busy: request not run, it waited ${waitedMs / 1000}s for a free ${what} worker (exec.queue_timeout), try again later`,
    )
  }
}

/** A trace's JSON would exceed the node's result limit (-32005). */
export class TraceLimitError extends IbexError {
  readonly kind = 'traceLimit'
}

/** The worker running the request died (crash, out of memory); it has been replaced (-32603). */
export class WorkerCrashedError extends IbexError {
  readonly kind = 'workerCrashed'
  constructor(cause: unknown) {
    super('internal error: the execution worker running this request crashed and was replaced', { cause })
  }
}

/** The pool is closing: nothing new runs and what waits is refused. */
export class NodeShuttingDownError extends IbexError {
  readonly kind = 'shuttingDown'
  constructor() {
    super('the node is shutting down')
  }
}

export type ExecPoolError =
  | PoolBusyError
  | QueueTimeoutError
  | TraceLimitError
  | WorkerCrashedError
  | NodeShuttingDownError

/**
 * Every error the execution layer answers with, behind the pool or in front of it (the RPC layer
 * imports execution only through src/exec/pool; src/rpc/errors.ts maps each kind).
 */
export type ExecutionLayerError =
  | ExecError
  | ExecPoolError
  | SimulationError
  | TraceError
  | TraceTimeoutError
  | TraceTooLargeError
  | TraceOptionsError
  | TraceConfigError
  | OverrideError
  | TestingBuildError

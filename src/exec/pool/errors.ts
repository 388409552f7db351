/**
 * Errors of the execution pool's host side. Each carries its JSON-RPC code; src/rpc/errors.ts
 * maps them (the one mapping). Execution failures inside a task (reverts, out of gas, timeouts)
 * are ExecutionError / ExecutionRevertedError from ../errors.ts instead.
 */

export abstract class ExecPoolError extends Error {
  abstract readonly code: number
}

/** -32005: the queue of waiting tasks of one kind is full; the request is refused, not queued. */
export class PoolBusyError extends ExecPoolError {
  readonly code = -32005
  constructor(what: string, waiting: number) {
    super(`limit exceeded: too many ${what} requests waiting (${waiting}), try again later`)
    this.name = 'PoolBusyError'
  }
}

/** -32005: a trace's JSON would exceed the node's result limit. */
export class TraceLimitError extends ExecPoolError {
  readonly code = -32005
  constructor(message: string) {
    super(message)
    this.name = 'TraceLimitError'
  }
}

/** -32603: the worker running the request died (crash, out of memory); it has been replaced. */
export class WorkerCrashedError extends ExecPoolError {
  readonly code = -32603
  constructor(cause: unknown) {
    super('internal error: the execution worker running this request crashed and was replaced', { cause })
    this.name = 'WorkerCrashedError'
  }
}

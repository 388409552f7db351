/**
 * A deadline the EVM itself checks, so a worker stops a pure-compute loop without being killed.
 *
 * ethereumjs runs opcodes in a loop of already-resolved awaits: no timer can fire until the call
 * ends, and without a `step` listener (which would slow every opcode several-fold) there is no
 * hook. So the interpreter's `runStep` is wrapped once (src/evm/patches.ts): every
 * DEADLINE_CHECK_OPS opcodes it calls checkEvmDeadline, which compares the clock with the current
 * task's deadline and, past it, throws EvmDeadlineError, which ethereumjs passes through (not an
 * EVM error) and the task reports as a timeout. With no task deadline set the check never fires.
 *
 *   import evmPatches.ts ─▶ task: withEvmDeadline(ms, run) ─▶ opcode loop checks
 *
 * One task runs per worker at a time (traces: Piscina concurrentTasksPerWorker = 1; calls: the
 * worker runs the tasks it holds one after another), so one deadline per thread suffices. The host's abort (terminate the worker) stays as the backstop for what this
 * cannot see: a long precompile or a stuck state read.
 */

/** Opcodes between two clock reads: ~10 µs of EVM work, so the check costs nothing measurable. */
export const DEADLINE_CHECK_OPS = 1024

/** Thrown inside the EVM when the running task's deadline has passed. */
export class EvmDeadlineError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'EvmDeadlineError'
  }
}

let deadline = Number.POSITIVE_INFINITY
let message = ''
let expired = false

/**
 * checkEvmDeadline: for an interpreter outside ethereumjs (src/evm/fast), the same check the
 * wrapped runStep makes: past the running task's deadline, throws EvmDeadlineError.
 */
export function checkEvmDeadline(): void {
  if (performance.now() > deadline) {
    expired = true
    throw new EvmDeadlineError(message)
  }
}

/**
 * Runs `fn` with the EVM deadline set `ms` from now. `timedOut` is true when the deadline was hit
 * during the run — even if `fn` caught the error and went on (eth_estimateGas' search does).
 */
export async function withEvmDeadline<T>(
  ms: number,
  timeoutMessage: string,
  fn: () => Promise<T>,
): Promise<{ value: T | undefined; error: unknown; timedOut: boolean }> {
  deadline = performance.now() + ms
  message = timeoutMessage
  expired = false
  try {
    return { value: await fn(), error: undefined, timedOut: expired }
  } catch (error) {
    return { value: undefined, error, timedOut: expired }
  } finally {
    deadline = Number.POSITIVE_INFINITY
  }
}

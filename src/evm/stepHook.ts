/**
 * A cheaper `step` hook for tracing. ethereumjs' own hook (Interpreter
 * _runStepHook) builds an event object per opcode with a copy of the whole stack AND of the whole
 * memory, then awaits an async emit — a copy of a megabyte of memory per opcode even for the
 * callTracer, which never looks at it. Wrapped (evmPatches.ts, on every thread), the hook hands
 * the active consumer a step whose `stack` and `memory` are copied only when read, and calls it
 * directly.
 *
 *   interpreter ─ listenerCount('step') > 0 ─▶ _runStepHook ─ consumer set? ─▶ consumer(LazyStep)
 *                                                           └─ no ───────────▶ ethereumjs' event
 *
 * The interpreter still checks that a `step` listener exists before calling the hook, so the
 * tracer registers a no-op listener alongside the consumer. One more step geth logs and
 * ethereumjs never runs: when execution runs off the end of the code, geth's interpreter reads a
 * STOP there (Contract.GetOp past the end) and logs it; the wrapped Interpreter.run hands the
 * consumer that STOP too. With no consumer set, ethereumjs' event is emitted as before.
 */
import type { InterpreterStep } from '@ethereumjs/evm'

// biome-ignore lint/suspicious/noExplicitAny: ethereumjs' interpreter internals are untyped
type Interp = any

/** Where the patched interpreter keeps a frame's environment (its `_env` reads empty once finished). */
export const INTERPRETER_ENV = Symbol('ibex.interpreter.env')

/** The environment of a frame's interpreter (its address, contract, depth, …), finished or not. */
export function envOf(interp: { _env: unknown }): unknown {
  const i = interp as Interp
  return INTERPRETER_ENV in i ? i[INTERPRETER_ENV] : i._env
}

export type StepConsumer = (step: InterpreterStep) => void | Promise<void>

let consumer: StepConsumer | undefined
const OP_STOP = 0x00
/** Opcodes that end a frame themselves: after them there is no implicit STOP. */
const HALTING_OPS = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff])

/** The fields of ethereumjs' step event, read from the interpreter when asked. */
class LazyStep {
  readonly #interp: Interp
  readonly #memoryWords: bigint
  readonly pc: number
  readonly gasLeft: bigint
  readonly gasRefund: bigint
  readonly depth: number
  readonly opcode: { name: string; fee: number; dynamicFee: bigint; isAsync: boolean; code: number }

  constructor(interp: Interp, dynamicFee: bigint, gasLeft: bigint, memoryWords: bigint, opCode?: number) {
    const rs = interp._runState
    const info = interp.lookupOpInfo(opCode ?? rs.opCode).opcodeInfo
    this.#interp = interp
    this.#memoryWords = memoryWords
    this.pc = rs.programCounter
    this.gasLeft = gasLeft
    this.gasRefund = rs.gasRefund
    this.depth = (envOf(interp) as Interp).depth
    this.opcode = { name: info.fullName, fee: info.fee, dynamicFee, isAsync: info.isAsync, code: info.code }
  }

  /** A copy of the stack, bottom first. */
  get stack(): bigint[] {
    return this.#interp._runState.stack.getStack()
  }

  /** Stack height, without copying the stack (not in ethereumjs' event: read with stackLength()). */
  get stackLength(): number {
    return this.#interp._runState.stack.length
  }

  /** A copy of memory as it was before this opcode expanded it. */
  get memory(): Uint8Array {
    return this.#interp._runState.memory._store.slice(0, Number(this.#memoryWords) * 32)
  }

  get memoryWordCount(): bigint {
    return this.#memoryWords
  }

  get address() {
    return (envOf(this.#interp) as Interp).address
  }

  get account() {
    return (envOf(this.#interp) as Interp).contract
  }

  get codeAddress() {
    return (envOf(this.#interp) as Interp).codeAddress
  }

  get stateManager() {
    return this.#interp._runState.stateManager
  }
}

/** True while a consumer is set: the patched _runStepHook hands it the steps. */
export function hasStepConsumer(): boolean {
  return consumer !== undefined
}

/** The step of `interp` handed to the consumer (the patched Interpreter._runStepHook). */
export function consumeStep(
  interp: Interp,
  dynamicFee: bigint,
  gasLeft: bigint,
  memorySize: bigint,
): void | Promise<void> {
  return consumer?.(new LazyStep(interp, dynamicFee, gasLeft, memorySize) as unknown as InterpreterStep)
}

/**
 * After a frame of `interp` finished (the patched Interpreter.run): when it ran off the end of
 * its code without error, the STOP geth logs there, handed to the consumer.
 */
export function implicitStop(interp: Interp, exceptionError: unknown): void | Promise<void> {
  if (consumer === undefined || exceptionError !== undefined) return
  const rs = interp._runState
  if (rs.code.length === 0 || rs.programCounter < rs.code.length || HALTING_OPS.has(rs.opCode)) return
  return consumer(
    new LazyStep(interp, 0n, interp.getGasLeft(), rs.memoryWordCount, OP_STOP) as unknown as InterpreterStep,
  )
}

/** Sets (or clears) the function every opcode of this thread's EVMs is handed to. */
export function setStepConsumer(fn: StepConsumer | undefined): void {
  consumer = fn
}

/** The stack height of a step: without a copy when the step came from this hook. */
export function stackLength(step: InterpreterStep): number {
  const lazy = (step as { stackLength?: number }).stackLength
  return lazy ?? step.stack.length
}

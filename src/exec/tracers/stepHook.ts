/**
 * A cheaper `step` hook for tracing in worker threads. ethereumjs' own hook (Interpreter
 * _runStepHook) builds an event object per opcode with a copy of the whole stack AND of the whole
 * memory, then awaits an async emit — a copy of a megabyte of memory per opcode even for the
 * callTracer, which never looks at it. Wrapped here, the hook hands the active consumer a step
 * whose `stack` and `memory` are copied only when read, and calls it directly.
 *
 *   interpreter ─ listenerCount('step') > 0 ─▶ _runStepHook ─ consumer set? ─▶ consumer(LazyStep)
 *                                                           └─ no ───────────▶ ethereumjs' event
 *
 * The interpreter still checks that a `step` listener exists before calling the hook, so the
 * tracer registers a no-op listener alongside the consumer. One more step geth logs and
 * ethereumjs never runs: when execution runs off the end of the code, geth's interpreter reads a
 * STOP there (Contract.GetOp past the end) and logs it; the wrapped Interpreter.run hands the
 * consumer that STOP too. Without install (in-process
 * execution), tracers get ethereumjs' event as before: the results are the same.
 */
import type { InterpreterStep } from '@ethereumjs/evm'
import { envOf } from '../leanRun.js'

export type StepConsumer = (step: InterpreterStep) => void | Promise<void>

let consumer: StepConsumer | undefined
const OP_STOP = 0x00
/** Opcodes that end a frame themselves: after them there is no implicit STOP. */
const HALTING_OPS = new Set([0x00, 0xf3, 0xfd, 0xfe, 0xff])
let installed: Promise<boolean> | undefined
let ready = false

// biome-ignore lint/suspicious/noExplicitAny: ethereumjs' interpreter internals are untyped
type Interp = any

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

/** Wraps the interpreter's step hook (once per thread); true when done. */
export function installStepHook(): Promise<boolean> {
  installed ??= (async () => {
    const entry = import.meta.resolve('@ethereumjs/evm')
    const { Interpreter } = (await import(new URL('./interpreter.js', entry).href)) as { Interpreter: { prototype: Interp } }
    const original = Interpreter.prototype._runStepHook
    const run = Interpreter.prototype.run
    if (typeof original !== 'function' || typeof run !== 'function') return false
    Interpreter.prototype._runStepHook = function (this: Interp, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint) {
      if (consumer === undefined) return original.call(this, dynamicFee, gasLeft, memorySize)
      return consumer(new LazyStep(this, dynamicFee, gasLeft, memorySize) as unknown as InterpreterStep)
    }
    Interpreter.prototype.run = async function (this: Interp, code: Uint8Array, opts?: unknown) {
      const result = await run.call(this, code, opts)
      const rs = this._runState
      const ranOffTheEnd =
        consumer !== undefined &&
        result.exceptionError === undefined &&
        rs.code.length > 0 &&
        rs.programCounter >= rs.code.length &&
        !HALTING_OPS.has(rs.opCode)
      if (ranOffTheEnd) {
        const stop = consumer?.(new LazyStep(this, 0n, this.getGasLeft(), rs.memoryWordCount, OP_STOP) as unknown as InterpreterStep)
        if (stop !== undefined) await stop
      }
      return result
    }
    ready = true
    return true
  })()
  return installed
}

/** True once installStepHook() has completed in this thread. */
export function stepHookReady(): boolean {
  return ready
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

/**
 * ethereumjs' EVM.runInterpreter spreads the interpreter's whole run state (memory, stack, code,
 * state manager, …) into every frame's result (`execResult.runState`), and V8 makes that copy
 * slowly: ~20% of a view eth_call (`bench/call-cost.ts`). What ethereumjs reads from the run
 * state there is three numbers: gas left, the refund counter and the spilled state gas. The
 * wrapper installed here hands runInterpreter a run state of just those, so the copy is small.
 *
 * What changes: `execResult.runState` of a frame no longer carries memory, stack or program
 * counter (nothing in ibex or ethereumjs' VM reads them there; tracers read the live interpreter
 * through step events). Gas, refunds, return data and errors are untouched (src/exec/call.test.ts
 * runs the same messages with the wrapper on and off).
 */

interface RunResult {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }
  exceptionError: unknown
}

interface InterpreterClass {
  prototype: { run(code: Uint8Array, opts?: unknown): Promise<RunResult> }
}

/** Where an interpreter keeps its environment, and the mark of a finished frame. */
const ENV = Symbol('ibex.interpreter.env')
const FINISHED = Symbol('ibex.interpreter.finished')
const FINISHED_ENV = Object.freeze({})

interface LeanInterpreter {
  [ENV]?: unknown
  [FINISHED]?: true
  _env: unknown
}

/** The environment of a frame's interpreter (its address, contract, depth, …), finished or not. */
export function envOf(interp: { _env: unknown }): unknown {
  const lean = interp as LeanInterpreter
  return ENV in lean ? lean[ENV] : lean._env
}

let lean = true
let installed: Promise<void> | undefined

/** Turns the lean result on or off (tests compare both). */
export function setLeanRunResults(on: boolean): void {
  lean = on
}

/** Wraps ethereumjs' Interpreter.run (once per thread). */
export function installLeanRun(): Promise<void> {
  installed ??= (async () => {
    const entry = import.meta.resolve('@ethereumjs/evm')
    const { Interpreter } = (await import(new URL('./interpreter.js', entry).href)) as { Interpreter: InterpreterClass }
    const run = Interpreter.prototype.run
    // `_env` reads the environment while the frame runs, an empty object once it finished
    Object.defineProperty(Interpreter.prototype, '_env', {
      configurable: true,
      get(this: LeanInterpreter): unknown {
        return this[FINISHED] === true ? FINISHED_ENV : this[ENV]
      },
      set(this: LeanInterpreter, env: unknown) {
        this[ENV] = env
      },
    })
    Interpreter.prototype.run = async function (this: LeanInterpreter, code: Uint8Array, opts?: unknown): Promise<RunResult> {
      const out = await run.call(this, code, opts)
      if (!lean) return out
      this[FINISHED] = true
      const rs = out.runState
      return {
        runState: { gasLeft: rs.gasLeft, gasRefund: rs.gasRefund, stateGasSpilled: rs.stateGasSpilled },
        exceptionError: out.exceptionError,
      }
    }
  })()
  return installed
}

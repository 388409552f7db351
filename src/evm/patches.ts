/**
 * Every change ibex makes to ethereumjs' EVM, in one place. The prototype patches are installed
 * once per thread, starting when this module is first imported; whatever builds a VM awaits
 * installEvmPatches() first (vm.ts: createChainVM, newVM), so every VM ibex runs is patched.
 * Installing again (another import, another call) changes nothing. The instance helpers at the end change one
 * object for one run and are the only other way ibex reaches into ethereumjs.
 *
 *   import ─▶ version check (throws for any @ethereumjs/evm but EVM_VERSION)
 *          ─▶ load Interpreter ─▶ prototype: run, _env, runStep, _runStepHook,
 *             _getValidJumpDestinations wrapped (marked, so never twice) ─▶ installEvmPatches() resolves
 *
 * | patch                                  | what it changes                                              | why |
 * |----------------------------------------|--------------------------------------------------------------|-----|
 * | Interpreter.run (lean frame result)    | a frame's `execResult.runState` keeps gasLeft, gasRefund and stateGasSpilled only | ethereumjs spreads the whole run state into every result: ~20% of a view eth_call (bench/call-cost.ts) |
 * | Interpreter._env (accessor)            | reads an empty object once the frame finished; envOf() still reads it | the lean result must not keep the environment alive; tracers read it live |
 * | Interpreter.run (implicit STOP)        | a tracer consumer sees the STOP geth logs when code runs off its end | geth's structLogger logs it; ethereumjs never runs it |
 * | Interpreter.runStep (deadline)         | every DEADLINE_CHECK_OPS opcodes, checks the task's deadline and throws EvmDeadlineError past it | no timer can fire inside ethereumjs' opcode loop; a worker must stop its own work (src/evm/deadline.ts) |
 * | Interpreter._runStepHook (lazy step)   | with a consumer set, hands it a step whose stack and memory are copied only when read | ethereumjs copies the whole stack and memory per opcode (src/evm/stepHook.ts) |
 * | Interpreter._getValidJumpDestinations  | the jump analysis of a code is kept per code and opcode table | ethereumjs scans the whole code per frame: a tenth of a token call (jumpCache.ts) |
 *
 * Instance helpers (one object, one run): unsignedSender (an unsigned message's sender),
 * allowSenderWithCode (geth's calls skip EIP-3607), warmOnFirstUse (geth's simulator warms the
 * fork's precompiles, moved or not), replacePrecompiles (state overrides move precompiles).
 *
 * What must hold: with no tracer consumer, no deadline and no instance helper, every patched
 * method returns what ethereumjs' own returns (jumpCache.test.ts, call.test.ts and the fast
 * interpreter's differential tests run through the patched EVM). A new @ethereumjs/evm version
 * must be read against these patches before EVM_VERSION is moved: the module throws at start
 * otherwise.
 */
import { readFileSync } from 'node:fs'
import type { EVM } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Account, type Address, KECCAK256_NULL } from '@ethereumjs/util'
import { jumpAnalysis } from './jumpCache.js'
import { DEADLINE_CHECK_OPS, checkEvmDeadline } from './deadline.js'
import { consumeStep, hasStepConsumer, implicitStop, INTERPRETER_ENV as ENV } from './stepHook.js'

/** The @ethereumjs/evm version these patches were written against (package.json pins it). */
export const EVM_VERSION = '10.1.3'

/** The installed @ethereumjs/evm is not the one the patches were written for. */
export class EvmVersionError extends Error {
  constructor(found: string) {
    super(
      `@ethereumjs/evm ${found} is installed; ibex's EVM patches (src/evm/patches.ts) were written for ${EVM_VERSION}`,
    )
    this.name = 'EvmVersionError'
  }
}

interface RunResult {
  runState: { gasLeft: bigint; gasRefund: bigint; stateGasSpilled?: bigint }
  exceptionError: unknown
}

// biome-ignore lint/suspicious/noExplicitAny: ethereumjs' interpreter internals are untyped
type Interp = any

interface InterpreterPrototype {
  run(this: Interp, code: Uint8Array, opts?: unknown): Promise<RunResult>
  runStep(this: Interp, op?: unknown): Promise<void>
  _runStepHook(this: Interp, dynamicFee: bigint, gasLeft: bigint, memorySize: bigint): void | Promise<void>
  _getValidJumpDestinations(this: Interp, code: Uint8Array): unknown
}

/** Marks the prototype once patched (a second copy of this module finds it and does nothing). */
const PATCHED = Symbol.for('ibex.evmPatches')
/** The mark of a finished frame, and what its `_env` reads then. */
const FINISHED = Symbol.for('ibex.interpreter.finished')
const FINISHED_ENV = Object.freeze({})
/** An EVM whose frames keep ethereumjs' full run state in their results (keepFullFrameResults). */
const FULL_RESULTS = Symbol.for('ibex.evm.fullFrameResults')

/** Throws EvmVersionError unless `found` is the version the patches were written for. */
export function assertEvmVersion(found: string): void {
  if (found !== EVM_VERSION) throw new EvmVersionError(found)
}

const entry = import.meta.resolve('@ethereumjs/evm')
assertEvmVersion(
  (JSON.parse(readFileSync(new URL('../../package.json', entry), 'utf8')) as { version: string }).version,
)

/**
 * The patches, installed: started at import, awaited by whatever builds a VM (vm.ts) or runs EVM
 * tasks (pool/context.ts). The Interpreter class is not exported, so it is loaded from the file
 * next to the package entry (the same module instance the EVM uses) — asynchronously: a
 * top-level await here would break loading the worker entry points, which Piscina first tries
 * with require().
 */
const installed: Promise<InterpreterPrototype> = import(new URL('./interpreter.js', entry).href).then(
  ({ Interpreter }: { Interpreter: { prototype: InterpreterPrototype & { [PATCHED]?: InterpreterPrototype } } }) => {
    const proto = Interpreter.prototype
    const own = proto[PATCHED]
    if (own !== undefined) return own
    const original = {
      run: proto.run,
      runStep: proto.runStep,
      _runStepHook: proto._runStepHook,
      _getValidJumpDestinations: proto._getValidJumpDestinations,
    }
    install(proto, original)
    return original
  },
)

/** Resolves once the patches are in place (at once after the first time). */
export async function installEvmPatches(): Promise<void> {
  await installed
}

/** ethereumjs' own interpreter methods, unwrapped (differential tests compare against them). */
export function ethereumjsInterpreter(): Promise<InterpreterPrototype> {
  return installed
}

function install(proto: InterpreterPrototype, original: InterpreterPrototype): void {
  Object.defineProperty(proto, PATCHED, { value: original })
  // `_env`: the environment while the frame runs, an empty object once it finished
  Object.defineProperty(proto, '_env', {
    configurable: true,
    get(this: Interp): unknown {
      return this[FINISHED] === true ? FINISHED_ENV : this[ENV]
    },
    set(this: Interp, env: unknown) {
      this[ENV] = env
    },
  })
  proto.run = async function (this: Interp, code: Uint8Array, opts?: unknown): Promise<RunResult> {
    const out = await original.run.call(this, code, opts)
    const stop = implicitStop(this, out.exceptionError)
    if (stop !== undefined) await stop
    if (this._evm[FULL_RESULTS] === true) return out
    this[FINISHED] = true
    const rs = out.runState
    return {
      runState: { gasLeft: rs.gasLeft, gasRefund: rs.gasRefund, stateGasSpilled: rs.stateGasSpilled },
      exceptionError: out.exceptionError,
    }
  }
  let ops = 0
  proto.runStep = function (this: Interp, op?: unknown): Promise<void> {
    if (++ops >= DEADLINE_CHECK_OPS) {
      ops = 0
      checkEvmDeadline()
    }
    return original.runStep.call(this, op)
  }
  proto._runStepHook = function (
    this: Interp,
    dynamicFee: bigint,
    gasLeft: bigint,
    memorySize: bigint,
  ): void | Promise<void> {
    if (!hasStepConsumer()) return original._runStepHook.call(this, dynamicFee, gasLeft, memorySize)
    return consumeStep(this, dynamicFee, gasLeft, memorySize)
  }
  proto._getValidJumpDestinations = function (this: Interp, code: Uint8Array): unknown {
    return jumpAnalysis(code, this._evm._opcodeMap, () => original._getValidJumpDestinations.call(this, code))
  }
}

/** Makes `evm`'s frame results carry ethereumjs' whole run state (`on`) or the lean one (tests compare both). */
export function keepFullFrameResults(evm: EVM, on = true): void {
  ;(evm as unknown as Record<symbol, boolean>)[FULL_RESULTS] = on
}

/** An unsigned message's sender: whoever the caller says (eth_call, debug_traceCall). */
export function unsignedSender(tx: TypedTransaction, from: Address): void {
  ;(tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => from
}

/**
 * geth runs calls and simulations without the EIP-3607 check (a contract may be the sender);
 * runTx refuses such a sender. Until `done()`, the first read of `sender`'s account through
 * `sm.getAccount` — runTx's check — answers a copy whose code hash reads as "no code" once,
 * then as the real one (so what runTx writes back keeps the code).
 */
export function allowSenderWithCode(
  sm: { getAccount(a: Address): Promise<Account | undefined> },
  sender: Address,
): () => void {
  const getAccount = sm.getAccount
  sm.getAccount = async function (this: unknown, address: Address) {
    const account = await getAccount.call(sm, address)
    if (account === undefined || !address.equals(sender)) return account
    sm.getAccount = getAccount
    let real = account.codeHash
    let first = true
    Object.defineProperty(account, 'codeHash', {
      configurable: true,
      get: () => {
        if (!first) return real
        first = false
        return KECCAK256_NULL
      },
      set: (codeHash: Uint8Array) => {
        real = codeHash
      },
    })
    return account
  }
  return () => {
    sm.getAccount = getAccount
  }
}

/**
 * Warms `addresses` with the first address runTx warms (geth's simulator warms the fork's
 * precompile addresses even when an override moved them), until `done()`.
 */
export function warmOnFirstUse(evm: EVM, addresses: readonly string[]): () => void {
  const journal = evm.journal as unknown as { addAlwaysWarmAddress(a: string, toList?: boolean): void }
  const add = journal.addAlwaysWarmAddress
  let warmed = false
  journal.addAlwaysWarmAddress = (a: string, toList?: boolean) => {
    if (!warmed) {
      warmed = true
      for (const w of addresses) add.call(journal, w)
    }
    add.call(journal, a, toList)
  }
  return () => {
    journal.addAlwaysWarmAddress = add
  }
}

/** Replaces `evm`'s precompile table (a state override moved or added one). */
export function replacePrecompiles(evm: EVM, precompiles: Map<string, unknown>): void {
  ;(evm as unknown as { _precompiles: Map<string, unknown> })._precompiles = precompiles
}

/**
 * Message calls of the fast interpreter: CALL, CALLCODE, DELEGATECALL and STATICCALL (gas as
 * ethereumjs' callFamilyGas computes it: memory, EIP-2929 access, value transfer 9000, new account
 * 25000, all-but-one-64th, stipend 2300), and `message`, which runs one message in a pooled frame
 * at its depth: value transfer, precompile (ethereumjs' own, synchronous ones) or code, and the
 * revert of everything the message changed when it does not succeed.
 */
import type { EVM, ExecResult } from '@ethereumjs/evm'
import { analyze } from './analysis.js'
import {
  expandMemory,
  type Frame,
  frameAt,
  OUT_OF_GAS,
  ST_OK,
  ST_REVERT,
  STACK_UNDERFLOW,
  STATIC_CHANGE,
} from './frame.js'
import { type CallContext, runFrame } from './interpreter.js'
import { accessAccount } from './ops.js'
import { addressKey, BailOut } from './world.js'

/** A precompile failed: its error string is in `lastError`. */
export const ST_PRECOMPILE_ERROR = 8

const EMPTY = new Uint8Array(0)
const ADDRESS_MASK = (1n << 160n) - 1n

/** What the last `message` left (the interpreter runs one message at a time per thread). */
export let lastGasLeft = 0
export let lastOutput: Uint8Array = EMPTY
export let lastError = ''

type RunPrecompile = (code: unknown, data: Uint8Array, gasLimit: bigint) => Promise<ExecResult> | ExecResult

function runPrecompile(evm: EVM, fn: unknown, data: Uint8Array, gas: number): number {
  // ethereumjs' async precompiles (KZG, BLS) would need the event loop: not here
  if ((fn as { constructor: { name: string } }).constructor.name === 'AsyncFunction')
    throw new BailOut('async precompile')
  const result = (evm as unknown as { runPrecompile: RunPrecompile }).runPrecompile.call(evm, fn, data, BigInt(gas))
  if (result instanceof Promise) {
    result.catch(() => undefined)
    throw new BailOut('async precompile')
  }
  lastGasLeft = gas - Number(result.executionGasUsed)
  lastOutput = result.returnValue
  const err = result.exceptionError?.error
  if (err === undefined) return ST_OK
  lastError = err
  return err === 'revert' ? ST_REVERT : ST_PRECOMPILE_ERROR
}

/** True for an EIP-7702 delegation designator (0xef0100 ‖ address). */
export function isDelegation(code: Uint8Array): boolean {
  return code.length >= 3 && code[0] === 0xef && code[1] === 0x01 && code[2] === 0x00
}

/**
 * Runs one message at `depth`: `value` moves from `callerKey` to `toKey` when `transfer`, then the
 * code of `codeKey` runs in `toKey`'s context. Returns the status; gas left and output in
 * lastGasLeft / lastOutput. Everything the message changed is reverted unless it succeeds.
 */
export function message(
  ctx: CallContext,
  depth: number,
  caller: bigint,
  callerKey: string,
  toKey: string,
  toWord: bigint,
  codeKey: string,
  value: bigint,
  transfer: boolean,
  data: Uint8Array,
  isStatic: boolean,
  gas: number,
): number {
  const world = ctx.world
  const snapshot = world.snapshot()
  if (transfer && value !== 0n) {
    const from = world.account(callerKey)
    if (from.balance < value) throw new BailOut('transfer beyond balance')
    world.setBalance(from, from.balance - value)
    const to = world.account(toKey)
    world.setBalance(to, to.balance + value)
  }
  let status: number
  const precompile = ctx.rules.precompiles.get(codeKey)
  if (precompile !== undefined) {
    status = runPrecompile(ctx.evm, precompile, data, gas)
  } else {
    const code = world.code(world.account(codeKey))
    if (code.length === 0) {
      lastGasLeft = gas
      lastOutput = EMPTY
      return ST_OK
    }
    if (isDelegation(code)) throw new BailOut('EIP-7702 delegated code')
    const f = frameAt(depth)
    f.enter(code, analyze(code), toKey, toWord, world.account(toKey), caller, value, data, isStatic, gas)
    try {
      status = runFrame(ctx, f)
      lastGasLeft = f.gas
      lastOutput = f.output
    } finally {
      f.release()
    }
  }
  if (status !== ST_OK) world.revert(snapshot)
  return status
}

/** CALL (0xf1), CALLCODE (0xf2), DELEGATECALL (0xf4), STATICCALL (0xfa). */
export function opCall(ctx: CallContext, f: Frame, op: number): void {
  const s = f.stack
  const sp = f.sp
  const withValue = op === 0xf1 || op === 0xf2
  const need = withValue ? 7 : 6
  if (sp < need) throw STACK_UNDERFLOW
  const requested = s[sp - 1] as bigint
  const toWord = (s[sp - 2] as bigint) & ADDRESS_MASK
  let i = sp - 3
  const value = withValue ? (s[i--] as bigint) : 0n
  const inOff = s[i] as bigint
  const inLen = s[i - 1] as bigint
  const outOff = s[i - 2] as bigint
  const outLen = s[i - 3] as bigint
  if (op === 0xf1 && f.isStatic && value !== 0n) throw STATIC_CHANGE
  const rules = ctx.rules
  const world = ctx.world
  let cost = rules.fee[op] as number
  cost += expandMemory(f, rules.memoryGas, rules.quadDiv, inOff, inLen)
  cost += expandMemory(f, rules.memoryGas, rules.quadDiv, outOff, outLen)
  const toKey = addressKey(toWord)
  cost += accessAccount(ctx, toKey)
  if (withValue && value !== 0n) cost += rules.callValue
  const target = world.account(toKey)
  if (op === 0xf1 && value !== 0n && target.isEmpty()) cost += rules.callNewAccount
  if (isDelegation(world.code(target))) throw new BailOut('call to an EIP-7702 delegated account')
  if (cost > f.gas) throw OUT_OF_GAS
  const available = f.gas - cost
  const allowed = available - Math.floor(available / 64)
  let gas = requested < BigInt(allowed) ? Number(requested) : allowed
  f.gas = available
  f.sp = sp - need
  const data = inLen === 0n ? EMPTY : f.mem.subarray(Number(inOff), Number(inOff) + Number(inLen))
  if (withValue && value !== 0n) {
    f.gas += rules.callStipend
    gas += rules.callStipend
  }
  f.returnData = EMPTY
  const account = f.account as NonNullable<Frame['account']>
  let status: number
  if (f.depth >= rules.callDepth || (op !== 0xf4 && account.balance < value)) {
    status = -1
  } else {
    const depth = f.depth + 1
    if (op === 0xf1)
      status = message(ctx, depth, f.addressWord, f.address, toKey, toWord, toKey, value, true, data, f.isStatic, gas)
    else if (op === 0xfa)
      status = message(ctx, depth, f.addressWord, f.address, toKey, toWord, toKey, 0n, false, data, true, gas)
    else if (op === 0xf2)
      status = message(
        ctx,
        depth,
        f.addressWord,
        f.address,
        f.address,
        f.addressWord,
        toKey,
        value,
        true,
        data,
        f.isStatic,
        gas,
      )
    else
      status = message(ctx, depth, f.caller, '', f.address, f.addressWord, toKey, f.value, false, data, f.isStatic, gas)
    f.gas -= gas - lastGasLeft
    if (status === ST_OK || status === ST_REVERT) f.returnData = lastOutput
  }
  s[f.sp++] = status === ST_OK ? 1n : 0n
  const ret = f.returnData
  if (ret.length > 0) {
    const n = outLen < BigInt(ret.length) ? Number(outLen) : ret.length
    if (n > 0) f.mem.set(ret.subarray(0, n), Number(outOff))
  }
}

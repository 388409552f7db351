/**
 * eth_call and eth_estimateGas: a message executed on the state of a block, never committed.
 * Follows geth's rules (internal/ethapi): missing gas = the RPC gas cap; no fee fields =
 * price 0 and no base-fee check (BASEFEE reads 0, as in geth); nonce and EOA checks skipped;
 * the sender's balance must cover gas × price + value; the block gas limit does not bind.
 *
 * Each attempt is one runMessage (runMessage.ts: the fast interpreter first, ethereumjs where it
 * declines), on the VM and state kept for the block's root (callState.ts), so nothing leaks
 * between attempts or into the chain. Time limits are the worker's EVM deadline (src/evm/deadline.ts).
 */
import { Address } from '@ethereumjs/util'
import type { ChainBlock } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import {
  ExecutionError,
  ExecutionRevertedError,
  feeStylesError,
  GasAllowanceExceededError,
  InsufficientFundsForTransferError,
  IntrinsicGasError,
} from './errors.js'
import { type CallOutcome, type CallRequest, type Env, runMessage } from './runMessage.js'

export type { CallOutcome, CallRequest, Env } from './runMessage.js'

export interface CallLimits {
  gasCap: bigint
  /** How long the message may run (the pool's task deadline). */
  timeoutMs: number
}

const ZERO_ADDRESS = new Address(new Uint8Array(20))
/** Gas stipend added by geth's optimistic estimate (params.CallStipend). */
const CALL_STIPEND = 2300n
/** geth stops the estimate's binary search when within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015
const TX_GAS = 21_000n

/** EIP-7825 (Osaka): no transaction may have more gas than this. */
export const MAX_TX_GAS = 1n << 24n

/** The most gas a message may carry in `block` (the Osaka per-transaction cap, else none). */
export function txGasCap(block: ChainBlock): bigint | undefined {
  return block.header.common.isActivatedEIP(7825) ? MAX_TX_GAS : undefined
}

export function callGas(req: CallRequest, limits: CallLimits, block: ChainBlock): bigint {
  let gas = req.gas ?? limits.gasCap
  if (limits.gasCap > 0n && gas > limits.gasCap) gas = limits.gasCap
  const cap = txGasCap(block)
  return cap !== undefined && gas > cap ? cap : gas
}

/**
 * eth_call: return data, or ExecutionRevertedError / ExecutionError. Repeats are answered before
 * this runs, from the result cache of the thread that schedules calls (ExecPool.call, callCache.ts).
 */
export async function call(env: Env, req: CallRequest, limits: CallLimits): Promise<Uint8Array> {
  const msg = asMessage(req)
  const outcome = await runMessage(env, msg, callGas(msg, limits, env.block), { want: 'output' })
  if (outcome.reverted) throw new ExecutionRevertedError(outcome.returnValue)
  if (outcome.error !== undefined) throw new ExecutionError(outcome.error)
  return outcome.returnValue
}

/** An estimate's attempts read the gas used, refunds included: the ethereumjs layer answers them. */
const GAS = { want: 'gas' } as const

/**
 * geth's CallDefaults for eth_call and eth_estimateGas: both fee styles are refused before
 * anything runs, and the message's nonce is dropped — geth skips nonce checks for calls and
 * derives a created address from the sender's nonce in state, so a given nonce changes nothing
 * (and one at 2^64-1, which no transaction can carry, must not reach the transaction builder).
 */
function asMessage(req: CallRequest): CallRequest {
  const conflict = feeStylesError(req)
  if (conflict !== undefined) throw conflict
  return req.nonce === undefined ? req : { ...req, nonce: undefined }
}

/**
 * One attempt of the estimate at `gas`: geth's gasestimator treats an intrinsic-gas refusal as
 * a failed attempt (raise the gas), not as the answer.
 */
async function attempt(env: Env, req: CallRequest, gas: bigint): Promise<CallOutcome | undefined> {
  try {
    return await runMessage(env, req, gas, GAS)
  } catch (err) {
    if (err instanceof IntrinsicGasError) return undefined
    throw err
  }
}

/** eth_estimateGas: geth's binary search for the lowest gas that does not fail. */
export async function estimateGas(env: Env, request: CallRequest, limits: CallLimits): Promise<bigint> {
  const req = asMessage(request)
  let hi = req.gas !== undefined && req.gas >= TX_GAS ? req.gas : env.block.header.gasLimit
  if (limits.gasCap > 0n && hi > limits.gasCap) hi = limits.gasCap
  const txCap = txGasCap(env.block)
  if (txCap !== undefined && hi > txCap) hi = txCap
  const feeCap = req.gasPrice ?? req.maxFeePerGas ?? 0n
  if (feeCap > 0n) {
    const sm = stateAt(env.db, env.common, env.block.header.stateRoot)
    const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
    const balance = (await sm.getAccount(from))?.balance ?? 0n
    const value = req.value ?? 0n
    // geth: the value must leave something to pay gas with (an empty sender fails even with no value)
    if (value >= balance) throw new InsufficientFundsForTransferError()
    const allowance = (balance - value) / feeCap
    if (hi > allowance) hi = allowance
  }
  // a plain transfer to an account without code costs exactly 21000
  if (req.to !== undefined && (req.data === undefined || req.data.length === 0)) {
    const sm = stateAt(env.db, env.common, env.block.header.stateRoot)
    const code = await sm.getCode(new Address(req.to))
    if (code.length === 0) {
      // any refusal here is raised again, with the real gas, by the attempt at `hi`
      const outcome = await runMessage(env, req, TX_GAS, GAS).catch(() => undefined)
      if (outcome !== undefined && outcome.error === undefined) return TX_GAS
    }
  }
  const top = await attempt(env, req, hi)
  if (top === undefined) throw new GasAllowanceExceededError(hi)
  if (top.error !== undefined) {
    if (top.reverted) throw new ExecutionRevertedError(top.returnValue)
    if (top.error === 'out of gas') throw new GasAllowanceExceededError(hi)
    throw new ExecutionError(top.error)
  }
  let lo = top.gasUsed - 1n
  // optimistic guess: what was used plus the stipend, scaled by 64/63 for nested calls
  const optimistic = ((top.gasUsed + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    const o = await runMessage(env, req, optimistic, GAS).catch(() => undefined)
    if (o !== undefined && o.error === undefined) hi = optimistic
    else lo = optimistic > lo ? optimistic : lo
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n // the answer is usually close to what was used
    const o = await runMessage(env, req, mid, GAS).catch(() => undefined)
    if (o === undefined || o.error !== undefined) lo = mid
    else hi = mid
  }
  return hi
}

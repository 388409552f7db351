/**
 * eth_call and eth_estimateGas: a message executed on the state of a block, never committed.
 * Follows geth's rules (internal/ethapi): missing gas = the RPC gas cap; no fee fields =
 * price 0 and no base-fee check (BASEFEE reads 0, as in geth); nonce and EOA checks skipped;
 * the sender's balance must cover gas × price + value; the block gas limit does not bind.
 *
 * State overrides (balance, nonce, code, storage, a moved precompile) and block overrides apply to
 * every attempt (overrides.ts); geth's refusals of a message keep each method's wrapping
 * (eth_call `err: <why> (supplied gas N)`, eth_estimateGas `failed with N gas: <why>`).
 *
 * Each attempt is one runMessage (runMessage.ts: the fast interpreter first, ethereumjs where it
 * declines), on the VM and state kept for the block's root (callState.ts), so nothing leaks
 * between attempts or into the chain. Time limits are the worker's EVM deadline (src/evm/deadline.ts).
 */
import { Address } from '@ethereumjs/util'
import type { ChainBlock } from '../chain/store.js'
import {
  ExecutionError,
  ExecutionRevertedError,
  GasAllowanceExceededError,
  InsufficientFundsForTransferError,
  IntrinsicGasError,
  isMessageRefusal,
} from './errors.js'
import { blobGasOf, callDefaultsError, messagePrices } from './message.js'
import { blockOverridesError, type MessageOverrides, overriddenBaseFee } from './overrides.js'
import { type CallOutcome, type CallRequest, type Env, readOverriddenState, runMessage } from './runMessage.js'

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
/** geth's CallDefaults gas when the node sets no gas cap (math.MaxUint64 / 2). */
const UNCAPPED_CALL_GAS = ((1n << 64n) - 1n) / 2n

/** EIP-7825 (Osaka): no transaction may have more gas than this. */
export const MAX_TX_GAS = 1n << 24n

/** The most gas a message may carry in `block` (the Osaka per-transaction cap, else none). */
export function txGasCap(block: ChainBlock): bigint | undefined {
  return block.header.common.isActivatedEIP(7825) ? MAX_TX_GAS : undefined
}

export function callGas(req: CallRequest, limits: CallLimits, block: ChainBlock): bigint {
  let gas = req.gas ?? (limits.gasCap > 0n ? limits.gasCap : UNCAPPED_CALL_GAS)
  if (limits.gasCap > 0n && gas > limits.gasCap) gas = limits.gasCap
  const cap = txGasCap(block)
  return cap !== undefined && gas > cap ? cap : gas
}

/**
 * eth_call: return data, or ExecutionRevertedError / ExecutionError. Repeats are answered before
 * this runs, from the result cache of the thread that schedules calls (ExecPool.call, callCache.ts).
 * A message geth's ApplyMessage refuses answers as geth's doCall words it: `err: <why> (supplied gas N)`.
 */
export async function call(
  env: Env,
  req: CallRequest,
  limits: CallLimits,
  overrides?: MessageOverrides,
): Promise<Uint8Array> {
  const msg = asMessage(env, req, overrides)
  const gas = callGas(msg, limits, env.block)
  let outcome: CallOutcome
  try {
    outcome = await runMessage(env, msg, gas, { want: 'output', overrides })
  } catch (err) {
    if (isMessageRefusal(err))
      throw new ExecutionError(`err: ${err.shortMessage} (supplied gas ${gas})`, { cause: err })
    throw err
  }
  if (outcome.reverted) throw new ExecutionRevertedError(outcome.returnValue)
  if (outcome.error !== undefined) throw new ExecutionError(outcome.error)
  return outcome.returnValue
}

/** An estimate's attempts read the gas used, refunds included: the ethereumjs layer answers them. */
const GAS = { want: 'gas' } as const

/**
 * geth's BlockOverrides.Apply and CallDefaults for every call method: refused block overrides,
 * both fee styles and a foreign chain id are answered before anything runs; the message's nonce
 * is dropped — geth skips nonce checks for calls and derives a created address from the
 * sender's nonce in state, so a given nonce changes nothing.
 */
export function asMessage(env: Env, req: CallRequest, overrides?: MessageOverrides): CallRequest {
  const refused = blockOverridesError(overrides?.block) ?? callDefaultsError(req, env.block.header.common.chainId())
  if (refused !== undefined) throw refused
  return req.nonce === undefined ? req : { ...req, nonce: undefined }
}

/**
 * One attempt of the estimate at `gas`: geth's gasestimator treats an intrinsic-gas refusal as
 * a failed attempt (raise the gas), not as the answer.
 */
async function attempt(
  env: Env,
  req: CallRequest,
  gas: bigint,
  overrides: MessageOverrides | undefined,
): Promise<CallOutcome | undefined> {
  try {
    return await runMessage(env, req, gas, { ...GAS, overrides })
  } catch (err) {
    if (err instanceof IntrinsicGasError) return undefined
    // geth's gasestimator.run: `failed with <gas> gas: <why>`
    if (isMessageRefusal(err)) throw new ExecutionError(`failed with ${gas} gas: ${err.shortMessage}`, { cause: err })
    throw err
  }
}

/** One probe of the binary search: true when the message succeeds with `gas`. */
async function succeeds(env: Env, req: CallRequest, gas: bigint, overrides: MessageOverrides | undefined) {
  const o = await runMessage(env, req, gas, { ...GAS, overrides }).catch(() => undefined)
  return o !== undefined && o.error === undefined
}

/** eth_estimateGas: geth's binary search for the lowest gas that does not fail (eth/gasestimator). */
export async function estimateGas(
  env: Env,
  request: CallRequest,
  limits: CallLimits,
  overrides?: MessageOverrides,
): Promise<bigint> {
  const req = asMessage(env, request, overrides)
  const gasLimit = overrides?.block?.gasLimit ?? env.block.header.gasLimit
  let hi = req.gas !== undefined && req.gas >= TX_GAS ? req.gas : gasLimit
  const txCap = txGasCap(env.block)
  if (txCap !== undefined && hi > txCap) hi = txCap
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  const facts = await readOverriddenState(env, overrides, async (sm) => ({
    balance: (await sm.getAccount(from))?.balance ?? 0n,
    plainTransfer:
      req.to !== undefined &&
      (req.data === undefined || req.data.length === 0) &&
      (await sm.getCode(new Address(req.to))).length === 0,
  }))
  const { feeCap, blobFeeCap } = messagePrices(req, overriddenBaseFee(env.block.header, overrides?.block))
  if (feeCap > 0n) {
    const value = req.value ?? 0n
    // geth: the value must leave something to pay gas with (an empty sender fails even with no value)
    if (value >= facts.balance) throw new InsufficientFundsForTransferError()
    let available = facts.balance - value
    if (env.block.header.excessBlobGas !== undefined && (req.blobVersionedHashes?.length ?? 0) > 0) {
      const blobUsage = blobGasOf(req) * blobFeeCap
      if (blobUsage >= available) throw new ExecutionError('insufficient funds for gas * price + value')
      available -= blobUsage
    }
    const allowance = available / feeCap
    if (allowance < 1n << 64n && hi > allowance) hi = allowance
  }
  if (limits.gasCap > 0n && hi > limits.gasCap) hi = limits.gasCap
  // a plain transfer to an account without code costs exactly 21000; any refusal here is
  // raised again, with the real gas, by the attempt at `hi`
  if (facts.plainTransfer && (await succeeds(env, req, TX_GAS, overrides))) return TX_GAS
  const top = await attempt(env, req, hi, overrides)
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
    if (await succeeds(env, req, optimistic, overrides)) hi = optimistic
    else lo = optimistic > lo ? optimistic : lo
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n // the answer is usually close to what was used
    if (await succeeds(env, req, mid, overrides)) hi = mid
    else lo = mid
  }
  return hi
}

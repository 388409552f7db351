/**
 * eth_call and eth_estimateGas: a message executed on the state of a block, never committed.
 * Follows geth's rules (internal/ethapi): missing gas = the RPC gas cap; no fee fields =
 * price 0 and no base-fee check (BASEFEE reads 0, as in geth); nonce and EOA checks skipped;
 * the sender's balance must cover gas × price + value; the block gas limit does not bind.
 *
 * Each attempt runs on the VM and state manager kept for the block's root (callState.ts), inside
 * a checkpoint reverted afterwards, so nothing leaks between attempts or into the chain.
 */
import type { Common } from '@ethereumjs/common'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import type { Block } from '@ethereumjs/block'
import type { EVM } from '@ethereumjs/evm'
import { type Account, Address, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import { runTx } from '@ethereumjs/vm'
import type { Database } from '../chain/db.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import { type CallState, callStateFor, dropCallState, keptCallState } from './callState.js'
import { ExecutionError, ExecutionRevertedError, gethVmError } from './errors.js'
import { withSyncEvmBudget } from './pool/deadline.js'
import { fastCall, fastCallsEnabled } from './fast/index.js'

export interface CallRequest {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  nonce?: bigint
  accessList?: { address: string; storageKeys: string[] }[]
}

export interface CallLimits {
  gasCap: bigint
  timeoutMs: number
}

export interface CallOutcome {
  returnValue: Uint8Array
  gasUsed: bigint
  /** undefined on success; the geth error message otherwise. */
  error: string | undefined
  reverted: boolean
  /** Addresses and slots the execution touched (only when asked for). */
  accessList?: { address: string; storageKeys: string[] }[]
}

const ZERO_ADDRESS = new Address(new Uint8Array(20))
/** Gas stipend added by geth's optimistic estimate (params.CallStipend). */
const CALL_STIPEND = 2300n
/** geth stops the estimate's binary search when within 1.5% of the answer. */
const ESTIMATE_ERROR_RATIO = 0.015
const TX_GAS = 21_000n

export interface Env {
  db: Database
  store: ChainStore
  common: Common
  block: ChainBlock
}

export function hasFees(req: CallRequest): boolean {
  return (req.gasPrice ?? 0n) > 0n || (req.maxFeePerGas ?? 0n) > 0n || (req.maxPriorityFeePerGas ?? 0n) > 0n
}

export function buildTx(req: CallRequest, gas: bigint, nonce: bigint, common: Common): TypedTransaction {
  const base = {
    to: req.to,
    data: req.data,
    value: req.value ?? 0n,
    gasLimit: gas,
    nonce,
    accessList: req.accessList,
  }
  const dynamic = req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined
  const data = dynamic
    ? {
        ...base,
        type: 2,
        maxFeePerGas: req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n,
        maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
      }
    : req.accessList !== undefined
      ? { ...base, type: 1, gasPrice: req.gasPrice ?? 0n }
      : { ...base, type: 0, gasPrice: req.gasPrice ?? 0n }
  const tx = createTx(data as never, { common, freeze: false })
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  // an unsigned message: the sender is whoever the caller says
  ;(tx as unknown as { getSenderAddress: () => Address }).getSenderAddress = () => from
  return tx
}

export interface AttemptOptions {
  reportAccessList?: boolean
  /**
   * The caller needs the return data and error only (eth_call), not an access list: a plain
   * message then runs on the fast interpreter (fastAttempt) or skips runTx (directCall).
   */
  returnOnly?: boolean
  /** fastAttempt already declined this message: go straight to ethereumjs. */
  fastTried?: boolean
}

/**
 * One execution of `req` with `gas` on the block's state, on the VM and state reused by every
 * call at that root (callState.ts): inside a checkpoint reverted afterwards, so nothing persists
 * (the fast interpreter, which never writes, runs outside it).
 */
export async function attempt(
  env: Env,
  req: CallRequest,
  gas: bigint,
  opts: AttemptOptions = {},
): Promise<CallOutcome> {
  const { block, store, db } = env
  const state = await callStateFor(store, db, block)
  if (opts.returnOnly === true && opts.reportAccessList !== true && opts.fastTried !== true) {
    const fast = fastAttempt(env, state, req, gas)
    if (fast !== undefined) return fast
  }
  return state.exclusive(async () => {
    const { sm, vm, common } = state
    const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
    const account = await sm.getAccount(from)
    const balance = account?.balance ?? 0n
    const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
    const needed = gas * feeCap + (req.value ?? 0n)
    if (balance < needed) {
      throw new ExecutionError(`insufficient funds for gas * price + value: address ${from.toString()} have ${balance} want ${needed}`)
    }
    const noFees = !hasFees(req)
    const env = state.envBlock(block, noFees && block.header.baseFeePerGas !== undefined)
    if (opts.returnOnly === true && opts.reportAccessList !== true && noFees) {
      const direct = await directCall(store, state, env, req, from, account, gas)
      if (direct !== undefined) return direct
    }
    const tx = buildTx(req, gas, req.nonce ?? account?.nonce ?? 0n, common)
    try {
      const result = await runTx(vm, {
        tx,
        block: env,
        skipNonce: true,
        skipBalance: true,
        skipBlockGasLimitValidation: true,
        skipHardForkValidation: true,
        reportAccessList: opts.reportAccessList === true,
      })
      const err = result.execResult.exceptionError
      return {
        returnValue: result.execResult.returnValue,
        gasUsed: result.totalGasSpent,
        error: err === undefined ? undefined : err.error === 'revert' ? 'execution reverted' : gethVmError(err.error),
        reverted: err?.error === 'revert',
        accessList: result.accessList,
      }
    } catch (e) {
      // thrown out of the EVM (not an EVM error): do not trust this VM again
      dropCallState(store, state)
      const msg = e instanceof Error ? e.message : String(e)
      if (/gasLimit is too low|intrinsic/i.test(msg)) {
        throw new ExecutionError(`intrinsic gas too low: have ${gas}, want ${tx.getIntrinsicGas()}`)
      }
      throw new ExecutionError(msg.split(' -> ')[0]?.split('\n')[0] ?? msg)
    }
  })
}

interface IntrinsicParams {
  txGas: bigint
  zeroByte: bigint
  nonZeroByte: bigint
  /** EIP-7623's calldata floor, when active. */
  floorPerToken: bigint | undefined
  /** The fork has EIPs whose transaction rules only runTx reproduces (RUN_TX_ONLY_EIPS). */
  runTxOnly: boolean
}

const intrinsicByState = new WeakMap<CallState, IntrinsicParams>()

/** The fork's intrinsic-gas parameters (a transaction's Common carries them; the chain's may not). */
function intrinsicParams(state: CallState): IntrinsicParams {
  let p = intrinsicByState.get(state)
  if (p === undefined) {
    const c = buildTx({}, 0n, 0n, state.common).common
    p = {
      txGas: c.param('txGas'),
      zeroByte: c.param('txDataZeroGas'),
      nonZeroByte: c.param('txDataNonZeroGas'),
      floorPerToken: c.isActivatedEIP(7623) ? c.param('totalCostFloorPerToken') : undefined,
      runTxOnly: RUN_TX_ONLY_EIPS.some((eip) => state.common.isActivatedEIP(eip)),
    }
    intrinsicByState.set(state, p)
  }
  return p
}

/** A message's outcome from its return data, gas used and ethereumjs error string. */
function outcomeOf(returnValue: Uint8Array, gasUsed: bigint, error: string | undefined): CallOutcome {
  return {
    returnValue,
    gasUsed,
    error: error === undefined ? undefined : error === 'revert' ? 'execution reverted' : gethVmError(error),
    reverted: error === 'revert',
  }
}

/** EIPs whose transaction rules the direct path does not reproduce: those messages go through runTx. */
const RUN_TX_ONLY_EIPS = [7864, 7928, 8037]

const EMPTY = new Uint8Array(0)

/**
 * The intrinsic gas of a direct message with `data` (EIP-2028 calldata; EIP-7623's floor as the
 * minimum), or undefined when it is not one (the fork needs runTx) or `gas` does not cover it
 * (runTx words that error).
 */
function directIntrinsicGas(state: CallState, data: Uint8Array, gas: bigint): bigint | undefined {
  const p = intrinsicParams(state)
  if (p.runTxOnly) return undefined
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const nonZeros = data.length - zeros
  const intrinsic = p.txGas + BigInt(zeros) * p.zeroByte + BigInt(nonZeros) * p.nonZeroByte
  const floor = p.floorPerToken === undefined ? 0n : p.txGas + p.floorPerToken * BigInt(zeros + nonZeros * 4)
  return gas < intrinsic || gas < floor ? undefined : intrinsic
}

/**
 * A fee-less message call (`to` set, no access list) answered by the fast interpreter
 * (src/exec/fast) as directCall would answer it, or undefined: not such a message, or the
 * interpreter bailed out (it wrote nothing) — run attempt() on ethereumjs. Synchronous, and
 * outside the CallState's checkpoint (it never touches ethereumjs' state): no sender read, no
 * checkpoint, no revert. A sender short of the value makes the interpreter bail out, so
 * attempt() reports the insufficient funds as before.
 */
function fastAttempt(env: Env, state: CallState, req: CallRequest, gas: bigint): CallOutcome | undefined {
  if (req.to === undefined || req.accessList !== undefined || hasFees(req) || !fastCallsEnabled()) return undefined
  const data = req.data ?? EMPTY
  const intrinsic = directIntrinsicGas(state, data, gas)
  if (intrinsic === undefined) return undefined
  const header = env.block.header
  const fast = fastCall({
    evm: state.vm.evm as EVM,
    db: env.db,
    store: env.store,
    stateRoot: header.stateRoot,
    header,
    zeroBaseFee: true,
    from: req.from ?? ZERO_ADDRESS.bytes,
    to: req.to,
    value: req.value ?? 0n,
    data,
    gas: gas - intrinsic,
  })
  return fast === undefined ? undefined : outcomeOf(fast.returnValue, intrinsic + fast.executionGasUsed, fast.error)
}

/**
 * A fee-less message call (`to` set, no access list) run as geth's ApplyMessage runs it, without
 * building a transaction and going through runTx's checks, fee and receipt work (two thirds of a
 * view call's cost): intrinsic gas (EIP-2028 calldata, EIP-7623 floor as the minimum), the
 * EIP-2929 warm set (precompiles, sender, recipient, EIP-3651 coinbase), the sender's nonce
 * bumped when it has code (a contract or an EIP-7702 account can observe it; an EOA cannot), and
 * evm.runCall with gas price 0 — the same return data and error as runTx gives
 * (src/exec/call.test.ts compares them). undefined: not such a message, take runTx.
 * eth_call's messages reach it only when the fast interpreter declined them (fastAttempt).
 */
async function directCall(
  store: ChainStore,
  state: CallState,
  block: Block,
  req: CallRequest,
  from: Address,
  account: Account | undefined,
  gas: bigint,
): Promise<CallOutcome | undefined> {
  const { vm, common, sm } = state
  if (req.to === undefined || req.accessList !== undefined) return undefined
  const data = req.data ?? EMPTY
  const intrinsic = directIntrinsicGas(state, data, gas)
  if (intrinsic === undefined) return undefined
  const evm = vm.evm
  const journal = evm.journal
  journal.cleanJournal()
  await journal.checkpoint()
  try {
    if (common.isActivatedEIP(2929)) {
      for (const address of evm.precompiles.keys()) journal.addAlwaysWarmAddress(address)
      journal.addAlwaysWarmAddress(from.toString())
      journal.addAlwaysWarmAddress(Buffer.from(req.to).toString('hex'))
      if (common.isActivatedEIP(3651)) journal.addAlwaysWarmAddress(Buffer.from(block.header.coinbase.bytes).toString('hex'))
    }
    if (account !== undefined && !equalsBytes(account.codeHash, KECCAK256_NULL)) {
      account.nonce += 1n
      await journal.putAccount(from, account)
    }
    const result = await evm.runCall({
      block,
      gasPrice: 0n,
      caller: from,
      origin: from,
      gasLimit: gas - intrinsic,
      to: new Address(req.to),
      value: req.value ?? 0n,
      data,
      skipNonceIncrement: true,
    })
    const err = result.execResult.exceptionError
    return outcomeOf(result.execResult.returnValue, intrinsic + result.execResult.executionGasUsed, err?.error)
  } catch (e) {
    // thrown out of the EVM (not an EVM error): do not trust this VM again
    dropCallState(store, state)
    const msg = e instanceof Error ? e.message : String(e)
    throw new ExecutionError(msg.split(' -> ')[0]?.split('\n')[0] ?? msg)
  } finally {
    await journal.revert().catch(() => undefined)
    journal.cleanJournal()
    sm.originalStorageCache.clear()
  }
}

export function withTimeout<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new ExecutionError(`execution aborted (timeout = ${ms / 1000}s)`)), ms)
  })
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer))
}

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
 * eth_call answered on the calling thread when it is quick (ExecPool.call, on the main thread): a
 * plain message on the fast interpreter that finishes within `budgetMs`, on the block's CallState
 * if this thread keeps one already (else one is built in the background for the next call).
 * undefined: not answered here (not such a message, the interpreter bailed out, the budget ran
 * out, no CallState yet) — run call() on a worker. Throws as call() does.
 */
export function quickCall(env: Env, req: CallRequest, limits: CallLimits, budgetMs: number): Uint8Array | undefined {
  if (budgetMs <= 0 || req.to === undefined || req.accessList !== undefined || hasFees(req)) return undefined
  const state = keptCallState(env.store, env.block)
  if (state === undefined) {
    callStateFor(env.store, env.db, env.block).catch(() => undefined)
    return undefined
  }
  const outcome = withSyncEvmBudget(budgetMs, () => fastAttempt(env, state, req, callGas(req, limits, env.block)))
  if (outcome === undefined) return undefined
  if (outcome.reverted) throw new ExecutionRevertedError(outcome.returnValue)
  if (outcome.error !== undefined) throw new ExecutionError(outcome.error)
  return outcome.returnValue
}

/**
 * eth_call: return data, or ExecutionRevertedError / ExecutionError. Repeats are answered before
 * this runs, from the result cache of the thread that schedules calls (ExecPool.call, callCache.ts).
 */
export async function call(env: Env, req: CallRequest, limits: CallLimits): Promise<Uint8Array> {
  const gas = callGas(req, limits, env.block)
  // the fast interpreter runs synchronously (its own deadline check stops it): no timer needed
  const outcome =
    fastAttempt(env, keptCallState(env.store, env.block) ?? (await callStateFor(env.store, env.db, env.block)), req, gas) ??
    (await withTimeout(attempt(env, req, gas, { returnOnly: true, fastTried: true }), limits.timeoutMs))
  if (outcome.reverted) throw new ExecutionRevertedError(outcome.returnValue)
  if (outcome.error !== undefined) throw new ExecutionError(outcome.error)
  return outcome.returnValue
}

/** eth_estimateGas: geth's binary search for the lowest gas that does not fail. */
export async function estimateGas(env: Env, req: CallRequest, limits: CallLimits): Promise<bigint> {
  return withTimeout(estimate(env, req, limits), limits.timeoutMs)
}

async function estimate(env: Env, req: CallRequest, limits: CallLimits): Promise<bigint> {
  let hi = req.gas !== undefined && req.gas >= TX_GAS ? req.gas : env.block.header.gasLimit
  if (limits.gasCap > 0n && hi > limits.gasCap) hi = limits.gasCap
  const txCap = txGasCap(env.block)
  if (txCap !== undefined && hi > txCap) hi = txCap
  const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
  if (feeCap > 0n) {
    const sm = stateAt(env.db, env.common, env.block.header.stateRoot)
    const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
    const balance = (await sm.getAccount(from))?.balance ?? 0n
    const value = req.value ?? 0n
    if (value > balance) throw new ExecutionError('insufficient funds for transfer')
    const allowance = (balance - value) / feeCap
    if (hi > allowance) hi = allowance
  }
  // a plain transfer to an account without code costs exactly 21000
  if (req.to !== undefined && (req.data === undefined || req.data.length === 0)) {
    const sm = stateAt(env.db, env.common, env.block.header.stateRoot)
    const code = await sm.getCode(new Address(req.to))
    if (code.length === 0) {
      const outcome = await attempt(env, req, TX_GAS)
      if (outcome.error === undefined) return TX_GAS
    }
  }
  const top = await attempt(env, req, hi)
  if (top.error !== undefined) {
    if (top.reverted) throw new ExecutionRevertedError(top.returnValue)
    if (top.error === 'out of gas') throw new ExecutionError(`gas required exceeds allowance (${hi})`)
    throw new ExecutionError(top.error)
  }
  let lo = top.gasUsed - 1n
  // optimistic guess: what was used plus the stipend, scaled by 64/63 for nested calls
  const optimistic = ((top.gasUsed + CALL_STIPEND) * 64n) / 63n
  if (optimistic < hi) {
    const o = await attempt(env, req, optimistic).catch(() => undefined)
    if (o !== undefined && o.error === undefined) hi = optimistic
    else lo = optimistic > lo ? optimistic : lo
  }
  while (lo + 1n < hi) {
    if (Number(hi - lo) / Number(hi) < ESTIMATE_ERROR_RATIO) break
    let mid = (hi + lo) / 2n
    if (mid > lo * 2n) mid = lo * 2n // the answer is usually close to what was used
    const o = await attempt(env, req, mid).catch(() => undefined)
    if (o === undefined || o.error !== undefined) lo = mid
    else hi = mid
  }
  return hi
}

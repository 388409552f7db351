/**
 * The message runner: the one way ibex executes a message or a transaction.
 *
 *   runMessage(env, req, gas)            eth_call, eth_estimateGas, eth_createAccessList attempts
 *     ─▶ fast layer (src/evm/fast): a fee-less call whose caller reads only its output,
 *        run synchronously on the root's state ─ answered ─▶ CallOutcome
 *                                              └─ bailed out (wrote nothing) ─┐
 *     ─▶ ethereumjs layer: CallState.exclusive (checkpoint … revert) ─▶ overrides (overrides.ts)
 *        ─▶ geth's preCheck, buyGas, intrinsic gas and floor (message.ts) ─▶ runTransaction(CALL) ◀┘
 *
 *   runTransaction(vm, tx, env, rules)   block building and verification (src/block/execute.ts),
 *     ─▶ runTx with the rules' checks     eth_simulateV1 (src/simulate/block.ts), traces (src/trace/run.ts)
 *
 * Rules: BLOCK (every check: a transaction of a block); CALL (geth's eth_call and
 * debug_traceCall: no nonce, balance or block gas limit check, a contract may send — geth skips
 * EIP-3607 for messages); SIMULATE (eth_simulateV1: the balance is checked, the rest as CALL).
 *
 * What must always hold: the fast layer answers exactly what the ethereumjs layer answers for
 * the same message — return data, success / revert / error — or declines having written nothing
 * (it never takes a message with fees, an access list, blobs, authorizations or overrides)
 * (src/evm/fast/*.test.ts and call.test.ts run both layers through `fastLayer: false`). It is
 * used only where its gas figure does not matter (`want: 'output'`): it reports execution gas
 * without runTx's refund.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM } from '@ethereumjs/evm'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import type { Database } from '../db/db.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { type CallState, callStateFor, dropCallState, keptCallState } from './callState.js'
import { classifyEvmError, FloorDataGasError, gethVmError, IntrinsicGasError } from './errors.js'
import { buildTx, type CallRequest, messagePrices, precheckError } from './message.js'
import {
  applyStateEdit,
  type MessageOverrides,
  overriddenBaseFee,
  overriddenBlobBaseFee,
  runHeader,
} from './overrides.js'
import { allowSenderWithCode } from './patches.js'
import { envBlock as createEnvBlock } from './vm.js'
import { fastCall } from './fast/index.js'

export type { CallAuthorization, CallRequest } from './message.js'

export interface CallOutcome {
  returnValue: Uint8Array
  gasUsed: bigint
  /** undefined on success; the geth error message otherwise. */
  error: string | undefined
  reverted: boolean
  /** Addresses and slots the execution touched (only when asked for). */
  accessList?: { address: string; storageKeys: string[] }[]
}

/** The block a message runs in, and where its state is read. */
export interface Env {
  db: Database
  store: ChainStore
  common: Common
  block: ChainBlock
}

/** Which of runTx's checks apply (see the module doc). */
export type TxRules = 'block' | 'call' | 'simulate'

const RULES: Record<TxRules, Partial<RunTxOpts>> = {
  block: { skipHardForkValidation: true },
  call: { skipNonce: true, skipBalance: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true },
  simulate: { skipNonce: true, skipBlockGasLimitValidation: true, skipHardForkValidation: true },
}

export interface TransactionOptions {
  /** Gas used by the block's earlier transactions (runTx checks the block's gas limit with it). */
  blockGasUsed?: bigint
  reportAccessList?: boolean
}

/**
 * The ethereumjs layer: runs `tx` on `vm`'s state in the block environment `env` under `rules`,
 * applying its effects (the caller reverts them when they must not last). Throws what runTx
 * throws for a transaction it refuses.
 */
export async function runTransaction(
  vm: VM,
  tx: TypedTransaction,
  env: Block,
  rules: TxRules,
  opts: TransactionOptions = {},
): Promise<RunTxResult> {
  const run = {
    ...RULES[rules],
    tx,
    block: env,
    blockGasUsed: opts.blockGasUsed,
    reportAccessList: opts.reportAccessList,
  }
  if (rules === 'block') return runTx(vm, run)
  const done = allowSenderWithCode(vm.stateManager, tx.getSenderAddress())
  try {
    return await runTx(vm, run)
  } finally {
    done()
  }
}

const ZERO_ADDRESS = new Address(new Uint8Array(20))
const EMPTY = new Uint8Array(0)

export interface MessageOptions {
  /**
   * What the caller reads: 'output' (return data and error: eth_call) lets the fast layer answer,
   * and its gasUsed is intrinsic + execution gas, before the refund and EIP-7623's floor (both
   * layers report that figure, so the differential tests compare gas too); 'gas' needs runTx's
   * gas used (refund and floor applied); 'accessList' also what the message touched.
   */
  want: 'output' | 'gas' | 'accessList'
  /** false: the ethereumjs layer only (tests compare the layers; benchmarks measure them). */
  fastLayer?: boolean
  /** State and block overrides (overrides.ts); a message with any runs on the ethereumjs layer. */
  overrides?: MessageOverrides
}

/**
 * One execution of `req` with `gas` on the state of `env.block`, on the VM and state kept for
 * that root (callState.ts); nothing it writes lasts. Throws an errors.ts error for a message that
 * cannot run (geth's preCheck and buyGas in message.ts, intrinsic gas, an error out of ethereumjs).
 */
export async function runMessage(env: Env, req: CallRequest, gas: bigint, opts: MessageOptions): Promise<CallOutcome> {
  const state = keptCallState(env.store, env.block) ?? (await callStateFor(env.store, env.db, env.block))
  if (opts.want === 'output' && opts.fastLayer !== false && opts.overrides === undefined) {
    const fast = fastLayer(env, state, req, gas)
    if (fast !== undefined) return fast
  }
  return state.exclusive(() => withOverrides(state, opts.overrides, () => ethereumjsLayer(env, state, req, gas, opts)))
}

/**
 * Reads the state of `env.block` as a message would see it under `overrides` (an estimate's
 * balance and code checks, an access list's nonce): `read` runs in the CallState's checkpoint.
 */
export async function readOverriddenState<T>(
  env: Env,
  overrides: MessageOverrides | undefined,
  read: (sm: MerkleStateManager) => Promise<T>,
): Promise<T> {
  const state = keptCallState(env.store, env.block) ?? (await callStateFor(env.store, env.db, env.block))
  return state.exclusive(() => withOverrides(state, overrides, () => read(state.sm)))
}

async function withOverrides<T>(
  state: CallState,
  overrides: MessageOverrides | undefined,
  run: () => Promise<T>,
): Promise<T> {
  if (overrides?.state === undefined) return run()
  const undo = await applyStateEdit(state.vm.evm as EVM, state.sm, overrides.state)
  try {
    return await run()
  } finally {
    undo()
  }
}

async function ethereumjsLayer(
  env: Env,
  state: CallState,
  req: CallRequest,
  gas: bigint,
  opts: MessageOptions,
): Promise<CallOutcome> {
  const { sm, vm, common } = state
  const { block, store } = env
  const header = opts.overrides?.block
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  const account = await sm.getAccount(from)
  const baseFee = overriddenBaseFee(block.header, header)
  const blobBaseFee = overriddenBlobBaseFee(block.header, header)
  // geth's preCheck and buyGas: ethereumjs never sees a message they would refuse
  const refused = precheckError(req, gas, account?.balance ?? 0n, { common, baseFee, blobBaseFee })
  if (refused !== undefined) throw refused
  const prices = messagePrices(req, baseFee)
  const zeroBaseFee = prices.gasPrice === 0n && baseFee !== undefined && baseFee !== 0n
  const zeroBlobFee = req.blobVersionedHashes !== undefined && prices.blobFeeCap === 0n
  const envBlock =
    header === undefined
      ? state.envBlock(block, zeroBaseFee, zeroBlobFee)
      : createEnvBlock(runHeader(block.header, common, header, zeroBaseFee, zeroBlobFee))
  const tx = buildTx(req, gas, account?.nonce ?? 0n, common)
  checkIntrinsicGas(state, tx, gas, req.data ?? EMPTY)
  try {
    const result = await runTransaction(vm, tx, envBlock, 'call', { reportAccessList: opts.want === 'accessList' })
    const { exceptionError, executionGasUsed, returnValue } = result.execResult
    // 'output': the gas the fast layer reports (intrinsic + execution, before refund and floor)
    const gasUsed = opts.want === 'output' ? tx.getIntrinsicGas() + executionGasUsed : result.totalGasSpent
    return { ...outcomeOf(returnValue, gasUsed, exceptionError?.error), accessList: result.accessList }
  } catch (e) {
    // thrown out of the EVM (not an EVM error): do not trust this VM again
    dropCallState(store, state)
    throw classifyEvmError(e, {
      ...req,
      gas,
      baseFee: block.header.baseFeePerGas,
      intrinsicGas: () => tx.getIntrinsicGas(),
    })
  }
}

/**
 * geth's execute: the gas must cover the intrinsic gas, then EIP-7623's calldata floor. Checked
 * here so runTx does not throw for them (a throw out of runTx drops the CallState).
 */
function checkIntrinsicGas(state: CallState, tx: TypedTransaction, gas: bigint, data: Uint8Array): void {
  const intrinsic = tx.getIntrinsicGas()
  if (gas < intrinsic) throw new IntrinsicGasError(gas, intrinsic)
  const p = intrinsicParams(state)
  if (p.floorPerToken === undefined) return
  const floor = p.txGas + p.floorPerToken * calldataTokens(data)
  if (gas < floor) throw new FloorDataGasError(gas, floor)
}

/** EIP-7623's tokens: a zero byte counts 1, any other 4. */
function calldataTokens(data: Uint8Array): bigint {
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  return BigInt(zeros + (data.length - zeros) * 4)
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

interface IntrinsicParams {
  txGas: bigint
  zeroByte: bigint
  nonZeroByte: bigint
  /** EIP-7623's calldata floor, when active. */
  floorPerToken: bigint | undefined
  /** The fork has EIPs whose transaction rules only runTx reproduces (RUN_TX_ONLY_EIPS). */
  runTxOnly: boolean
}

/** EIPs whose transaction rules the fast layer does not reproduce: those messages go to runTx. */
const RUN_TX_ONLY_EIPS = [7864, 7928, 8037]

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

/**
 * The intrinsic gas of a message with `data` (EIP-2028 calldata; EIP-7623's floor as the
 * minimum), or undefined when the fork needs runTx or `gas` does not cover it (runTx words that
 * error).
 */
function intrinsicGas(state: CallState, data: Uint8Array, gas: bigint): bigint | undefined {
  const p = intrinsicParams(state)
  if (p.runTxOnly) return undefined
  let zeros = 0
  for (let i = 0; i < data.length; i++) if (data[i] === 0) zeros++
  const nonZeros = data.length - zeros
  const intrinsic = p.txGas + BigInt(zeros) * p.zeroByte + BigInt(nonZeros) * p.nonZeroByte
  const floor = p.floorPerToken === undefined ? 0n : p.txGas + p.floorPerToken * BigInt(zeros + nonZeros * 4)
  return gas < intrinsic || gas < floor ? undefined : intrinsic
}

/** A fee-less message call without access list, blobs or authorizations: what the fast layer runs. */
function plainMessage(req: CallRequest): req is CallRequest & { to: Uint8Array } {
  return (
    req.to !== undefined &&
    req.accessList === undefined &&
    req.blobVersionedHashes === undefined &&
    req.authorizationList === undefined &&
    (req.gasPrice ?? 0n) === 0n &&
    (req.maxFeePerGas ?? 0n) === 0n &&
    (req.maxPriorityFeePerGas ?? 0n) === 0n
  )
}

/**
 * The fast layer: a fee-less message call (`to` set, no access list) answered by the fast
 * interpreter as runTx answers it (geth's rules: the EIP-2929 warm set, a sender with code has
 * its nonce bumped, gas price 0), or undefined — not such a message, or the interpreter bailed
 * out. Synchronous and outside the CallState's checkpoint: it never touches ethereumjs' state.
 * A sender short of the value makes it bail out, so the ethereumjs layer words the error.
 */
function fastLayer(env: Env, state: CallState, req: CallRequest, gas: bigint): CallOutcome | undefined {
  if (!plainMessage(req)) return undefined
  const data = req.data ?? EMPTY
  const intrinsic = intrinsicGas(state, data, gas)
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

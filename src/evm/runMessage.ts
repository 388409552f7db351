/**
 * The message runner: the one way ibex executes a message or a transaction.
 *
 *   runMessage(env, req, gas)            eth_call, eth_estimateGas, eth_createAccessList attempts
 *     ─▶ fast layer (src/evm/fast): a fee-less call whose caller reads only its output,
 *        run synchronously on the root's state ─ answered ─▶ CallOutcome
 *                                              └─ bailed out (wrote nothing) ─┐
 *     ─▶ ethereumjs layer: CallState.exclusive (checkpoint … revert) ─▶ runTransaction(CALL) ◀┘
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
 * (src/evm/fast/*.test.ts and call.test.ts run both layers through `fastLayer: false`). It is
 * used only where its gas figure does not matter (`want: 'output'`): it reports execution gas
 * without runTx's refund.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM } from '@ethereumjs/evm'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address } from '@ethereumjs/util'
import { type RunTxOpts, type RunTxResult, runTx, type VM } from '@ethereumjs/vm'
import type { Database } from '../db/db.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { type CallState, callStateFor, dropCallState, keptCallState } from './callState.js'
import { checkMessageFees, classifyEvmError, gethVmError, InsufficientFundsError, senderText } from './errors.js'
import { allowSenderWithCode, unsignedSender } from './patches.js'
import { fastCall } from './fast/index.js'

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

export function hasFees(req: CallRequest): boolean {
  return (req.gasPrice ?? 0n) > 0n || (req.maxFeePerGas ?? 0n) > 0n || (req.maxPriorityFeePerGas ?? 0n) > 0n
}

/** The unsigned transaction of a message (its sender is whoever `req.from` says). */
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
  unsignedSender(tx, req.from === undefined ? ZERO_ADDRESS : new Address(req.from))
  return tx
}

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
}

/**
 * One execution of `req` with `gas` on the state of `env.block`, on the VM and state kept for
 * that root (callState.ts); nothing it writes lasts. Throws an errors.ts error for a message that
 * cannot run (funds, intrinsic gas, an error out of ethereumjs).
 */
export async function runMessage(env: Env, req: CallRequest, gas: bigint, opts: MessageOptions): Promise<CallOutcome> {
  const state = keptCallState(env.store, env.block) ?? (await callStateFor(env.store, env.db, env.block))
  if (opts.want === 'output' && opts.fastLayer !== false) {
    const fast = fastLayer(env, state, req, gas)
    if (fast !== undefined) return fast
  }
  return state.exclusive(() => ethereumjsLayer(env, state, req, gas, opts.want))
}

async function ethereumjsLayer(
  env: Env,
  state: CallState,
  req: CallRequest,
  gas: bigint,
  want: MessageOptions['want'],
): Promise<CallOutcome> {
  const { sm, vm, common } = state
  const { block, store } = env
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  const account = await sm.getAccount(from)
  const balance = account?.balance ?? 0n
  const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
  const needed = gas * feeCap + (req.value ?? 0n)
  // geth's preCheck order: fees before funds; ethereumjs never sees a fee it would refuse
  checkMessageFees(req, block.header.baseFeePerGas)
  if (balance < needed) throw new InsufficientFundsError(senderText(req.from), balance, needed)
  const envBlock = state.envBlock(block, !hasFees(req) && block.header.baseFeePerGas !== undefined)
  const tx = buildTx(req, gas, req.nonce ?? account?.nonce ?? 0n, common)
  try {
    const result = await runTransaction(vm, tx, envBlock, 'call', { reportAccessList: want === 'accessList' })
    const { exceptionError, executionGasUsed, returnValue } = result.execResult
    // 'output': the gas the fast layer reports (intrinsic + execution, before refund and floor)
    const gasUsed = want === 'output' ? tx.getIntrinsicGas() + executionGasUsed : result.totalGasSpent
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

/**
 * The fast layer: a fee-less message call (`to` set, no access list) answered by the fast
 * interpreter as runTx answers it (geth's rules: the EIP-2929 warm set, a sender with code has
 * its nonce bumped, gas price 0), or undefined — not such a message, or the interpreter bailed
 * out. Synchronous and outside the CallState's checkpoint: it never touches ethereumjs' state.
 * A sender short of the value makes it bail out, so the ethereumjs layer words the error.
 */
function fastLayer(env: Env, state: CallState, req: CallRequest, gas: bigint): CallOutcome | undefined {
  if (req.to === undefined || req.accessList !== undefined || hasFees(req)) return undefined
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

/**
 * One simulated call as geth turns TransactionArgs into a transaction and a message:
 * CallDefaults (chain id, gas, nonce, value, zero fee fields), ToTransaction (the type follows the
 * fields given: authorizations → 7702, blob hashes → 4844, a base fee → 1559, gasPrice → legacy)
 * and the state transition's pre-checks, with geth's error codes (nonce, fee cap, funds …).
 *
 * The transaction is unsigned (v = r = s = 0); its hash is keccak256 of that encoding, as geth's.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, toChecksumAddress } from '@ethereumjs/util'
import { keccak256 } from '../util/crypto.js'
import { unsignedSender } from '../evm/patches.js'
import { SIM_ERROR, SimulationError } from './errors.js'
import type { SimCall } from './types.js'

export const GAS_PER_BLOB = 131_072n
/** EIP-3860: largest init code of a creation. */
const MAX_INIT_CODE_SIZE = 49_152
const MAX_UINT64 = (1n << 64n) - 1n

export interface PreparedCall {
  tx: TypedTransaction
  hash: Uint8Array
  from: Uint8Array
  /** Gas handed to the call (after the block and pool caps). */
  gas: bigint
  /** What the sender pays per gas (geth's msg.GasPrice). */
  gasPrice: bigint
  feeCap: bigint
  tipCap: bigint
  blobFeeCap: bigint
  blobGas: bigint
}

/** geth's TransactionArgs.CallDefaults + ToTransaction(DynamicFeeTxType). */
export function prepareCall(
  call: SimCall,
  opts: { common: Common; gas: bigint; nonce: bigint; baseFee: bigint | undefined },
): PreparedCall {
  const chainId = opts.common.chainId()
  if (call.gasPrice !== undefined && (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)) {
    throw new SimulationError(SIM_ERROR.server, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (call.chainId !== undefined && call.chainId !== chainId) {
    throw new SimulationError(SIM_ERROR.server, `chainId does not match node's (have=${call.chainId}, want=${chainId})`)
  }
  if (call.dataInputConflict) {
    throw new SimulationError(
      SIM_ERROR.server,
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    )
  }
  const from = call.from ?? new Uint8Array(20)
  const value = call.value ?? 0n
  let gasPrice = call.gasPrice
  let maxFee = call.maxFeePerGas
  let maxTip = call.maxPriorityFeePerGas
  if (opts.baseFee === undefined) gasPrice ??= 0n
  else {
    maxFee ??= 0n
    maxTip ??= 0n
  }
  const blobHashes = call.blobVersionedHashes
  const blobFeeCap = blobHashes !== undefined ? (call.maxFeePerBlobGas ?? 0n) : 0n
  let type = 2
  if (call.authorizationList !== undefined) type = 4
  else if (blobHashes !== undefined) type = 3
  // geth: a gas price (given, or defaulted to 0 before London) always makes a legacy transaction
  if (gasPrice !== undefined) type = 0
  if ((type === 3 || type === 4) && call.to === undefined) {
    throw new SimulationError(
      SIM_ERROR.server,
      type === 3 ? 'blob transaction of type create' : 'set code transaction of type create',
    )
  }
  const accessList = (call.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]])
  const base = {
    nonce: 0n,
    gasLimit: 0n,
    to: call.to,
    value,
    data: call.data ?? new Uint8Array(0),
  }
  let data: Record<string, unknown>
  switch (type) {
    case 0:
      data = { ...base, type: 0, gasPrice: gasPrice ?? 0n }
      break
    case 3:
      data = {
        ...base,
        type: 3,
        chainId,
        maxFeePerGas: maxFee ?? 0n,
        maxPriorityFeePerGas: maxTip ?? 0n,
        accessList,
        blobVersionedHashes: blobHashes,
        maxFeePerBlobGas: blobFeeCap,
      }
      break
    case 4:
      data = {
        ...base,
        type: 4,
        chainId,
        maxFeePerGas: maxFee ?? 0n,
        maxPriorityFeePerGas: maxTip ?? 0n,
        accessList,
        authorizationList: (call.authorizationList ?? []).map((a) => [
          bigIntToUnpaddedBytes(a.chainId),
          a.address,
          bigIntToUnpaddedBytes(a.nonce),
          bigIntToUnpaddedBytes(BigInt(a.yParity)),
          bigIntToUnpaddedBytes(a.r),
          bigIntToUnpaddedBytes(a.s),
        ]),
      }
      break
    default:
      data = { ...base, type: 2, chainId, maxFeePerGas: maxFee ?? 0n, maxPriorityFeePerGas: maxTip ?? 0n, accessList }
  }
  let tx: TypedTransaction
  try {
    tx = createTx(data as never, { common: opts.common, freeze: false, allowUnlimitedInitCodeSize: true })
  } catch (err) {
    throw new SimulationError(
      SIM_ERROR.invalidParams,
      err instanceof Error ? (err.message.split(' (')[0] as string) : String(err),
    )
  }
  // set after construction: the simulator may exceed the EIP-7825 cap and a nonce of 2^64-1
  const mutable = tx as unknown as { nonce: bigint; gasLimit: bigint }
  mutable.nonce = opts.nonce
  mutable.gasLimit = opts.gas
  unsignedSender(tx, new Address(from))
  let price = gasPrice ?? 0n
  const feeCap = type === 0 ? price : (maxFee ?? 0n)
  const tipCap = type === 0 ? price : (maxTip ?? 0n)
  if (type !== 0 && opts.baseFee !== undefined && (feeCap > 0n || tipCap > 0n)) {
    price = tipCap + opts.baseFee < feeCap ? tipCap + opts.baseFee : feeCap
  } else if (type !== 0) price = 0n
  return {
    tx,
    hash: keccak256(tx.serialize()),
    from,
    gas: opts.gas,
    gasPrice: price,
    feeCap,
    tipCap,
    blobFeeCap,
    blobGas: BigInt(blobHashes?.length ?? 0) * GAS_PER_BLOB,
  }
}

export interface PrecheckEnv {
  common: Common
  validate: boolean
  baseFee: bigint | undefined
  blobBaseFee: bigint | undefined
}

/** geth prints addresses with Hex(): EIP-55 mixed case. */
function addressText(bytes: Uint8Array): string {
  return toChecksumAddress(new Address(bytes).toString())
}

/**
 * geth's stateTransition.preCheck + buyGas + the intrinsic checks of TransitionDb, in that order,
 * with the simulator's codes. Throws SimulationError; returns when the call may run.
 */
export async function precheck(sm: MerkleStateManager, p: PreparedCall, env: PrecheckEnv): Promise<void> {
  const account = await sm.getAccount(new Address(p.from))
  const stNonce = account?.nonce ?? 0n
  const balance = account?.balance ?? 0n
  const who = addressText(p.from)
  const msgNonce = p.tx.nonce
  if (env.validate) {
    if (stNonce < msgNonce) {
      throw new SimulationError(
        SIM_ERROR.nonceTooHigh,
        `nonce too high: address ${who}, tx: ${msgNonce} state: ${stNonce}`,
      )
    }
    if (stNonce > msgNonce) {
      throw new SimulationError(
        SIM_ERROR.nonceTooLow,
        `nonce too low: address ${who}, tx: ${msgNonce} state: ${stNonce}`,
      )
    }
    if (stNonce === MAX_UINT64)
      throw new SimulationError(SIM_ERROR.internal, `nonce has max value: address ${who}, nonce: ${stNonce}`)
  }
  if (env.baseFee !== undefined) {
    const skip = !env.validate && p.feeCap === 0n && p.tipCap === 0n
    if (!skip) {
      if (p.feeCap < p.tipCap) {
        throw new SimulationError(
          SIM_ERROR.invalidParams,
          `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${p.tipCap}, maxFeePerGas: ${p.feeCap}`,
        )
      }
      if (p.feeCap < env.baseFee) {
        throw new SimulationError(
          SIM_ERROR.feeCapTooLow,
          `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${p.feeCap}, baseFee: ${env.baseFee}`,
        )
      }
    }
  }
  if (p.blobGas > 0n && env.blobBaseFee !== undefined) {
    const skip = !env.validate && p.blobFeeCap === 0n
    if (!skip && p.blobFeeCap < env.blobBaseFee) {
      throw new SimulationError(
        SIM_ERROR.invalidParams,
        `max fee per blob gas less than block blob gas fee: address ${who} blobGasFeeCap: ${p.blobFeeCap}, blobBaseFee: ${env.blobBaseFee}`,
      )
    }
  }
  let want = p.gas * (env.baseFee === undefined || p.tx.type === 0 ? p.gasPrice : p.feeCap) + p.tx.value
  want += p.blobGas * p.blobFeeCap
  if (balance < want) {
    throw new SimulationError(
      SIM_ERROR.insufficientFunds,
      `insufficient funds for gas * price + value: address ${who} have ${balance} want ${want}`,
    )
  }
  const intrinsic = p.tx.getIntrinsicGas()
  if (p.gas < intrinsic)
    throw new SimulationError(SIM_ERROR.intrinsicGas, `intrinsic gas too low: have ${p.gas}, want ${intrinsic}`)
  if (env.common.isActivatedEIP(7623)) {
    const floor = floorDataGas(p.tx.data, p.tx.common)
    if (p.gas < floor)
      throw new SimulationError(
        SIM_ERROR.internal,
        `insufficient gas for floor data gas cost: have ${p.gas}, want ${floor}`,
      )
  }
  const afterGas = balance - p.gas * p.gasPrice - p.blobGas * (env.blobBaseFee ?? 0n)
  if (p.tx.value > 0n && afterGas < p.tx.value) {
    throw new SimulationError(SIM_ERROR.insufficientFunds, `insufficient funds for transfer: address ${who}`)
  }
  if (p.tx.to === undefined && env.common.isActivatedEIP(3860) && p.tx.data.length > MAX_INIT_CODE_SIZE) {
    throw new SimulationError(
      SIM_ERROR.maxInitCodeSizeExceeded,
      `max initcode size exceeded: code size ${p.tx.data.length} limit ${MAX_INIT_CODE_SIZE}`,
    )
  }
}

/** EIP-7623: 21000 + 10 per calldata token (a zero byte 1 token, any other 4). */
function floorDataGas(data: Uint8Array, common: Common): bigint {
  let tokens = 0n
  for (const b of data) tokens += b === 0 ? 1n : 4n
  return 21_000n + tokens * common.param('totalCostFloorPerToken')
}

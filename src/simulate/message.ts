/**
 * One simulated call as geth turns TransactionArgs into a message and a transaction, and checks
 * the message before it runs:
 *
 *   callMessage   CallDefaults (both fee styles, chain id: bare -32000) and ToMessage (fee cap,
 *                 tip and price; the call data is `input`, else `data`, never refused)
 *   admitMessage  stateTransition.preCheck (nonce when validating, fees, blobs, authorizations,
 *                 init code size), buyGas (funds), then execute's intrinsic gas, EIP-7623 floor
 *                 and value checks — geth's order (core/state_transition.go, v1.17.5)
 *
 * Every refusal of the second step reads as geth's applyMessageWithEVM words it,
 * `err: <why> (supplied gas N)`, with the code txValidationError gives its kind
 * (internal/ethapi/errors.go): -38010/-38011 nonce, -32602 tip above fee cap, -38012 fee cap
 * below base fee, -38013 intrinsic gas, -38014 funds, -38025 init code size, -32603 the rest.
 * ethereumjs sees the transaction only once geth's checks passed, so none of its wording reaches
 * a client.
 *
 * The reported transaction has the type geth's ToTransaction(DynamicFeeTxType) picks (a gas price
 * makes it legacy, dropping access list, authorizations and blobs from the transaction), but the
 * message keeps every field, so the one that runs is shaped by the message. Both are unsigned
 * (v = r = s = 0); the hash is keccak256 of the reported one, as geth's.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, toChecksumAddress } from '@ethereumjs/util'
import { keccak256 } from '../util/crypto.js'
import { unsignedSender } from '../evm/patches.js'
import { SIM_ERROR, type SimErrorKind, SimulationError } from './errors.js'
import type { SimAuthorization, SimCall } from './types.js'

export const GAS_PER_BLOB = 131_072n
/** EIP-3860 (Shanghai): largest init code of a creation, in bytes (geth params.MaxInitCodeSize). */
const MAX_INIT_CODE_SIZE = 49_152
/** EIP-7594 (Osaka): most blobs one transaction may carry (geth params.BlobTxMaxBlobs). */
const MAX_BLOBS_PER_TX = 6
/** geth's `kzg4844.IsValidVersionedHash`: the first byte of a blob's versioned hash. */
const BLOB_HASH_VERSION = 0x01
const MAX_UINT64 = (1n << 64n) - 1n
/** geth's balances are uint256: an amount at or past this overflows buyGas. */
const UINT256_LIMIT = 1n << 256n

/** geth's core.Message of a simulated call (after CallDefaults, ToMessage). */
export interface SimMessage {
  from: Uint8Array
  to: Uint8Array | undefined
  value: bigint
  data: Uint8Array
  nonce: bigint
  /** Gas handed to the call (after the block and pool caps). */
  gas: bigint
  /** The transaction type ToTransaction(DynamicFeeTxType) gives the call. */
  type: 0 | 2 | 3 | 4
  chainId: bigint
  /** What the sender pays per gas (geth's msg.GasPrice). */
  gasPrice: bigint
  feeCap: bigint
  tipCap: bigint
  blobFeeCap: bigint
  blobHashes: Uint8Array[] | undefined
  authorizations: SimAuthorization[] | undefined
  accessList: { address: Uint8Array; storageKeys: Uint8Array[] }[] | undefined
}

export interface PreparedCall {
  /** The transaction geth reports in the block (its hash is the call's). */
  tx: TypedTransaction
  /** The transaction that runs: the message's fields, whatever the reported type dropped. */
  run: TypedTransaction
  hash: Uint8Array
  from: Uint8Array
  gas: bigint
  gasPrice: bigint
  feeCap: bigint
  tipCap: bigint
  blobFeeCap: bigint
  blobGas: bigint
}

/** geth's TransactionArgs.CallDefaults + ToMessage for a call with `gas` and `nonce` settled. */
export function callMessage(
  call: SimCall,
  opts: { chainId: bigint; gas: bigint; nonce: bigint; baseFee: bigint | undefined },
): SimMessage {
  if (call.gasPrice !== undefined && (call.maxFeePerGas !== undefined || call.maxPriorityFeePerGas !== undefined)) {
    throw new SimulationError(SIM_ERROR.server, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (call.chainId !== undefined && call.chainId !== opts.chainId) {
    throw new SimulationError(
      SIM_ERROR.server,
      `chainId does not match node's (have=${call.chainId}, want=${opts.chainId})`,
    )
  }
  let gasPrice = call.gasPrice
  if (opts.baseFee === undefined) gasPrice ??= 0n
  let type: SimMessage['type'] = 2
  if (call.authorizationList !== undefined) type = 4
  else if (call.blobVersionedHashes !== undefined) type = 3
  // a gas price (given, or 0 before London) always makes a legacy transaction
  if (gasPrice !== undefined) type = 0
  let feeCap: bigint
  let tipCap: bigint
  let price: bigint
  if (gasPrice !== undefined) {
    feeCap = gasPrice
    tipCap = gasPrice
    price = gasPrice
  } else {
    feeCap = call.maxFeePerGas ?? 0n
    tipCap = call.maxPriorityFeePerGas ?? 0n
    const baseFee = opts.baseFee ?? 0n
    price = feeCap === 0n && tipCap === 0n ? 0n : tipCap + baseFee < feeCap ? tipCap + baseFee : feeCap
  }
  return {
    from: call.from ?? new Uint8Array(20),
    to: call.to,
    value: call.value ?? 0n,
    data: call.data ?? new Uint8Array(0),
    nonce: opts.nonce,
    gas: opts.gas,
    type,
    chainId: opts.chainId,
    gasPrice: price,
    feeCap,
    tipCap,
    blobFeeCap: call.blobVersionedHashes !== undefined ? (call.maxFeePerBlobGas ?? 0n) : 0n,
    blobHashes: call.blobVersionedHashes,
    authorizations: call.authorizationList,
    accessList: call.accessList,
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

/** A message ApplyMessage refused, as applyMessageWithEVM wraps it. */
function refused(kind: SimErrorKind, why: string, m: SimMessage): SimulationError {
  return new SimulationError(kind, `err: ${why} (supplied gas ${m.gas})`)
}

/**
 * geth's stateTransition.preCheck + buyGas + execute's intrinsic checks, in that order, with the
 * simulator's codes. Throws SimulationError; returns the call ready to run.
 */
export async function admitMessage(sm: MerkleStateManager, m: SimMessage, env: PrecheckEnv): Promise<PreparedCall> {
  const account = await sm.getAccount(new Address(m.from))
  const balance = account?.balance ?? 0n
  const who = addressText(m.from)
  if (env.validate) {
    const stNonce = account?.nonce ?? 0n
    if (stNonce < m.nonce) {
      throw refused(SIM_ERROR.nonceTooHigh, `nonce too high: address ${who}, tx: ${m.nonce} state: ${stNonce}`, m)
    }
    if (stNonce > m.nonce) {
      throw refused(SIM_ERROR.nonceTooLow, `nonce too low: address ${who}, tx: ${m.nonce} state: ${stNonce}`, m)
    }
    if (stNonce === MAX_UINT64) {
      throw refused(SIM_ERROR.internal, `nonce has max value: address ${who}, nonce: ${stNonce}`, m)
    }
  }
  // geth's NoBaseFee (validation off) skips the fee checks of an all-zero message
  if (env.baseFee !== undefined && !(!env.validate && m.feeCap === 0n && m.tipCap === 0n)) {
    if (m.feeCap < m.tipCap) {
      throw refused(
        SIM_ERROR.invalidParams,
        `max priority fee per gas higher than max fee per gas: address ${who}, maxPriorityFeePerGas: ${m.tipCap}, maxFeePerGas: ${m.feeCap}`,
        m,
      )
    }
    if (m.feeCap < env.baseFee) {
      throw refused(
        SIM_ERROR.feeCapTooLow,
        `max fee per gas less than block base fee: address ${who}, maxFeePerGas: ${m.feeCap}, baseFee: ${env.baseFee}`,
        m,
      )
    }
  }
  checkBlobs(m, env)
  const blobGas = BigInt(m.blobHashes?.length ?? 0) * GAS_PER_BLOB
  if (blobGas > 0n && env.blobBaseFee !== undefined) {
    const skip = !env.validate && m.blobFeeCap === 0n
    if (!skip && m.blobFeeCap < env.blobBaseFee) {
      throw refused(
        SIM_ERROR.internal,
        `max fee per blob gas less than block blob gas fee: address ${who} blobGasFeeCap: ${m.blobFeeCap}, blobBaseFee: ${env.blobBaseFee}`,
        m,
      )
    }
  }
  if (m.authorizations !== undefined) {
    if (m.to === undefined) {
      throw refused(SIM_ERROR.internal, `EIP-7702 transaction cannot be used to create contract (sender ${who})`, m)
    }
    if (m.authorizations.length === 0) {
      throw refused(SIM_ERROR.internal, `EIP-7702 transaction with empty auth list (sender ${who})`, m)
    }
  }
  if (m.to === undefined && env.common.isActivatedEIP(3860) && m.data.length > MAX_INIT_CODE_SIZE) {
    throw refused(
      SIM_ERROR.maxInitCodeSizeExceeded,
      `max initcode size exceeded: code size ${m.data.length} limit ${MAX_INIT_CODE_SIZE}`,
      m,
    )
  }
  // buyGas: the sender must hold gas × fee cap + value + blob gas × blob fee cap
  const paid = m.gas * m.gasPrice + blobGas * (env.blobBaseFee ?? 0n)
  const want = m.gas * m.feeCap + m.value + blobGas * m.blobFeeCap
  if (m.gas * m.gasPrice >= UINT256_LIMIT || want >= UINT256_LIMIT || paid >= UINT256_LIMIT) {
    throw refused(
      SIM_ERROR.insufficientFunds,
      `insufficient funds for gas * price + value: address ${who} required balance exceeds 256 bits`,
      m,
    )
  }
  if (balance < want) {
    throw refused(
      SIM_ERROR.insufficientFunds,
      `insufficient funds for gas * price + value: address ${who} have ${balance} want ${want}`,
      m,
    )
  }
  const prepared = buildTransactions(m, env)
  const intrinsic = prepared.run.getIntrinsicGas()
  if (m.gas < intrinsic) {
    throw refused(SIM_ERROR.intrinsicGas, `intrinsic gas too low: have ${m.gas}, want ${intrinsic}`, m)
  }
  if (env.common.isActivatedEIP(7623)) {
    const floor = floorDataGas(m.data, prepared.run.common)
    if (m.gas < floor) {
      throw refused(SIM_ERROR.internal, `insufficient gas for floor data gas cost: have ${m.gas}, want ${floor}`, m)
    }
  }
  if (m.value > 0n && balance - paid < m.value) {
    throw refused(SIM_ERROR.insufficientFunds, `insufficient funds for transfer: address ${who}`, m)
  }
  return { ...prepared, from: m.from, gas: m.gas, blobGas }
}

/** preCheck's blob rules: a destination, at least one hash, each of version 0x01 (Osaka: at most 6). */
function checkBlobs(m: SimMessage, env: PrecheckEnv): void {
  const hashes = m.blobHashes
  if (hashes === undefined) return
  if (m.to === undefined) throw refused(SIM_ERROR.internal, 'blob transaction of type create', m)
  if (hashes.length === 0) throw refused(SIM_ERROR.internal, 'blob transaction missing blob hashes', m)
  if (env.common.gteHardfork('osaka') && hashes.length > MAX_BLOBS_PER_TX) {
    throw refused(SIM_ERROR.internal, 'blob transaction has too many blobs', m)
  }
  const bad = hashes.findIndex((h) => h[0] !== BLOB_HASH_VERSION)
  if (bad >= 0) throw refused(SIM_ERROR.internal, `blob ${bad} has invalid hash version`, m)
}

type TxShape = 0 | 1 | 2 | 3 | 4

/** The reported transaction and the one that runs (the same one unless a gas price dropped fields). */
function buildTransactions(m: SimMessage, env: PrecheckEnv): Omit<PreparedCall, 'from' | 'gas' | 'blobGas'> {
  const tx = buildTx(m, m.type, env.common)
  let shape: TxShape = m.type
  if (m.type === 0) {
    if (m.authorizations !== undefined) shape = 4
    else if (m.blobHashes !== undefined) shape = 3
    else if (m.accessList !== undefined) shape = 1
  }
  const run = shape === m.type ? tx : buildTx(m, shape, env.common)
  // geth skips the blob fee check of a message with no blob fee cap, and charges the blob base fee
  if (run.type === 3 && m.blobFeeCap === 0n && env.blobBaseFee !== undefined) {
    ;(run as unknown as { maxFeePerBlobGas: bigint }).maxFeePerBlobGas = env.blobBaseFee
  }
  return {
    tx,
    run,
    hash: keccak256(tx.serialize()),
    gasPrice: m.gasPrice,
    feeCap: m.feeCap,
    tipCap: m.tipCap,
    blobFeeCap: m.blobFeeCap,
  }
}

function buildTx(m: SimMessage, shape: TxShape, common: Common): TypedTransaction {
  const accessList = (m.accessList ?? []).map((e) => [e.address, e.storageKeys] as [Uint8Array, Uint8Array[]])
  const base = { nonce: 0n, gasLimit: 0n, to: m.to, value: m.value, data: m.data }
  // a legacy-priced message runs with its gas price as fee cap and tip
  const fees = { maxFeePerGas: m.feeCap, maxPriorityFeePerGas: m.tipCap }
  let data: Record<string, unknown>
  switch (shape) {
    case 0:
      data = { ...base, type: 0, gasPrice: m.gasPrice }
      break
    case 1:
      data = { ...base, type: 1, chainId: m.chainId, gasPrice: m.gasPrice, accessList }
      break
    case 3:
      data = {
        ...base,
        ...fees,
        type: 3,
        chainId: m.chainId,
        accessList,
        blobVersionedHashes: m.blobHashes,
        maxFeePerBlobGas: m.blobFeeCap,
      }
      break
    case 4:
      data = {
        ...base,
        ...fees,
        type: 4,
        chainId: m.chainId,
        accessList,
        authorizationList: (m.authorizations ?? []).map((a) => [
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
      data = { ...base, ...fees, type: 2, chainId: m.chainId, accessList }
  }
  let tx: TypedTransaction
  try {
    tx = createTx(data as never, { common, freeze: false, allowUnlimitedInitCodeSize: true })
  } catch {
    // geth builds any transaction its checks let through; ethereumjs refuses a few more
    // (more blobs than a block holds before Osaka): answered without ethereumjs' words
    throw refused(SIM_ERROR.internal, 'transaction cannot be built', m)
  }
  // set after construction: the simulator may exceed the EIP-7825 cap and a nonce of 2^64-1
  const mutable = tx as unknown as { nonce: bigint; gasLimit: bigint }
  mutable.nonce = m.nonce
  mutable.gasLimit = m.gas
  unsignedSender(tx, new Address(m.from))
  return tx
}

/** EIP-7623: 21000 + 10 per calldata token (a zero byte 1 token, any other 4). */
function floorDataGas(data: Uint8Array, common: Common): bigint {
  let tokens = 0n
  for (const b of data) tokens += b === 0 ? 1n : 4n
  return 21_000n + tokens * common.param('totalCostFloorPerToken')
}

/**
 * A call-class message (eth_call, eth_estimateGas, eth_createAccessList, debug_traceCall) as geth
 * builds and checks it (internal/ethapi/transaction_args.go, core/state_transition.go, v1.17.5):
 *
 *   callDefaultsError   CallDefaults: both fee styles, a foreign chain id      (bare -32000)
 *   messagePrices       ToMessage: fee cap, tip, the price paid per gas, blob fee cap
 *   precheckError       preCheck + buyGas: fees, blob rules, blob fee, authorization rules,
 *                       init code size, funds (gas × fee cap + value + blob gas × blob fee cap)
 *   buildTx             the unsigned transaction ethereumjs runs (intrinsic gas and the
 *                       EIP-7623 floor are checked by runTx, classified in errors.ts)
 *
 * What must hold: ethereumjs never sees a message these checks would refuse, so none of its
 * wording reaches a client, and nothing it cannot construct (a bad blob hash, an empty
 * authorization list, a nonce of 2^64-1) is handed to its transaction builder. The message's own
 * nonce is never used: geth skips nonce checks for calls and takes the sender's nonce in state.
 */
import type { Common } from '@ethereumjs/common'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, type PrefixedHexString } from '@ethereumjs/util'
import type { IbexError } from '../util/errors.js'
import {
  ChainIdMismatchError,
  FeeCapTooLowError,
  feeStylesError,
  InsufficientFundsError,
  MessageRuleError,
  senderText,
  TipAboveFeeCapError,
} from './errors.js'
import { unsignedSender } from './patches.js'

/** An EIP-7702 authorization tuple of a call object (not checked here: runTx skips invalid ones, as geth). */
export interface CallAuthorization {
  chainId: bigint
  address: Uint8Array
  nonce: bigint
  yParity: number
  r: bigint
  s: bigint
}

/** geth's TransactionArgs as the call methods take it; `undefined` = not given. */
export interface CallRequest {
  from?: Uint8Array
  to?: Uint8Array
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  value?: bigint
  data?: Uint8Array
  /** Ignored by every call method but eth_createAccessList (the created contract's address). */
  nonce?: bigint
  accessList?: { address: string; storageKeys: string[] }[]
  /** Refused unless it is the node's (CallDefaults). */
  chainId?: bigint
  maxFeePerBlobGas?: bigint
  blobVersionedHashes?: Uint8Array[]
  authorizationList?: CallAuthorization[]
}

/** EIP-4844: blob gas per blob (geth params.BlobTxBlobGasPerBlob). */
export const GAS_PER_BLOB = 131_072n
/** EIP-3860 (Shanghai): largest init code of a creation, bytes (geth params.MaxInitCodeSize). */
const MAX_INIT_CODE_SIZE = 49_152
/** geth's kzg4844.IsValidVersionedHash: the first byte of a blob's versioned hash. */
const BLOB_HASH_VERSION = 0x01
/** geth's balances and costs are uint256: an amount at or past this overflows buyGas. */
const UINT256_LIMIT = 1n << 256n

/** geth's CallDefaults refusals, before anything runs: both fee styles, then a foreign chain id. */
export function callDefaultsError(req: CallRequest, chainId: bigint): IbexError | undefined {
  const styles = feeStylesError(req)
  if (styles !== undefined) return styles
  if (req.chainId !== undefined && req.chainId !== chainId) return new ChainIdMismatchError(req.chainId, chainId)
  return undefined
}

/** What geth's ToMessage makes of a call's fee fields. */
export interface MessagePrices {
  feeCap: bigint
  tipCap: bigint
  /** What the sender pays per gas (geth's msg.GasPrice): 0 runs the block with a zero base fee. */
  gasPrice: bigint
  /** 0 when not given (with blobs, a zero cap runs the block with a zero blob base fee). */
  blobFeeCap: bigint
}

/**
 * ToMessage: before London the gas price is all; after it `gasPrice` is fee cap and tip at once,
 * else the 1559 fields (absent = 0) and a price of tip + base fee up to the fee cap, 0 when both are 0.
 */
export function messagePrices(req: CallRequest, baseFee: bigint | undefined): MessagePrices {
  const blobFeeCap = req.maxFeePerBlobGas ?? 0n
  if (baseFee === undefined || req.gasPrice !== undefined) {
    const price = req.gasPrice ?? 0n
    return { feeCap: price, tipCap: price, gasPrice: price, blobFeeCap }
  }
  const feeCap = req.maxFeePerGas ?? 0n
  const tipCap = req.maxPriorityFeePerGas ?? 0n
  const paid = tipCap + baseFee
  const gasPrice = feeCap === 0n && tipCap === 0n ? 0n : paid < feeCap ? paid : feeCap
  return { feeCap, tipCap, gasPrice, blobFeeCap }
}

/** The block a message is checked against. */
export interface PrecheckEnv {
  common: Common
  /** undefined before London. */
  baseFee: bigint | undefined
  /** undefined before Cancun. */
  blobBaseFee: bigint | undefined
}

/** Blob gas of a message. */
export function blobGasOf(req: CallRequest): bigint {
  return BigInt(req.blobVersionedHashes?.length ?? 0) * GAS_PER_BLOB
}

/**
 * geth's preCheck and buyGas for a call (nonce and EOA checks skipped, NoBaseFee set) with `gas`
 * and a sender holding `balance`: the first refusal in geth's order, or undefined.
 */
export function precheckError(req: CallRequest, gas: bigint, balance: bigint, env: PrecheckEnv): IbexError | undefined {
  const sender = senderText(req.from)
  const p = messagePrices(req, env.baseFee)
  // NoBaseFee: the fee checks are skipped for a message whose fee cap and tip are both 0
  if (env.baseFee !== undefined && !(p.feeCap === 0n && p.tipCap === 0n)) {
    if (p.feeCap < p.tipCap) return new TipAboveFeeCapError(sender, p.tipCap, p.feeCap)
    if (p.feeCap < env.baseFee) return new FeeCapTooLowError(sender, p.feeCap, env.baseFee)
  }
  const hashes = req.blobVersionedHashes
  if (hashes !== undefined) {
    if (req.to === undefined) return new MessageRuleError('blob transaction of type create')
    if (hashes.length === 0) return new MessageRuleError('blob transaction missing blob hashes')
    const bad = hashes.findIndex((h) => h[0] !== BLOB_HASH_VERSION)
    if (bad >= 0) return new MessageRuleError(`blob ${bad} has invalid hash version`)
  }
  const blobGas = blobGasOf(req)
  if (blobGas > 0n && env.blobBaseFee !== undefined && p.blobFeeCap !== 0n && p.blobFeeCap < env.blobBaseFee) {
    return new MessageRuleError(
      `max fee per blob gas less than block blob gas fee: address ${sender} blobGasFeeCap: ${p.blobFeeCap}, blobBaseFee: ${env.blobBaseFee}`,
    )
  }
  if (req.authorizationList !== undefined) {
    if (req.to === undefined) {
      return new MessageRuleError(`EIP-7702 transaction cannot be used to create contract (sender ${sender})`)
    }
    if (req.authorizationList.length === 0) {
      return new MessageRuleError(`EIP-7702 transaction with empty auth list (sender ${sender})`)
    }
  }
  const initCode = req.data?.length ?? 0
  if (req.to === undefined && env.common.isActivatedEIP(3860) && initCode > MAX_INIT_CODE_SIZE) {
    return new MessageRuleError(`max initcode size exceeded: code size ${initCode} limit ${MAX_INIT_CODE_SIZE}`)
  }
  // buyGas: gas × fee cap + value + blob gas × blob fee cap must be held; what is paid
  // (gas × price + blob gas × blob base fee) must fit 256 bits too
  const want = gas * p.feeCap + (req.value ?? 0n) + blobGas * p.blobFeeCap
  const paid = gas * p.gasPrice + blobGas * (p.blobFeeCap === 0n ? 0n : (env.blobBaseFee ?? 0n))
  if (want >= UINT256_LIMIT || paid >= UINT256_LIMIT) return new InsufficientFundsError(sender, balance, UINT256_LIMIT)
  if (balance < want) return new InsufficientFundsError(sender, balance, want)
  return undefined
}

/** Types of the transaction a message runs as. */
const LEGACY = 0
const ACCESS_LIST = 1
const DYNAMIC_FEE = 2
const BLOB = 3
const SET_CODE = 4

/** A valid stand-in for fields ethereumjs validates at construction (replaced right after). */
const PLACEHOLDER_BLOB_HASH = `0x01${'00'.repeat(31)}` as PrefixedHexString
const PLACEHOLDER_AUTHORIZATION = [1n, new Uint8Array(20), 0n, 0n, 1n, 1n].map((v) =>
  typeof v === 'bigint' ? bigIntToUnpaddedBytes(v) : v,
)

const hexOf = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}` as PrefixedHexString

/**
 * The unsigned transaction of a message (its sender is whoever `req.from` says), with `gas` and
 * the sender's `nonce` in state. Blob and authorization fields make a blob or set-code
 * transaction whatever the fee style (a gas price is then fee cap and tip, as geth's message).
 * Gas, nonce, blob hashes and authorizations are set after construction, unchecked, as geth's
 * ToTransaction builds whatever it is given: a nonce of 2^64-1 (an override can give one), more
 * blobs than a block holds, an empty authorization list (refused by precheckError before a
 * message runs, but hashed by eth_createAccessList's refusal).
 */
export function buildTx(req: CallRequest, gas: bigint, nonce: bigint, common: Common): TypedTransaction {
  const base = {
    to: req.to,
    data: req.data,
    value: req.value ?? 0n,
    gasLimit: 0n,
    nonce: 0n,
    accessList: req.accessList,
  }
  const hashes = req.blobVersionedHashes
  const auths = req.authorizationList
  const type =
    auths !== undefined
      ? SET_CODE
      : hashes !== undefined
        ? BLOB
        : req.maxFeePerGas !== undefined || req.maxPriorityFeePerGas !== undefined
          ? DYNAMIC_FEE
          : req.accessList !== undefined
            ? ACCESS_LIST
            : LEGACY
  const fees =
    req.gasPrice !== undefined
      ? { maxFeePerGas: req.gasPrice, maxPriorityFeePerGas: req.gasPrice }
      : {
          maxFeePerGas: req.maxFeePerGas ?? req.maxPriorityFeePerGas ?? 0n,
          maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n,
        }
  // ethereumjs refuses a blob or set-code transaction without a destination: a stand-in one
  // (such a message is refused by precheckError; only its hash is ever taken)
  const to = type >= BLOB ? (req.to ?? new Uint8Array(20)) : req.to
  let data: Record<string, unknown>
  switch (type) {
    case SET_CODE:
      data = { ...base, ...fees, to, type, authorizationList: [PLACEHOLDER_AUTHORIZATION] }
      break
    case BLOB:
      data = {
        ...base,
        ...fees,
        to,
        type,
        blobVersionedHashes: [PLACEHOLDER_BLOB_HASH],
        maxFeePerBlobGas: req.maxFeePerBlobGas ?? 0n,
      }
      break
    case DYNAMIC_FEE:
      data = { ...base, ...fees, type }
      break
    default:
      data = { ...base, type, gasPrice: req.gasPrice ?? 0n }
  }
  const tx = createTx(data as never, { common, freeze: false, allowUnlimitedInitCodeSize: true })
  const mutable = tx as unknown as {
    nonce: bigint
    gasLimit: bigint
    blobVersionedHashes?: PrefixedHexString[]
    authorizationList?: Uint8Array[][]
  }
  mutable.nonce = nonce
  mutable.gasLimit = gas
  if (type === BLOB) mutable.blobVersionedHashes = (hashes ?? []).map(hexOf)
  if (type === SET_CODE) {
    mutable.authorizationList = (auths ?? []).map((a) => [
      bigIntToUnpaddedBytes(a.chainId),
      a.address,
      bigIntToUnpaddedBytes(a.nonce),
      bigIntToUnpaddedBytes(BigInt(a.yParity)),
      bigIntToUnpaddedBytes(a.r),
      bigIntToUnpaddedBytes(a.s),
    ])
  }
  unsignedSender(tx, new Address(req.from ?? new Uint8Array(20)))
  return tx
}

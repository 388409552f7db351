/**
 * A transaction for an unlocked account, from a client's incomplete request to signed bytes:
 *
 *   CallArgs ─▶ fillTransaction (geth's TransactionArgs.setDefaults: fees, value, nonce, gas, chain id;
 *               the type as ToTransaction picks it) ─▶ signTransaction (RLP, keccak, secp256k1)
 *            ─▶ raw bytes for the pool (eth_sendTransaction) or { raw, tx } (eth_signTransaction)
 *
 * Defaults: the nonce is the pool's next for the sender, gas is eth_estimateGas at the head with
 * the filled fees, the tip is eth_maxPriorityFeePerGas's suggestion and the fee cap twice the
 * head's base fee plus the tip (geth's). The type: legacy when `gasPrice` is given, an access-list
 * transaction when `gasPrice` comes with an `accessList` (or `type` 0x1: anvil's rule; geth would
 * drop the list), EIP-1559 otherwise; a request with no fee field at all may ask for 0x0 or 0x1 by
 * `type` and gets the EIP-1559 fee cap as its gas price. Blob and set-code transactions are not
 * signed here (geth refuses blobs too): sign them in the client and use eth_sendRawTransaction.
 */
import { RLP } from '@ethereumjs/rlp'
import type { Backend } from '../../backend.js'
import { ServerError } from '../../errors.js'
import type { AccessListEntry, CallArgs } from '../../params/index.js'
import { keccak256 } from '../../../util/crypto.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { toRequest } from '../eth/call.js'
import { feeMethods } from '../eth/fee.js'
import type { UnlockedAccounts } from './accountsKeys.js'

export const LEGACY_TX = 0
export const ACCESS_LIST_TX = 1
export const DYNAMIC_FEE_TX = 2
export type SignableType = typeof LEGACY_TX | typeof ACCESS_LIST_TX | typeof DYNAMIC_FEE_TX

/** geth's fee cap of a default EIP-1559 transaction: this many head base fees plus the tip, so a rising base fee does not strand it. */
export const BASE_FEE_HEADROOM = 2n
/** EIP-155: v = chainId · 2 + 35 + recovery id. */
const EIP155_V_OFFSET = 35n

/** A transaction with every field set, ready to sign. */
export interface FilledTx {
  type: SignableType
  chainId: bigint
  nonce: bigint
  /** Lowercase 0x address; undefined creates a contract. */
  to: string | undefined
  gas: bigint
  /** Legacy and access-list transactions. */
  gasPrice: bigint | undefined
  /** EIP-1559 transactions. */
  maxPriorityFeePerGas: bigint | undefined
  maxFeePerGas: bigint | undefined
  value: bigint
  data: Uint8Array
  accessList: AccessListEntry[]
}

export interface SignedTx {
  /** The bytes eth_sendRawTransaction takes (typed: type byte ‖ RLP). */
  raw: Uint8Array
  hash: Uint8Array
  /** geth's JSON of a signed transaction (types.Transaction.MarshalJSON), for eth_signTransaction. */
  json: Record<string, unknown>
}

/** What eth_signTransaction insists on before filling the rest (geth's wording). */
export function requireSignTransactionFields(args: CallArgs): void {
  if (args.gas === undefined) throw new ServerError('gas not specified')
  if (args.gasPrice === undefined && (args.maxPriorityFeePerGas === undefined || args.maxFeePerGas === undefined)) {
    throw new ServerError('missing gasPrice or maxFeePerGas/maxPriorityFeePerGas')
  }
  if (args.nonce === undefined) throw new ServerError('nonce not specified')
}

/** Refusals before anything is read: an unknown sender, then what these accounts do not sign. */
export function checkSignable(accounts: UnlockedAccounts, args: CallArgs): string {
  const from = args.from ?? `0x${'00'.repeat(20)}`
  if (!accounts.has(from)) throw new ServerError('unknown account')
  if (args.blobVersionedHashes !== undefined) throw new ServerError('signing blob transactions not supported')
  if (args.authorizationList !== undefined) {
    throw new ServerError(
      'signing set-code (EIP-7702) transactions not supported: sign it in the client and send it with eth_sendRawTransaction',
    )
  }
  return from
}

async function suggestedTip(b: Backend): Promise<bigint> {
  // the fee oracle's answer itself, so a send and a client's own fill agree
  return BigInt((await feeMethods.eth_maxPriorityFeePerGas?.handler(b, [])) as string)
}

function feeCapOrderError(maxFee: bigint, tip: bigint): ServerError {
  return new ServerError(`maxFeePerGas (${toQuantity(maxFee)}) < maxPriorityFeePerGas (${toQuantity(tip)})`)
}

interface Fees {
  type: SignableType
  gasPrice: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  maxFeePerGas: bigint | undefined
}

/** geth's setFeeDefaults, with the type chosen as the module doc says. */
async function fillFees(b: Backend, args: CallArgs): Promise<Fees> {
  const { gasPrice, maxFeePerGas, maxPriorityFeePerGas } = args
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw new ServerError('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  const baseFee = b.head().header.baseFeePerGas
  if (gasPrice !== undefined) {
    if (gasPrice === 0n && baseFee !== undefined) throw new ServerError('gasPrice must be non-zero after london fork')
    const type = args.accessList !== undefined || args.type === ACCESS_LIST_TX ? ACCESS_LIST_TX : LEGACY_TX
    return { type, gasPrice, maxPriorityFeePerGas: undefined, maxFeePerGas: undefined }
  }
  if (maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined) {
    if (maxFeePerGas === 0n) throw new ServerError('maxFeePerGas must be non-zero')
    if (maxFeePerGas < maxPriorityFeePerGas) throw feeCapOrderError(maxFeePerGas, maxPriorityFeePerGas)
    return { type: DYNAMIC_FEE_TX, gasPrice: undefined, maxPriorityFeePerGas, maxFeePerGas }
  }
  const tip = maxPriorityFeePerGas ?? (await suggestedTip(b))
  const cap = maxFeePerGas ?? tip + BASE_FEE_HEADROOM * (baseFee ?? 0n)
  if (cap < tip) throw feeCapOrderError(cap, tip)
  const noFeeField = maxFeePerGas === undefined && maxPriorityFeePerGas === undefined
  if (noFeeField && (args.type === LEGACY_TX || args.type === ACCESS_LIST_TX)) {
    return { type: args.type, gasPrice: cap, maxPriorityFeePerGas: undefined, maxFeePerGas: undefined }
  }
  return { type: DYNAMIC_FEE_TX, gasPrice: undefined, maxPriorityFeePerGas: tip, maxFeePerGas: cap }
}

/** geth's setDefaults for `from` (already checked by checkSignable), in its order of checks. */
export async function fillTransaction(b: Backend, from: string, args: CallArgs): Promise<FilledTx> {
  const fees = await fillFees(b, args)
  const value = args.value ?? 0n
  let nonce = args.nonce
  if (nonce === undefined) {
    const head = b.head()
    nonce = b.pendingNonce(from, (await b.account(head, from)).nonce)
  }
  const request = toRequest(args) // refuses data ≠ input, as geth does here
  const data = args.input ?? new Uint8Array(0)
  if (args.to === undefined && data.length === 0) throw new ServerError('contract creation without any data provided')
  let gas = args.gas
  if (gas === undefined) {
    gas = await b.estimateGas(b.head(), {
      ...request,
      from: request.from,
      gas: undefined,
      nonce: undefined,
      value,
      gasPrice: fees.gasPrice,
      maxFeePerGas: fees.maxFeePerGas,
      maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    })
  }
  if (args.chainId !== undefined && args.chainId !== b.chainId) {
    throw new ServerError(`chainId does not match node's (have=${args.chainId}, want=${b.chainId})`)
  }
  return {
    ...fees,
    chainId: b.chainId,
    nonce,
    to: args.to,
    gas,
    value,
    data,
    accessList: fees.type === LEGACY_TX ? [] : (args.accessList ?? []),
  }
}

function addressBytes(address: string | undefined): Uint8Array {
  return address === undefined ? new Uint8Array(0) : Buffer.from(address.slice(2), 'hex')
}

function accessListRlp(list: AccessListEntry[]): [Uint8Array, Uint8Array[]][] {
  return list.map((e) => [addressBytes(e.address), e.storageKeys])
}

/** The fields signed, in the type's RLP order (without the signature). */
function payload(tx: FilledTx): (bigint | Uint8Array | [Uint8Array, Uint8Array[]][])[] {
  const to = addressBytes(tx.to)
  if (tx.type === LEGACY_TX) return [tx.nonce, tx.gasPrice ?? 0n, tx.gas, to, tx.value, tx.data]
  const access = accessListRlp(tx.accessList)
  if (tx.type === ACCESS_LIST_TX) {
    return [tx.chainId, tx.nonce, tx.gasPrice ?? 0n, tx.gas, to, tx.value, tx.data, access]
  }
  const tip = tx.maxPriorityFeePerGas ?? 0n
  return [tx.chainId, tx.nonce, tip, tx.maxFeePerGas ?? 0n, tx.gas, to, tx.value, tx.data, access]
}

function typed(type: number, body: Uint8Array): Uint8Array {
  const out = new Uint8Array(body.length + 1)
  out[0] = type
  out.set(body, 1)
  return out
}

/** A 32-byte signature component as a number (RLP writes it without leading zeros). */
function bigOf(bytes: Uint8Array): bigint {
  return BigInt(`0x${Buffer.from(bytes).toString('hex')}`)
}

/** Signs `tx` with `from`'s key: EIP-155 for legacy transactions, y-parity for typed ones. */
export function signTransaction(accounts: UnlockedAccounts, from: string, tx: FilledTx): SignedTx {
  const fields = payload(tx)
  const legacy = tx.type === LEGACY_TX
  const unsigned = legacy ? RLP.encode([...fields, tx.chainId, 0n, 0n]) : typed(tx.type, RLP.encode(fields))
  const { rs, recovery } = accounts.signDigest(from, keccak256(unsigned))
  const r = bigOf(rs.subarray(0, 32))
  const s = bigOf(rs.subarray(32, 64))
  const v = legacy ? tx.chainId * 2n + EIP155_V_OFFSET + BigInt(recovery) : BigInt(recovery)
  const signed = RLP.encode([...fields, v, r, s])
  const raw = legacy ? signed : typed(tx.type, signed)
  const hash = keccak256(raw)
  return { raw, hash, json: transactionJson(tx, v, r, s, hash) }
}

/** geth's txJSON field order; null where geth's pointer is nil for the type. */
function transactionJson(tx: FilledTx, v: bigint, r: bigint, s: bigint, hash: Uint8Array): Record<string, unknown> {
  const legacy = tx.type === LEGACY_TX
  const dynamic = tx.type === DYNAMIC_FEE_TX
  const json: Record<string, unknown> = {
    type: toQuantity(tx.type),
    chainId: toQuantity(tx.chainId),
    nonce: toQuantity(tx.nonce),
    to: tx.to ?? null,
    gas: toQuantity(tx.gas),
    gasPrice: dynamic ? null : toQuantity(tx.gasPrice ?? 0n),
    maxPriorityFeePerGas: dynamic ? toQuantity(tx.maxPriorityFeePerGas ?? 0n) : null,
    maxFeePerGas: dynamic ? toQuantity(tx.maxFeePerGas ?? 0n) : null,
    value: toQuantity(tx.value),
    input: toData(tx.data),
  }
  if (!legacy) {
    json.accessList = tx.accessList.map((e) => ({
      address: e.address,
      storageKeys: e.storageKeys.map((k) => toData(k)),
    }))
  }
  json.v = toQuantity(v)
  json.r = toQuantity(r)
  json.s = toQuantity(s)
  if (!legacy) json.yParity = toQuantity(v)
  json.hash = toData(hash)
  return json
}

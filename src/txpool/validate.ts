/**
 * Admission checks for eth_sendRawTransaction, in geth's order and wording: size (per type, as
 * geth's subpools measure it), decoding, type, chain id / replay protection, signature, fee
 * fields, intrinsic gas and the EIP-7623 floor, block gas limit, price limit, base fee, nonce,
 * balance.
 */
import type { Common } from '@ethereumjs/common'
import { Capability, createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex } from '@ethereumjs/util'
import { effectiveTip, feeCapOf, tipCapOf } from '../chain/fees.js'
import type { PoolTx } from './index.js'
import { txErrors } from './errors.js'
import { primedSender } from './recovery.js'

/** Largest transaction accepted, bytes (geth's legacypool txMaxSize: 4 slots of 32 KiB = 128 KiB). */
export const TX_MAX_SIZE_BYTES = 4 * 32 * 1024
/**
 * Largest blob transaction, bytes, its sidecar (blobs, commitments, proofs) included: geth's
 * blobpool txMaxSize, which is what such a transaction is measured against there. Not a config
 * key, as geth's is not: ibex pools no blob transactions, so it only decides which refusal a
 * client hears.
 */
export const BLOB_TX_MAX_SIZE_BYTES = 1024 * 1024
/** EIP-2718 type byte of a blob transaction (EIP-4844). */
const BLOB_TX_TYPE = 3
/** EIP-7623 calldata floor, gas per token (Prague). */
const TOTAL_COST_FLOOR_PER_TOKEN = 10n
const TX_BASE_GAS = 21_000n

export interface AdmissionContext {
  common: Common
  chainId: bigint
  blockGasLimit: bigint
  /** Base fee of the next block. */
  nextBaseFee: bigint
  /** Minimum gas price / tip accepted (0 = none). */
  priceLimit: bigint
  account(sender: Uint8Array): Promise<{ nonce: bigint; balance: bigint }>
  /** True when the pool already holds this transaction. */
  known(hashHex: string): boolean
  /**
   * True when a block holds this transaction: asked only of a nonce below the account's (a mined
   * transaction always is), so that the usual admission reads no transaction index.
   */
  mined?(hash: Uint8Array): boolean
}

function calldataFloor(data: Uint8Array): bigint {
  let tokens = 0n
  for (const b of data) tokens += b === 0 ? 1n : 4n
  return TX_BASE_GAS + tokens * TOTAL_COST_FLOOR_PER_TOKEN
}

/**
 * The chain id a raw transaction is signed for (undefined: unprotected legacy, or not
 * decodable — decoding reports that). Read before full decoding, because ethereumjs refuses
 * to decode a transaction of another chain with a message geth would not give.
 */
function signedChainId(raw: Uint8Array): bigint | undefined {
  try {
    if ((raw[0] as number) >= 0xc0) {
      const v = bytesToBigInt((RLP.decode(raw) as Uint8Array[])[6] as Uint8Array)
      return v === 27n || v === 28n ? undefined : (v - 35n) / 2n
    }
    return bytesToBigInt((RLP.decode(raw.subarray(1)) as Uint8Array[])[0] as Uint8Array)
  } catch {
    return undefined
  }
}

/**
 * What a client hears when the bytes do not decode as a transaction. geth names the Go type its
 * RLP decoder stopped in; the decoder here is another library, whose text stays in the log.
 */
export const UNDECODABLE_TX = 'rlp: invalid transaction encoding'

export function decodeRawTransaction(raw: Uint8Array, common: Common): TypedTransaction {
  if (raw.length === 0) throw txErrors.decode('typed transaction too short')
  const chainId = signedChainId(raw)
  if (chainId !== undefined && chainId !== common.chainId()) throw txErrors.invalidChainId(chainId, common.chainId())
  try {
    return createTxFromRLP(raw, { common })
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err)
    if (/not supported|unknown|invalid tx type|Transaction type/i.test(msg) && (raw[0] as number) < 0x7f) {
      throw txErrors.typeNotSupported()
    }
    throw txErrors.decode(UNDECODABLE_TX, err)
  }
}

/**
 * The size limit of a raw transaction, by its type byte, as geth's subpools apply it: the blob
 * pool's for a blob transaction in its network form (with the sidecar), the legacy pool's for
 * every other type.
 */
export function maxTxSizeBytes(raw: Uint8Array): number {
  return raw[0] === BLOB_TX_TYPE ? BLOB_TX_MAX_SIZE_BYTES : TX_MAX_SIZE_BYTES
}

/** `decoded`: `raw` already decoded with `ctx.common` (its sender possibly recovered, recovery.ts). */
export async function validateTransaction(
  raw: Uint8Array,
  ctx: AdmissionContext,
  decoded?: TypedTransaction,
): Promise<PoolTx> {
  const maxSize = maxTxSizeBytes(raw)
  if (raw.length > maxSize) throw txErrors.oversized(raw.length, maxSize)
  // no blob pool: refused as geth refuses a type none of its subpools takes (before decoding,
  // which would need the network form's sidecar parsed only to be dropped)
  if (raw[0] === BLOB_TX_TYPE) throw txErrors.typeNotSupported()
  const tx = decoded ?? decodeRawTransaction(raw, ctx.common)
  if (tx.type === BLOB_TX_TYPE) throw txErrors.typeNotSupported()
  const hash = tx.hash()
  const hashHex = bytesToHex(hash)
  if (ctx.known(hashHex)) throw txErrors.alreadyKnown()

  // replay protection
  if (tx.type === 0) {
    if (!tx.supports(Capability.EIP155ReplayProtection)) throw txErrors.unprotected()
  } else if ((tx as { chainId: bigint }).chainId !== ctx.chainId) {
    throw txErrors.invalidChainId((tx as { chainId: bigint }).chainId, ctx.chainId)
  }
  let sender: Uint8Array
  try {
    sender = primedSender(tx) ?? tx.getSenderAddress().bytes
  } catch {
    throw txErrors.invalidSender()
  }
  if (tx.type === 4) {
    const list = (tx as unknown as { authorizationList: unknown[] }).authorizationList
    if (list.length === 0) throw txErrors.emptyAuthList()
    if (tx.to === undefined) throw txErrors.createSetCode()
  }

  const feeCap = feeCapOf(tx)
  const tipCap = tipCapOf(tx)
  if (tipCap > feeCap) throw txErrors.tipAboveFeeCap()
  if (tx.gasLimit > ctx.blockGasLimit) throw txErrors.gasLimit()
  const intrinsic = tx.getIntrinsicGas()
  if (tx.gasLimit < intrinsic) throw txErrors.intrinsicGas(tx.gasLimit, intrinsic)
  if (ctx.common.isActivatedEIP(7623)) {
    const floor = calldataFloor(tx.data)
    if (tx.gasLimit < floor) {
      throw txErrors.floorDataGas(tx.gasLimit, floor)
    }
  }
  if (ctx.priceLimit > 0n && tipCap < ctx.priceLimit) throw txErrors.underpriced(tipCap, ctx.priceLimit)
  const senderHex = bytesToHex(sender)
  if (feeCap < ctx.nextBaseFee) throw txErrors.feeCapTooLow(senderHex, feeCap, ctx.nextBaseFee)

  const account = await ctx.account(sender)
  if (tx.nonce < account.nonce) {
    if (ctx.mined?.(hash) === true) throw txErrors.alreadyKnown()
    throw txErrors.nonceTooLow(account.nonce, tx.nonce)
  }
  const cost = tx.gasLimit * feeCap + tx.value
  if (account.balance < cost) throw txErrors.insufficientFunds(account.balance, cost)

  return toPoolTx(tx, hash, hashHex, sender, senderHex, feeCap, tipCap, cost)
}

function toPoolTx(
  tx: TypedTransaction,
  hash: Uint8Array,
  hashHex: string,
  sender: Uint8Array,
  senderHex: string,
  feeCap: bigint,
  tipCap: bigint,
  cost: bigint,
): PoolTx {
  return {
    tx,
    hash,
    hashHex,
    sender,
    senderHex,
    nonce: tx.nonce,
    feeCap,
    tipCap,
    cost,
    tipAt: (baseFee: bigint) => effectiveTip(tx, baseFee),
  }
}

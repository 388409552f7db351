/**
 * Transaction objects as geth's RPCTransaction marshals them: per type, the fee fields,
 * accessList, chainId (legacy: only when EIP-155 protected), authorizationList, v/r/s and
 * yParity (typed only); gasPrice is the effective price once mined, the fee cap while pending.
 * A mined transaction is formatted once per block and position and kept (cache.ts).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { bytesToBigInt } from '@ethereumjs/util'
import { toData, toQuantity } from '../../util/hex.js'
import type { RpcObject } from './block.js'
import { FormatCache, keep, keyOf, keyOfOnce } from './cache.js'

const minedCache = new FormatCache<RpcObject>()

export interface TxContext {
  from: Uint8Array
  /** Absent for pending transactions. */
  blockHash?: Uint8Array
  blockNumber?: bigint
  blockTimestamp?: bigint
  index?: number
  baseFee?: bigint
  /** The hash, when the transaction cannot compute it (unsigned, as eth_simulateV1's). */
  hash?: Uint8Array
}

type AccessListBytes = [Uint8Array, Uint8Array[]][]
type AuthorizationBytes = [Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array, Uint8Array][]

function formatAccessList(list: AccessListBytes): RpcObject[] {
  return list.map(([address, keys]) => ({ address: toData(address), storageKeys: keys.map((k) => toData(k)) }))
}

/** geth's isProtectedV: a legacy signature made with EIP-155 (not 27/28, nor unsigned). */
function isProtectedV(v: bigint | undefined): boolean {
  if (v === undefined) return false
  return v !== 27n && v !== 28n && v !== 1n && v !== 0n
}

export function formatTransaction(tx: TypedTransaction, ctx: TxContext): RpcObject {
  // mined and signed (simulated transactions carry their hash and are not kept)
  if (ctx.blockHash === undefined || ctx.index === undefined || ctx.hash !== undefined) return buildTransaction(tx, ctx)
  const key = keyOf(ctx.blockHash, ctx.index)
  const known = minedCache.get(key)
  if (known !== undefined) return known
  return minedCache.set(key, keep(buildTransaction(tx, ctx)))
}

/** The object of mined transaction `index` of block `blockHash` when it was formatted before (see keptReceipt), else undefined. */
export function keptTransaction(blockHash: Uint8Array, index: number): RpcObject | undefined {
  return minedCache.get(keyOfOnce(blockHash, index))
}

function buildTransaction(tx: TypedTransaction, ctx: TxContext): RpcObject {
  const mined = ctx.blockHash !== undefined
  const out: RpcObject = {
    blockHash: mined ? toData(ctx.blockHash as Uint8Array) : null,
    blockNumber: mined ? toQuantity(ctx.blockNumber as bigint) : null,
  }
  if (mined && ctx.blockTimestamp !== undefined) out.blockTimestamp = toQuantity(ctx.blockTimestamp)
  out.from = toData(ctx.from)
  out.gas = toQuantity(tx.gasLimit)
  const t = tx as unknown as {
    gasPrice?: bigint
    maxFeePerGas?: bigint
    maxPriorityFeePerGas?: bigint
    accessList?: AccessListBytes
    authorizationList?: AuthorizationBytes
    chainId?: bigint
    maxFeePerBlobGas?: bigint
    blobVersionedHashes?: (Uint8Array | string)[]
  }
  if (tx.type === 0 || tx.type === 1) {
    out.gasPrice = toQuantity(t.gasPrice as bigint)
  } else {
    const feeCap = t.maxFeePerGas as bigint
    const tipCap = t.maxPriorityFeePerGas as bigint
    let price = feeCap
    if (mined && ctx.baseFee !== undefined) {
      const withTip = ctx.baseFee + tipCap
      price = withTip < feeCap ? withTip : feeCap
    }
    out.gasPrice = toQuantity(price)
    out.maxFeePerGas = toQuantity(feeCap)
    out.maxPriorityFeePerGas = toQuantity(tipCap)
    if (tx.type === 3) out.maxFeePerBlobGas = toQuantity(t.maxFeePerBlobGas ?? 0n)
  }
  out.hash = toData(ctx.hash ?? tx.hash())
  out.input = toData(tx.data)
  out.nonce = toQuantity(tx.nonce)
  out.to = tx.to === undefined ? null : toData(tx.to.bytes)
  out.transactionIndex = mined ? toQuantity(ctx.index as number) : null
  out.value = toQuantity(tx.value)
  out.type = toQuantity(tx.type)
  if (tx.type !== 0) {
    out.accessList = formatAccessList(t.accessList ?? [])
    out.chainId = toQuantity(t.chainId as bigint)
  } else if (isProtectedV(tx.v)) {
    out.chainId = toQuantity(tx.common.chainId())
  }
  // ethereumjs keeps the blob hashes as 0x strings
  if (tx.type === 3) {
    out.blobVersionedHashes = (t.blobVersionedHashes ?? []).map((h) =>
      typeof h === 'string' ? h.toLowerCase() : toData(h),
    )
  }
  if (tx.type === 4) {
    out.authorizationList = (t.authorizationList ?? []).map(([chainId, address, nonce, yParity, r, s]) => ({
      chainId: toQuantity(bytesToBigInt(chainId)),
      address: toData(address),
      nonce: toQuantity(bytesToBigInt(nonce)),
      yParity: toQuantity(bytesToBigInt(yParity)),
      r: toQuantity(bytesToBigInt(r)),
      s: toQuantity(bytesToBigInt(s)),
    }))
  }
  out.v = toQuantity(tx.v ?? 0n)
  out.r = toQuantity(tx.r ?? 0n)
  out.s = toQuantity(tx.s ?? 0n)
  if (tx.type !== 0) out.yParity = toQuantity(tx.v ?? 0n)
  return out
}

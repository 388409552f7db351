/**
 * What a transaction pays per gas under EIP-1559, for any transaction type: legacy and EIP-2930
 * transactions offer `gasPrice` as both their fee cap and their tip cap.
 */
import type { TypedTransaction } from '@ethereumjs/tx'

/** feeCapOf is the most the transaction pays per gas: maxFeePerGas, or gasPrice. */
export function feeCapOf(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
}

/** tipCapOf is the most the transaction tips per gas: maxPriorityFeePerGas, or gasPrice. */
export function tipCapOf(tx: TypedTransaction): bigint {
  return 'maxPriorityFeePerGas' in tx ? (tx.maxPriorityFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
}

/** effectiveTip is the tip paid to the block's miner per gas at `baseFee`. */
export function effectiveTip(tx: TypedTransaction, baseFee: bigint): bigint {
  const feeCap = feeCapOf(tx)
  const tipCap = tipCapOf(tx)
  const room = feeCap - baseFee
  return room < tipCap ? room : tipCap
}

/** effectiveGasPrice is the price actually paid per gas at `baseFee`. */
export function effectiveGasPrice(tx: TypedTransaction, baseFee: bigint): bigint {
  return baseFee + effectiveTip(tx, baseFee)
}

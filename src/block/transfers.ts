/**
 * Plain value transfers without the EVM. A transfer from an account without code to an account
 * without code, with no calldata and no access list, changes exactly three balances and one
 * nonce, and uses exactly 21,000 gas; ethereumjs' runTx spends ~150 µs per such transaction on
 * the machinery around it (warm sets, journal checkpoints, message frames). This applies the
 * same changes directly to the state manager, in runTx's order and arithmetic:
 *
 *   sender.balance -= gasLimit·price; sender.nonce += 1       (runTx: up-front gas, nonce)
 *   sender.balance -= value; recipient.balance += value        (the EVM's value transfer)
 *   sender.balance += (gasLimit − 21000)·price                 (refund of unused gas)
 *   coinbase.balance += 21000·(price − baseFee)                (the tip; the base fee is burned
 *                                                               or credited after the block)
 *
 * Anything else takes runTx, and so does anything this path would have to judge: a transaction
 * runTx might reject (nonce, funds, fee cap) or whose effect has an edge (zero value or zero tip:
 * EIP-161 deletes touched empty accounts; precompile recipients run code; the sender, recipient
 * or coinbase being the same account; forks after Prague, whose rules it does not know). So an
 * invalid transaction still fails with runTx's own error. transfers.test.ts executes the same
 * blocks both ways and compares state roots and receipts.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { type Address, createAccount, equalsBytes, KECCAK256_NULL } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'

/** Gas of a plain transfer: the intrinsic 21,000, no calldata (so no EIP-7623 floor above it). */
export const TRANSFER_GAS = 21_000n

/** EIPs after Prague that change how a transaction is charged or recorded: not handled here. */
const UNKNOWN_RULES = [7825, 7864, 7928, 8037]

/** True when `common`'s rules are ones this path reproduces (London…Prague). */
export function transfersApply(common: Common): boolean {
  return common.isActivatedEIP(1559) && !UNKNOWN_RULES.some((eip) => common.isActivatedEIP(eip))
}

function feeCapOf(tx: TypedTransaction): bigint {
  return 'maxFeePerGas' in tx ? (tx.maxFeePerGas as bigint) : (tx as { gasPrice: bigint }).gasPrice
}

/** The statically checkable part: a plain value transfer to a non-precompile, paying a tip. */
function isPlainTransfer(vm: VM, tx: TypedTransaction, sender: Address, coinbase: Address, baseFee: bigint): boolean {
  if (tx.type > 2 || tx.to === undefined || tx.data.length !== 0 || tx.value === 0n) return false
  if (tx.type !== 0 && ((tx as { accessList?: unknown[] }).accessList?.length ?? 0) !== 0) return false
  if (tx.gasLimit < TRANSFER_GAS || feeCapOf(tx) < baseFee) return false
  if (tx.to.equals(sender) || tx.to.equals(coinbase) || sender.equals(coinbase)) return false
  if (vm.evm.precompiles.has(Buffer.from(tx.to.bytes).toString('hex'))) return false
  return tx.getEffectivePriorityFee(baseFee) > 0n
}

/**
 * Applies `tx` as a plain transfer and returns true, or returns false having changed nothing
 * (then runTx must run it). `sender` is the recovered sender.
 */
export async function applyTransfer(
  vm: VM,
  sm: MerkleStateManager,
  tx: TypedTransaction,
  sender: Address,
  coinbase: Address,
  baseFee: bigint,
): Promise<boolean> {
  if (!isPlainTransfer(vm, tx, sender, coinbase, baseFee)) return false
  const to = tx.to as Address
  const from = await sm.getAccount(sender)
  if (from === undefined || from.nonce !== tx.nonce || !equalsBytes(from.codeHash, KECCAK256_NULL)) return false
  const tip = tx.getEffectivePriorityFee(baseFee)
  const price = baseFee + tip
  // runTx's two funding checks: the up-front cost at the effective price, and the fee cap
  const upFront = tx.gasLimit * price + tx.value
  const maxCost = tx.value + (tx.type === 2 ? tx.gasLimit * feeCapOf(tx) : 0n)
  if (from.balance < upFront || from.balance < maxCost) return false
  const recipient = await sm.getAccount(to)
  if (recipient !== undefined && !equalsBytes(recipient.codeHash, KECCAK256_NULL)) return false

  from.balance -= TRANSFER_GAS * price + tx.value
  from.nonce += 1n
  await sm.putAccount(sender, from)
  const credited = recipient ?? createAccount({})
  credited.balance += tx.value
  await sm.putAccount(to, credited)
  const miner = (await sm.getAccount(coinbase)) ?? createAccount({})
  miner.balance += TRANSFER_GAS * tip
  await sm.putAccount(coinbase, miner)
  return true
}

/**
 * The end of a simulated block, as geth's beacon engine finalizes one: withdrawals credited,
 * EIP-7685 requests collected (EIP-6110 deposit logs, then the EIP-7002 withdrawal and EIP-7251
 * consolidation queues, each dequeued by a system call), PoW rewards before the merge.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, Address, concatBytes, equalsBytes } from '@ethereumjs/util'
import type { VM } from '@ethereumjs/vm'
import { sha256 } from 'ethereum-cryptography/sha256.js'
import type { LogTuple } from '../chain/receipt.js'
import { CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS, WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS } from '../chain/forks.js'
import type { Withdrawal } from './types.js'

const SYSTEM_ADDRESS = new Address(Buffer.from('fffffffffffffffffffffffffffffffffffffffe', 'hex'))
/** Gas of a system call (EIP-7002/7251: 30M). */
const SYSTEM_CALL_GAS = 30_000_000n
const GWEI = 1_000_000_000n
const DEPOSIT_TOPIC = Buffer.from('649bbc62d0e31342afea4e5cd82d4049e7e1ee912fc0889aa790803be39038c5', 'hex')
/** ABI layout of the deposit contract's DepositEvent data (geth core/types/deposit.go). */
const DEPOSIT_LOG_BYTES = 576

/** Credits each withdrawal (amounts in Gwei). */
export async function creditWithdrawals(sm: MerkleStateManager, withdrawals: Withdrawal[]): Promise<void> {
  for (const w of withdrawals) {
    if (w.amount === 0n) continue
    const address = new Address(w.address)
    const account = (await sm.getAccount(address)) ?? new Account()
    account.balance += w.amount * GWEI
    await sm.putAccount(address, account)
  }
}

/** Pays the PoW block reward (pre-merge blocks only). */
export async function payBlockReward(sm: MerkleStateManager, common: Common, coinbase: Uint8Array): Promise<void> {
  if (common.consensusType() !== 'pow') return
  const address = new Address(coinbase)
  const account = (await sm.getAccount(address)) ?? new Account()
  account.balance += common.param('minerReward')
  await sm.putAccount(address, account)
}

function depositRequest(data: Uint8Array): Uint8Array | undefined {
  if (data.length !== DEPOSIT_LOG_BYTES) return undefined
  return concatBytes(
    data.subarray(192, 240), // pubkey
    data.subarray(288, 320), // withdrawal credentials
    data.subarray(352, 360), // amount
    data.subarray(416, 512), // signature
    data.subarray(544, 552), // index
  )
}

async function dequeue(vm: VM, sm: MerkleStateManager, contract: string, block: unknown): Promise<Uint8Array> {
  const to = new Address(Buffer.from(contract.slice(2), 'hex'))
  if ((await sm.getCode(to)).length === 0) return new Uint8Array(0)
  const before = await sm.getAccount(SYSTEM_ADDRESS)
  const result = await vm.evm.runCall({ caller: SYSTEM_ADDRESS, to, gasLimit: SYSTEM_CALL_GAS, block: block as never })
  if (before === undefined) await sm.deleteAccount(SYSTEM_ADDRESS)
  else await sm.putAccount(SYSTEM_ADDRESS, before)
  return result.execResult.exceptionError === undefined ? result.execResult.returnValue : new Uint8Array(0)
}

/**
 * EIP-7685: the block's requests hash, sha256 over sha256(type ‖ data) of each non-empty
 * request list (deposits 0, withdrawals 1, consolidations 2).
 */
export async function requestsHash(
  vm: VM,
  sm: MerkleStateManager,
  logs: LogTuple[],
  depositContract: Uint8Array,
  block: unknown,
): Promise<Uint8Array> {
  const deposits: Uint8Array[] = []
  for (const [address, topics, data] of logs) {
    if (!equalsBytes(address, depositContract) || topics.length === 0) continue
    if (!equalsBytes(topics[0] as Uint8Array, DEPOSIT_TOPIC)) continue
    const request = depositRequest(data)
    if (request !== undefined) deposits.push(request)
  }
  const lists: [number, Uint8Array][] = [[0, concatBytes(...deposits)]]
  lists.push([1, await dequeue(vm, sm, WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS, block)])
  lists.push([2, await dequeue(vm, sm, CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS, block)])
  const hashes = lists
    .filter(([, data]) => data.length > 0)
    .map(([type, data]) => sha256(concatBytes(Uint8Array.of(type), data)))
  return sha256(concatBytes(...hashes))
}

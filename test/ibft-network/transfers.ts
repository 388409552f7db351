/**
 * What the transaction-delivery tests share: signed value transfers sent to a node over
 * eth_sendRawTransaction, kill -9 of a cluster node, and receipt collection.
 */
import { privateKeyToAccount } from 'viem/accounts'

import type { DevAccount } from '../helpers/dev.js'
import { rpc } from '../helpers/node.js'
import type { Cluster } from './cluster.js'

/** Fee cap of the test transfers: far above any base fee these short chains reach. */
const TRANSFER_FEE_CAP_WEI = 10n ** 11n
const TRANSFER_TIP_WEI = 10n ** 9n

/** A signed transfer of `value` wei with `nonce` from `from`. */
export async function signTransfer(
  chainId: number,
  from: DevAccount,
  nonce: number,
  to: `0x${string}`,
  value: bigint,
): Promise<`0x${string}`> {
  return privateKeyToAccount(from.privateKey).signTransaction({
    chainId,
    type: 'eip1559',
    to,
    value,
    gas: 21_000n,
    nonce,
    maxFeePerGas: TRANSFER_FEE_CAP_WEI,
    maxPriorityFeePerGas: TRANSFER_TIP_WEI,
  })
}

/** SIGKILLs node `index` (no shutdown: the pool journal and the database are left as a crash leaves them). */
export async function kill9(net: Cluster, index: number): Promise<void> {
  const child = net.node(index).child
  if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
  child.kill('SIGKILL')
  await exited
}

/** The hashes among `hashes` that have no receipt on the node at `url`. */
export async function withoutReceipt(url: string, hashes: readonly string[]): Promise<string[]> {
  const missing: string[] = []
  for (const h of hashes) if ((await rpc(url, 'eth_getTransactionReceipt', [h])) === null) missing.push(h)
  return missing
}

/** txpool_status counts of the node at `url`. */
export async function poolStatus(url: string): Promise<{ pending: number; queued: number }> {
  const s = await rpc<{ pending: string; queued: string }>(url, 'txpool_status')
  return { pending: Number(BigInt(s.pending)), queued: Number(BigInt(s.queued)) }
}

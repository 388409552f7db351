/**
 * Signing and sending raw transactions over plain JSON-RPC (for the tests that do not go through
 * ethers/viem providers): fees chosen from what the node reports, signatures by viem's local
 * account, submission by eth_sendRawTransaction.
 */
import type { Hex, TransactionSerializable } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { DEV_CHAIN_ID } from './dev.js'
import { rpc } from './node.js'

/** Priority fee offered when the node does not suggest one. */
export const DEFAULT_PRIORITY_FEE_WEI = 1_000_000_000n

export interface Fees {
  baseFee: bigint
  maxPriorityFeePerGas: bigint
  maxFeePerGas: bigint
  /** For legacy / EIP-2930 transactions. */
  gasPrice: bigint
}

/** Fees that the node will accept now and for a few blocks of base-fee growth. */
export async function currentFees(url: string): Promise<Fees> {
  const block = await rpc(url, 'eth_getBlockByNumber', ['latest', false])
  const baseFee = BigInt(block.baseFeePerGas ?? '0x0')
  const gasPrice = BigInt(await rpc<string>(url, 'eth_gasPrice'))
  let prio = DEFAULT_PRIORITY_FEE_WEI
  try {
    prio = BigInt(await rpc<string>(url, 'eth_maxPriorityFeePerGas'))
    if (prio === 0n) prio = 1n
  } catch {
    // not served: keep the default
  }
  let maxFeePerGas = 2n * baseFee + prio
  if (maxFeePerGas < gasPrice) maxFeePerGas = gasPrice
  return { baseFee, maxPriorityFeePerGas: prio, maxFeePerGas, gasPrice: gasPrice > baseFee ? gasPrice : baseFee + prio }
}

export interface TxRequest {
  to?: Hex | null
  value?: bigint
  data?: Hex
  gas?: bigint
  nonce?: number
  type?: 'legacy' | 'eip2930' | 'eip1559'
}

/** Signs `req` with `privateKey` (chain 1337), filling nonce (pending) and fees from the node. */
export async function signTx(url: string, privateKey: Hex, req: TxRequest, fees?: Fees): Promise<Hex> {
  const account = privateKeyToAccount(privateKey)
  const f = fees ?? (await currentFees(url))
  const nonce =
    req.nonce ?? Number(BigInt(await rpc<string>(url, 'eth_getTransactionCount', [account.address, 'pending'])))
  const base = {
    chainId: DEV_CHAIN_ID,
    to: req.to ?? null,
    value: req.value ?? 0n,
    data: req.data,
    gas: req.gas ?? 21_000n,
    nonce,
  }
  const type = req.type ?? 'eip1559'
  let tx: TransactionSerializable
  if (type === 'legacy') tx = { ...base, type, gasPrice: f.gasPrice }
  else if (type === 'eip2930') tx = { ...base, type, gasPrice: f.gasPrice, accessList: [] }
  else tx = { ...base, type, maxFeePerGas: f.maxFeePerGas, maxPriorityFeePerGas: f.maxPriorityFeePerGas }
  return account.signTransaction(tx)
}

/** Signs and submits; returns the hash the node answered. */
export async function sendTx(url: string, privateKey: Hex, req: TxRequest, fees?: Fees): Promise<Hex> {
  const raw = await signTx(url, privateKey, req, fees)
  return rpc<Hex>(url, 'eth_sendRawTransaction', [raw])
}

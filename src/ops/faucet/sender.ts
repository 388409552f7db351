/**
 * The faucet's wallet: signs EIP-1559 value transfers with the faucet key and sends them through
 * the node's JSON-RPC. Sends are serialised (one at a time), so each takes the next pending nonce.
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex } from '@ethereumjs/util'

import { addressOfPrivateKey } from '../../config/accounts.js'

/** Tip offered when the node suggests none (1 gwei, the public networks' price limit). */
export const FAUCET_DEFAULT_TIP_WEI = 1_000_000_000n
/** Time allowed for one JSON-RPC call to the node. */
export const FAUCET_RPC_TIMEOUT_MS = 10_000

/** The node could not be reached or refused the call. */
export class NodeRpcError extends Error {
  override name = 'NodeRpcError'
}

export class FaucetSender {
  readonly rpcUrl: string
  readonly address: string
  readonly #key: Uint8Array
  #chainId: bigint | undefined
  #queue: Promise<unknown> = Promise.resolve()
  #id = 1

  constructor(rpcUrl: string, privateKey: Uint8Array) {
    this.rpcUrl = rpcUrl
    this.#key = privateKey
    this.address = addressOfPrivateKey(privateKey)
  }

  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    let res: Response
    try {
      res = await fetch(this.rpcUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.#id++, method, params }),
        signal: AbortSignal.timeout(FAUCET_RPC_TIMEOUT_MS),
      })
    } catch (err) {
      throw new NodeRpcError(`node ${this.rpcUrl} unreachable: ${(err as Error).message}`)
    }
    const body = (await res.json().catch(() => undefined)) as { result?: T; error?: { message: string } } | undefined
    if (body === undefined) throw new NodeRpcError(`node ${this.rpcUrl} answered HTTP ${res.status} without JSON`)
    if (body.error !== undefined) throw new NodeRpcError(`${method}: ${body.error.message}`)
    return body.result as T
  }

  async chainId(): Promise<bigint> {
    this.#chainId ??= BigInt(await this.rpc<string>('eth_chainId'))
    return this.#chainId
  }

  async balance(): Promise<bigint> {
    return BigInt(await this.rpc<string>('eth_getBalance', [this.address, 'latest']))
  }

  /** Sends `valueWei` to `to`; resolves with the transaction hash once the node accepted it. */
  send(to: string, valueWei: bigint): Promise<string> {
    const next = this.#queue.then(() => this.#send(to, valueWei))
    this.#queue = next.catch(() => undefined)
    return next
  }

  async #send(to: string, valueWei: bigint): Promise<string> {
    const chainId = await this.chainId()
    const [nonce, block, gasPrice, gas] = await Promise.all([
      this.rpc<string>('eth_getTransactionCount', [this.address, 'pending']),
      this.rpc<{ baseFeePerGas?: string }>('eth_getBlockByNumber', ['latest', false]),
      this.rpc<string>('eth_gasPrice'),
      this.rpc<string>('eth_estimateGas', [{ from: this.address, to, value: `0x${valueWei.toString(16)}` }]),
    ])
    let tip = FAUCET_DEFAULT_TIP_WEI
    try {
      tip = BigInt(await this.rpc<string>('eth_maxPriorityFeePerGas'))
    } catch {
      // not served: the default
    }
    const baseFee = BigInt(block.baseFeePerGas ?? '0x0')
    let maxFee = 2n * baseFee + tip
    if (maxFee < BigInt(gasPrice)) maxFee = BigInt(gasPrice)
    const common = createCustomCommon({ chainId: Number(chainId) }, Mainnet, { hardfork: Hardfork.Prague })
    const tx = createFeeMarket1559Tx(
      {
        chainId,
        nonce: BigInt(nonce),
        to: to as `0x${string}`,
        value: valueWei,
        gasLimit: BigInt(gas),
        maxFeePerGas: maxFee,
        maxPriorityFeePerGas: tip,
      },
      { common },
    ).sign(this.#key)
    await this.rpc<string>('eth_sendRawTransaction', [bytesToHex(tx.serialize())])
    return bytesToHex(tx.hash())
  }
}

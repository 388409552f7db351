/**
 * The base chain over JSON-RPC (undici): the CheckpointManager's views and events, and the
 * submitter's transactions. Every request has a deadline (BASE_RPC_TIMEOUT_MS), so a base chain
 * that is down or slow makes a call fail, never hang; the checkpoint service retries later.
 *
 *   BaseChain.call(to, data)            eth_call at latest ('reverted' with the revert data)
 *   ManagerReader (views): count, lastEnd, headerBlock(id), signers with powers
 *   BaseChain.logs(address, from, to)   eth_getLogs of the manager, decoded (managerAbi.ts)
 *   Submitter.send(to, data)            EIP-1559 transaction signed with the submitter key,
 *                                       gas from eth_estimateGas (+ margin), nonce given or 'pending'
 */
import { createCustomCommon, Hardfork, Mainnet } from '@ethereumjs/common'
import { createFeeMarket1559Tx } from '@ethereumjs/tx'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { request } from 'undici'

import { keccak256 } from '../../util/keccak.js'
import { BaseChainError } from './baseErrors.js'
import {
  decodeAddresses,
  decodeHeaderBlock,
  type HeaderBlock,
  HEADER_BLOCK_STEP,
  headerBlocksCalldata,
  powerOfCalldata,
  type RawLog,
  SELECTORS,
  submitCheckpointCalldata,
  wordAt,
} from './managerAbi.js'
import type { CheckpointBase, ManagerView, SubmissionStatus } from './ports.js'

/** One base-chain request may take this long (connect, headers and body) before it fails. */
export const BASE_RPC_TIMEOUT_MS = 10_000
/** Largest base-chain answer read: a page of logs is far below it. */
export const BASE_RPC_MAX_ANSWER_BYTES = 16 * 1024 * 1024
/** Gas estimate margin (percent added): the set of signatures checked can differ by a few from the estimate's state. */
export const SUBMIT_GAS_MARGIN_PERCENT = 25n
/** Tip offered when the base chain suggests none (1 gwei). */
export const DEFAULT_TIP_WEI = 1_000_000_000n

type Hex = `0x${string}`

export interface BaseReceipt {
  status: boolean
  blockNumber: bigint
  transactionHash: Uint8Array
  /** The created contract, for a deployment. */
  contractAddress: Uint8Array | undefined
}

/** JSON-RPC to the base chain. */
export class BaseChain {
  readonly url: string
  #id = 1

  constructor(url: string) {
    this.url = url
  }

  async rpc<T>(method: string, params: unknown[] = []): Promise<T> {
    let text: string
    try {
      const res = await request(this.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ jsonrpc: '2.0', id: this.#id++, method, params }),
        headersTimeout: BASE_RPC_TIMEOUT_MS,
        bodyTimeout: BASE_RPC_TIMEOUT_MS,
        signal: AbortSignal.timeout(BASE_RPC_TIMEOUT_MS),
      })
      text = await res.body.text()
      if (text.length > BASE_RPC_MAX_ANSWER_BYTES)
        throw new BaseChainError('bad-answer', `${method}: answer of ${text.length} bytes`)
      if (res.statusCode >= 400 && !text.startsWith('{'))
        throw new BaseChainError('unreachable', `${method}: HTTP ${res.statusCode}`)
    } catch (err) {
      if (err instanceof BaseChainError) throw err
      throw new BaseChainError('unreachable', `${this.url} ${method}: ${(err as Error).message}`, { cause: err })
    }
    let body: { result?: T; error?: { code: number; message: string; data?: unknown } }
    try {
      body = JSON.parse(text)
    } catch {
      throw new BaseChainError('bad-answer', `${method}: not JSON`)
    }
    if (body.error !== undefined) {
      const data = typeof body.error.data === 'string' ? body.error.data : undefined
      const reverted = data !== undefined || /revert/i.test(body.error.message)
      throw new BaseChainError(reverted ? 'reverted' : 'rpc-error', `${method}: ${body.error.message}`, { data })
    }
    return body.result as T
  }

  async chainId(): Promise<bigint> {
    return BigInt(await this.rpc<string>('eth_chainId'))
  }

  async blockNumber(): Promise<bigint> {
    return BigInt(await this.rpc<string>('eth_blockNumber'))
  }

  async code(address: Uint8Array): Promise<Uint8Array> {
    return hexToBytes(await this.rpc<Hex>('eth_getCode', [bytesToHex(address), 'latest']))
  }

  /** eth_call at `block` (a tag or a 0x number; latest by default). */
  async call(to: Uint8Array, data: Uint8Array, block = 'latest'): Promise<Uint8Array> {
    return hexToBytes(await this.rpc<Hex>('eth_call', [{ to: bytesToHex(to), data: bytesToHex(data) }, block]))
  }

  async logs(address: Uint8Array, topics: (Uint8Array[] | null)[], fromBlock: bigint, toBlock: bigint): Promise<RawLog[]> {
    const raw = await this.rpc<{ topics: Hex[]; data: Hex; blockNumber: Hex; transactionHash: Hex }[]>('eth_getLogs', [
      {
        address: bytesToHex(address),
        topics: topics.map((t) => (t === null ? null : t.map(bytesToHex))),
        fromBlock: `0x${fromBlock.toString(16)}`,
        toBlock: `0x${toBlock.toString(16)}`,
      },
    ])
    return raw.map((l) => ({
      topics: l.topics.map((t) => hexToBytes(t)),
      data: hexToBytes(l.data),
      blockNumber: BigInt(l.blockNumber),
      transactionHash: hexToBytes(l.transactionHash),
    }))
  }

  async receipt(txHash: Uint8Array): Promise<BaseReceipt | undefined> {
    const r = await this.rpc<{ status: Hex; blockNumber: Hex; transactionHash: Hex; contractAddress?: Hex | null } | null>(
      'eth_getTransactionReceipt',
      [bytesToHex(txHash)],
    )
    if (r === null) return undefined
    return {
      status: r.status === '0x1',
      blockNumber: BigInt(r.blockNumber),
      transactionHash: hexToBytes(r.transactionHash),
      contractAddress: typeof r.contractAddress === 'string' ? hexToBytes(r.contractAddress) : undefined,
    }
  }

  /** waitReceipt polls for a transaction's receipt; throws BaseChainError('unreachable') after `timeoutMs`. */
  async waitReceipt(txHash: Uint8Array, timeoutMs: number, pollMs: number): Promise<BaseReceipt> {
    const until = Date.now() + timeoutMs
    for (;;) {
      const r = await this.receipt(txHash)
      if (r !== undefined) return r
      if (Date.now() > until)
        throw new BaseChainError('unreachable', `transaction ${bytesToHex(txHash)} not mined within ${timeoutMs} ms`)
      await new Promise((resolve) => setTimeout(resolve, pollMs))
    }
  }

  /** Whether the base chain still knows the transaction (pending or mined). */
  async knowsTransaction(txHash: Uint8Array): Promise<boolean> {
    return (await this.rpc<unknown>('eth_getTransactionByHash', [bytesToHex(txHash)])) !== null
  }
}

/** The contract's current validator set: signers ascending with their powers. */
export interface ManagerSet {
  signers: Uint8Array[]
  powers: bigint[]
  total: bigint
}

/** Views of the CheckpointManager. */
export class ManagerReader {
  readonly chain: BaseChain
  readonly address: Uint8Array

  constructor(chain: BaseChain, address: Uint8Array) {
    this.chain = chain
    this.address = address
  }

  async #uint(data: Uint8Array, what: string): Promise<bigint> {
    return wordAt(await this.chain.call(this.address, data), 0, what)
  }

  /** Id of the last checkpoint (0 = none yet). */
  currentHeaderBlock(): Promise<bigint> {
    return this.#uint(SELECTORS.currentHeaderBlock, 'currentHeaderBlock()')
  }

  /** End of the last checkpoint (0 = none yet). */
  lastChildBlock(): Promise<bigint> {
    return this.#uint(SELECTORS.getLastChildBlock, 'getLastChildBlock()')
  }

  async headerBlock(id: bigint): Promise<HeaderBlock> {
    return decodeHeaderBlock(id, await this.chain.call(this.address, headerBlocksCalldata(id)))
  }

  async set(): Promise<ManagerSet> {
    const signers = decodeAddresses(await this.chain.call(this.address, SELECTORS.signers), 0, 'signers()')
    const powers = await Promise.all(signers.map((s) => this.#uint(powerOfCalldata(s), 'powerOf()')))
    return { signers, powers, total: powers.reduce((a, b) => a + b, 0n) }
  }
}

/** checkpointCount: checkpoints stored, from currentHeaderBlock(). */
export function checkpointCount(currentHeaderBlock: bigint): bigint {
  return currentHeaderBlock / HEADER_BLOCK_STEP
}

/** Signs and sends transactions with the submitter key. */
export class Submitter {
  readonly chain: BaseChain
  readonly address: Uint8Array
  readonly #key: Uint8Array
  readonly #chainId: bigint

  constructor(chain: BaseChain, privateKey: Uint8Array, address: Uint8Array, chainId: bigint) {
    this.chain = chain
    this.#key = privateKey
    this.address = address
    this.#chainId = chainId
  }

  /** The next nonce of the submitter, pending transactions included. */
  async pendingNonce(): Promise<bigint> {
    return BigInt(await this.chain.rpc<Hex>('eth_getTransactionCount', [bytesToHex(this.address), 'pending']))
  }

  /** estimateGas throws BaseChainError('reverted') when the call would revert (NotContinuous, BadSignature…). */
  async estimateGas(to: Uint8Array | undefined, data: Uint8Array): Promise<bigint> {
    const call = { from: bytesToHex(this.address), data: bytesToHex(data), ...(to === undefined ? {} : { to: bytesToHex(to) }) }
    return BigInt(await this.chain.rpc<Hex>('eth_estimateGas', [call]))
  }

  /** Signs a transaction calling `to` with `data`; the raw bytes and their hash. */
  async sign(to: Uint8Array | undefined, data: Uint8Array, nonce: bigint, gas: bigint): Promise<{ raw: Uint8Array; hash: Uint8Array }> {
    const block = await this.chain.rpc<{ baseFeePerGas?: Hex }>('eth_getBlockByNumber', ['latest', false])
    let tip = DEFAULT_TIP_WEI
    try {
      tip = BigInt(await this.chain.rpc<Hex>('eth_maxPriorityFeePerGas'))
    } catch {
      // not served: the default
    }
    const baseFee = BigInt(block.baseFeePerGas ?? '0x0')
    const common = createCustomCommon({ chainId: Number(this.#chainId) }, Mainnet, { hardfork: Hardfork.Prague })
    const tx = createFeeMarket1559Tx(
      {
        chainId: this.#chainId,
        nonce,
        to,
        gasLimit: gas + (gas * SUBMIT_GAS_MARGIN_PERCENT) / 100n,
        maxFeePerGas: 2n * baseFee + tip,
        maxPriorityFeePerGas: tip,
        data,
      },
      { common },
    ).sign(this.#key)
    const raw = tx.serialize()
    return { raw, hash: keccak256(raw) }
  }

  /** Sends a signed transaction; a resend of one the base chain already has is not a failure. */
  async sendRaw(raw: Uint8Array): Promise<void> {
    try {
      await this.chain.rpc<Hex>('eth_sendRawTransaction', [bytesToHex(raw)])
    } catch (err) {
      if (err instanceof BaseChainError && /already known|known transaction/i.test(err.message)) return
      throw err
    }
  }

  /** Signs and sends; resolves with the transaction hash once the base chain accepted it. */
  async send(to: Uint8Array | undefined, data: Uint8Array, nonce: bigint, gas: bigint): Promise<Uint8Array> {
    const { raw, hash } = await this.sign(to, data, nonce, gas)
    await this.sendRaw(raw)
    return hash
  }
}

/**
 * The checkpoint service's view of the base chain (service.ts CheckpointBase): the manager's
 * views, its set cached per checkpoint count (a set changes only with a checkpoint), and
 * submissions through the submitter.
 */
export class ManagerCheckpointBase implements CheckpointBase {
  readonly reader: ManagerReader
  readonly submitter: Submitter
  #set: { count: bigint; set: ManagerSet } | undefined

  constructor(reader: ManagerReader, submitter: Submitter) {
    this.reader = reader
    this.submitter = submitter
  }

  /** Refuses a base chain with another id than configured, or no contract at the manager address. */
  async check(baseChainId: bigint): Promise<void> {
    const id = await this.reader.chain.chainId()
    if (id !== baseChainId)
      throw new BaseChainError('wrong-chain', `${this.reader.chain.url} is chain ${id}, [checkpoint] base_chain_id is ${baseChainId}`)
    if ((await this.reader.chain.code(this.reader.address)).length === 0)
      throw new BaseChainError('not-deployed', `no contract at ${bytesToHex(this.reader.address)} on ${this.reader.chain.url}`)
  }

  async read(): Promise<ManagerView> {
    const current = await this.reader.currentHeaderBlock()
    const count = checkpointCount(current)
    const last = count === 0n ? undefined : await this.reader.headerBlock(current)
    if (this.#set?.count !== count) this.#set = { count, set: await this.reader.set() }
    const { signers, powers, total } = this.#set.set
    return { count, lastEnd: last?.end ?? 0n, lastCreatedAt: last?.createdAt, signers, powers, total }
  }

  head(): Promise<bigint> {
    return this.reader.chain.blockNumber()
  }

  async prepare(data: Uint8Array, sigs: Uint8Array): Promise<{ raw: Uint8Array; hash: Uint8Array; nonce: bigint }> {
    const calldata = submitCheckpointCalldata(data, sigs)
    const [nonce, gas] = await Promise.all([
      this.submitter.pendingNonce(),
      this.submitter.estimateGas(this.reader.address, calldata),
    ])
    return { ...(await this.submitter.sign(this.reader.address, calldata, nonce, gas)), nonce }
  }

  send(raw: Uint8Array): Promise<void> {
    return this.submitter.sendRaw(raw)
  }

  async status(txHash: Uint8Array): Promise<SubmissionStatus> {
    const r = await this.reader.chain.receipt(txHash)
    if (r !== undefined) return { state: 'mined', ok: r.status, blockNumber: r.blockNumber }
    return (await this.reader.chain.knowsTransaction(txHash)) ? { state: 'pending' } : { state: 'unknown' }
  }
}

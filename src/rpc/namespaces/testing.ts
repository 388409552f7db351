/**
 * Test support for the namespaces: a fake Backend that answers only what a test gives it (any
 * other member throws, so a handler reaching for something new shows up), small chains of real
 * blocks (ethereumjs headers and signed transactions, no database), and a call through the real
 * dispatcher, so params are decoded exactly as a client's are.
 */
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { createBlockHeader } from '@ethereumjs/block'
import { RLP } from '@ethereumjs/rlp'
import { createTx, type TypedTransaction } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { receiptInList, type StoredReceipt } from '../../chain/receipt.js'
import type { ChainBlock } from '../../chain/store.js'
import type { PoolTx } from '../../txpool/index.js'
import type { Backend } from '../backend.js'
import type { JsonRpcErrorObject } from '../errors.js'
import { RpcDispatcher } from '../server/dispatch.js'
import { type Namespace, RawJson } from '../types.js'

/** A Backend whose every member not in `given` throws `fake backend: <name> not given`. */
export function fakeBackend(given: Partial<Backend>): Backend {
  return new Proxy(given, {
    get(target, key) {
      if (key in target) return target[key as keyof Backend]
      // not a thenable: awaiting the backend must not call a missing `then`
      if (key === 'then') return undefined
      throw new Error(`fake backend: ${String(key)} not given`)
    },
  }) as Backend
}

/** What one call answered: its result, or its error object. */
export interface Answer {
  result?: unknown
  error?: JsonRpcErrorObject
}

/** Calls `method` of `namespace` on `backend` through the dispatcher, params as a client sends them. */
export async function callMethod(
  namespace: Namespace<Backend>,
  backend: Backend,
  method: string,
  params: unknown[] = [],
): Promise<Answer> {
  const dispatcher = new RpcDispatcher({
    namespaces: [namespace],
    enabledApis: [namespace.name],
    ctx: backend,
    maxBatchItems: 0,
  })
  const answer = await dispatcher.handleMessage({ jsonrpc: '2.0', id: 1, method, params })
  if (answer === undefined) throw new Error(`${method}: no answer`)
  if (answer.error !== undefined) return { error: answer.error }
  const { result } = answer
  return { result: result instanceof RawJson ? JSON.parse(result.text) : JSON.parse(JSON.stringify(result)) }
}

/** Prague rules: 1559 base fees, blob gas, withdrawals. */
export const TEST_COMMON = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })

/** Dev account 0 of the test mnemonic, the sender of test transactions. */
export const SENDER = {
  address: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266',
  privateKey: hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'),
}

/** A signed 1559 transfer of 1 wei. */
export function transfer(nonce: bigint, maxFeePerGas: bigint, maxPriorityFeePerGas: bigint): TypedTransaction {
  return createTx(
    {
      type: 2,
      nonce,
      to: `0x${'22'.repeat(20)}`,
      value: 1n,
      gasLimit: 21_000n,
      maxFeePerGas,
      maxPriorityFeePerGas,
      chainId: 1n,
    },
    { common: TEST_COMMON },
  ).sign(SENDER.privateKey)
}

/** A block at `number` holding `txs`, with the given base fee and gas used. */
export function testBlock(
  number: bigint,
  txs: TypedTransaction[] = [],
  baseFee = 1_000_000_000n,
  gasUsed = 21_000n * BigInt(txs.length),
): ChainBlock {
  const header = createBlockHeader(
    {
      number,
      gasLimit: 30_000_000n,
      gasUsed,
      baseFeePerGas: baseFee,
      timestamp: 1_700_000_000n + number,
      excessBlobGas: 0n,
      blobGasUsed: 0n,
    },
    { common: TEST_COMMON },
  )
  const transactionBytes = txs.map((tx) => tx.serialize())
  return {
    hash: header.hash(),
    header,
    headerRaw: header.raw(),
    transactions: txs,
    transactionBytes,
    uncles: [],
    withdrawals: [],
    size: RLP.encode([header.raw(), transactionBytes, [], []]).length,
    totalDifficulty: 0n,
  }
}

/** The receipts a stored block would have: each transaction succeeded using 21,000 gas. */
export function receiptsOf(block: ChainBlock): StoredReceipt[] {
  return block.transactions.map((tx, i) => ({
    type: tx.type,
    status: 1,
    root: undefined,
    cumulativeGasUsed: 21_000n * BigInt(i + 1),
    logs: [],
    from: tx.getSenderAddress().bytes,
    contractAddress: undefined,
    gasUsed: 21_000n,
    effectiveGasPrice:
      tx.getEffectivePriorityFee(block.header.baseFeePerGas ?? 0n) + (block.header.baseFeePerGas ?? 0n),
    blobGasUsed: 0n,
    blobGasPrice: 0n,
  }))
}

/** The chain reads of a fake backend over `blocks` (index = number; the last is the head). */
export function chainOf(blocks: ChainBlock[]): Partial<Backend> {
  const byHash = new Map(blocks.map((b) => [Buffer.from(b.hash).toString('hex'), b]))
  const receipts = new Map(blocks.map((b) => [Buffer.from(b.hash).toString('hex'), receiptsOf(b)]))
  return {
    head: () => blocks[blocks.length - 1] as ChainBlock,
    blockByNumber: (n) => blocks[Number(n)],
    canonicalHash: (n) => blocks[Number(n)]?.hash,
    blockByHash: (hash) => byHash.get(Buffer.from(hash).toString('hex')),
    isCanonical: () => true,
    receipts: (hash) => receipts.get(Buffer.from(hash).toString('hex')),
    receiptAt: (hash, index) => receiptInList(receipts.get(Buffer.from(hash).toString('hex')) ?? [], index),
  }
}

/** A pool entry for `tx` as the pool keeps it. */
export function poolTx(tx: TypedTransaction): PoolTx {
  const sender = tx.getSenderAddress().bytes
  const feeCap = 'maxFeePerGas' in tx ? tx.maxFeePerGas : tx.gasPrice
  const tipCap = 'maxPriorityFeePerGas' in tx ? tx.maxPriorityFeePerGas : tx.gasPrice
  const hash = tx.hash()
  return {
    tx,
    hash,
    hashHex: `0x${Buffer.from(hash).toString('hex')}`,
    sender,
    senderHex: `0x${Buffer.from(sender).toString('hex')}`,
    nonce: tx.nonce,
    feeCap,
    tipCap,
    cost: tx.gasLimit * feeCap + tx.value,
    tipAt: (baseFee) => (feeCap - baseFee < tipCap ? feeCap - baseFee : tipCap),
  }
}

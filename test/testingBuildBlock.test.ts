/**
 * testing_buildBlockV1 (geth eth/catalyst/api_testing.go) on `ibex start --network dev --http.api
 * eth,testing`: the block built on the head from given transactions, from none, or from the pool,
 * in geth's ExecutionPayloadEnvelope shape — and never inserted: the head stays, the transaction
 * stays unmined. geth's refusals: a parent that is not the head, a timestamp not after it, a
 * missing required attribute. Without `testing` in the api list the method does not exist.
 */
import { type Hex, hexToBytes, keccak256 } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode } from './helpers/node.js'

const GWEI = 10n ** 9n
const SINK = '0x000000000000000000000000000000000000bEEF'
const FEE_RECIPIENT = '0x1111111111111111111111111111111111111111'
const sender = DEV_ACCOUNTS[4]

let node: IbexNode
let bare: IbexNode

beforeAll(async () => {
  // a long block time: the head must not move between reading it and building on it
  node = await startNode({ port: 'free', args: ['--http.api', 'eth,testing', '--block-time', '30s'] })
  bare = await startNode({ port: 'free' })
}, 60_000)

afterAll(async () => {
  await cleanupNodes()
})

// biome-ignore lint/suspicious/noExplicitAny: block JSON
type Json = any

async function head(): Promise<Json> {
  return rpc(node.url, 'eth_getBlockByNumber', ['latest', false])
}

function attributes(parent: Json, extra: Record<string, unknown> = {}) {
  return {
    timestamp: `0x${(BigInt(parent.timestamp) + 1n).toString(16)}`,
    prevRandao: `0x${'00'.repeat(32)}`,
    suggestedFeeRecipient: FEE_RECIPIENT,
    withdrawals: [],
    parentBeaconBlockRoot: `0x${'00'.repeat(32)}`,
    ...extra,
  }
}

async function transfer(nonce: number): Promise<Hex> {
  return privateKeyToAccount(sender.privateKey).signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    to: SINK,
    value: 1n,
    gas: 21_000n,
    nonce,
    maxFeePerGas: 100n * GWEI,
    maxPriorityFeePerGas: 2n * GWEI,
  })
}

describe('testing_buildBlockV1', () => {
  it('builds the block of the given transactions on the head, in geth shape, without inserting it', async () => {
    const parent = await head()
    const raw = await transfer(0)
    const env = await rpc(node.url, 'testing_buildBlockV1', [parent.hash, attributes(parent), [raw], '0x6962657821'])
    expect(Object.keys(env)).toEqual([
      'executionPayload',
      'blockValue',
      'blobsBundle',
      'executionRequests',
      'shouldOverrideBuilder',
    ])
    const p = env.executionPayload
    expect(Object.keys(p)).toEqual([
      'parentHash',
      'feeRecipient',
      'stateRoot',
      'receiptsRoot',
      'logsBloom',
      'prevRandao',
      'blockNumber',
      'gasLimit',
      'gasUsed',
      'timestamp',
      'extraData',
      'baseFeePerGas',
      'blockHash',
      'transactions',
      'withdrawals',
      'blobGasUsed',
      'excessBlobGas',
    ])
    expect(p.parentHash).toBe(parent.hash)
    expect(BigInt(p.blockNumber)).toBe(BigInt(parent.number) + 1n)
    expect(p.feeRecipient).toBe(FEE_RECIPIENT)
    expect(p.timestamp).toBe(attributes(parent).timestamp)
    expect(p.transactions).toEqual([raw])
    expect(BigInt(p.gasUsed)).toBe(21_000n)
    expect(p.stateRoot).not.toBe(parent.stateRoot)
    expect(p.extraData.startsWith('0x6962657821')).toBe(true)
    // the tip of a 21,000-gas transfer: 2 gwei (under the fee cap above the dev base fee)
    expect(BigInt(env.blockValue)).toBe(21_000n * 2n * GWEI)
    expect(env.blobsBundle).toEqual({ commitments: [], proofs: [], blobs: [] })
    expect(env.shouldOverrideBuilder).toBe(false)
    // not inserted: the head is where it was, the transaction unknown
    expect((await head()).hash).toBe(parent.hash)
    expect(await rpc(node.url, 'eth_getBlockByHash', [p.blockHash, false])).toBeNull()
    expect(await rpc(node.url, 'eth_getTransactionByHash', [keccak256(raw)])).toBeNull()
  })

  it('[] builds an empty block; null takes the pool pending transactions', async () => {
    const parent = await head()
    const empty = await rpc(node.url, 'testing_buildBlockV1', [parent.hash, attributes(parent), []])
    expect(empty.executionPayload.transactions).toEqual([])
    expect(empty.executionPayload.gasUsed).toBe('0x0')

    const raw = await transfer(0)
    await rpc(node.url, 'eth_sendRawTransaction', [raw])
    const now = await head()
    const fromPool = await rpc(node.url, 'testing_buildBlockV1', [now.hash, attributes(now), null])
    if (now.hash === parent.hash) expect(fromPool.executionPayload.transactions).toEqual([raw])
    else expect(hexToBytes(fromPool.executionPayload.parentHash)).toEqual(hexToBytes(now.hash))
  })

  it('refuses a parent that is not the head, a timestamp not after it, an invalid transaction', async () => {
    const parent = await head()
    const notHead = await rpcResponse(node.url, 'testing_buildBlockV1', [
      `0x${'01'.padEnd(64, '0')}`,
      attributes(parent),
    ])
    expect(notHead.error).toEqual({ code: -32000, message: 'parentHash is not current head' })

    const stale = await rpcResponse(node.url, 'testing_buildBlockV1', [
      parent.hash,
      attributes(parent, { timestamp: parent.timestamp }),
      [],
    ])
    expect(stale.error).toEqual({
      code: -32000,
      message: `invalid timestamp, parent ${BigInt(parent.timestamp)} given ${BigInt(parent.timestamp)}`,
    })

    const used = await transfer(1000)
    const bad = await rpcResponse(node.url, 'testing_buildBlockV1', [parent.hash, attributes(parent), [used]])
    expect(bad.error?.code).toBe(-32000)
    expect(bad.error?.message).toMatch(/^transaction 0 is invalid/)
  })

  it('refuses payload attributes without a required member with -32602', async () => {
    const parent = await head()
    const { timestamp: _, ...noTime } = attributes(parent)
    const res = await rpcResponse(node.url, 'testing_buildBlockV1', [parent.hash, noTime, []])
    expect(res.error).toEqual({
      code: -32602,
      message: "invalid argument 1: missing required field 'timestamp' for PayloadAttributes",
    })
  })

  it('is not served unless the testing namespace is enabled', async () => {
    const parent = await rpc(bare.url, 'eth_getBlockByNumber', ['latest', false])
    const res = await rpcResponse(bare.url, 'testing_buildBlockV1', [parent.hash, attributes(parent), []])
    expect(res.error?.code).toBe(-32601)
  })
})

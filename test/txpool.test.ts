/**
 * The transaction pool seen from outside: a nonce gap is queued (txpool_content, txpool_inspect,
 * txpool_contentFrom, txpool_status in geth's shapes), promoted and mined after the transaction
 * before it once the gap fills; geth's errors (-32000) for nonce too low, already known, an
 * underpriced replacement, insufficient funds; an accepted replacement takes the old one's
 * place; per-account and global limits with eviction of the cheapest; the pool survives a clean
 * stop and a kill -9.
 */
import { getAddress, type Hex } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from './helpers/dev.js'
import {
  cleanupNodes,
  type IbexNode,
  type RpcReceipt,
  rpc,
  rpcResponse,
  startNode,
  waitFor,
  waitForReceipt,
} from './helpers/node.js'

const GWEI = 10n ** 9n
const SINK = '0x000000000000000000000000000000000000dEaD'

interface Fee {
  tip?: bigint
  fee?: bigint
  value?: bigint
}

function sign(key: Hex, nonce: number, f: Fee = {}): Promise<Hex> {
  return privateKeyToAccount(key).signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    to: SINK,
    value: f.value ?? 1n,
    gas: 21_000n,
    nonce,
    maxFeePerGas: f.fee ?? 50n * GWEI,
    maxPriorityFeePerGas: f.tip ?? 2n * GWEI,
  })
}

async function nonceOf(url: string, address: string): Promise<number> {
  return Number(BigInt(await rpc(url, 'eth_getTransactionCount', [address, 'latest'])))
}

async function send(url: string, raw: Hex): Promise<Hex> {
  return rpc<Hex>(url, 'eth_sendRawTransaction', [raw])
}

async function errorOf(url: string, raw: Hex): Promise<{ code: number; message: string } | undefined> {
  return (await rpcResponse(url, 'eth_sendRawTransaction', [raw])).error
}

/** Waits until the pool of `url` is empty (earlier tests' transactions mined). */
function drained(url: string) {
  return waitFor(
    async () => {
      const s = await rpc(url, 'txpool_status')
      return s.pending === '0x0' && s.queued === '0x0'
    },
    { what: 'an empty pool' },
  )
}

describe('txpool on a 2 s chain', () => {
  let node: IbexNode
  let url: string
  beforeAll(async () => {
    node = await startNode({ args: ['--block-time', '2s'] })
    url = node.url
  })
  afterAll(cleanupNodes)

  it('a nonce-gap transaction is queued, shows in every txpool view, then is promoted and mined after its predecessor', async () => {
    await drained(url)
    const a = DEV_ACCOUNTS[1]
    const from = getAddress(a.address)
    const n = await nonceOf(url, a.address)
    const later = await send(url, await sign(a.privateKey, n + 1))
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: '0x0', queued: '0x1' })
    const content = await rpc(url, 'txpool_content')
    expect(content.pending).toEqual({})
    expect(Object.keys(content.queued)).toEqual([from])
    expect(content.queued[from][String(n + 1)]).toMatchObject({
      hash: later,
      nonce: `0x${(n + 1).toString(16)}`,
      from: a.address.toLowerCase(),
      to: SINK.toLowerCase(),
      blockHash: null,
      blockNumber: null,
      transactionIndex: null,
      gasPrice: `0x${(50n * GWEI).toString(16)}`,
      maxFeePerGas: `0x${(50n * GWEI).toString(16)}`,
      maxPriorityFeePerGas: `0x${(2n * GWEI).toString(16)}`,
      type: '0x2',
    })
    expect(await rpc(url, 'txpool_inspect')).toEqual({
      pending: {},
      queued: { [from]: { [String(n + 1)]: `${SINK}: 1 wei + 21000 gas × 50000000000 wei` } },
    })
    expect(await rpc(url, 'txpool_contentFrom', [a.address])).toEqual({
      pending: {},
      queued: { [String(n + 1)]: content.queued[from][String(n + 1)] },
    })
    expect(await rpc(url, 'eth_getTransactionByHash', [later])).toEqual(content.queued[from][String(n + 1)])

    const first = await send(url, await sign(a.privateKey, n))
    const [r0, r1] = [await waitForReceipt(url, first), await waitForReceipt(url, later)]
    const order = (r: RpcReceipt) => BigInt(r.blockNumber) * 1_000_000n + BigInt(r.transactionIndex)
    expect(order(r0)).toBeLessThan(order(r1))
    await drained(url)
  })

  it("answers geth's errors: nonce too low, already known, underpriced replacement, insufficient funds", async () => {
    await drained(url)
    const b = DEV_ACCOUNTS[2]
    const n = await nonceOf(url, b.address)
    if (n === 0) await waitForReceipt(url, await send(url, await sign(b.privateKey, 0)))
    const next = await nonceOf(url, b.address)
    expect(await errorOf(url, await sign(b.privateKey, next - 1, { tip: 9n * GWEI }))).toEqual({
      code: -32000,
      message: `nonce too low: next nonce ${next}, tx nonce ${next - 1}`,
    })
    const queued = await sign(b.privateKey, next + 1)
    await send(url, queued)
    expect(await errorOf(url, queued)).toEqual({ code: -32000, message: 'already known' })
    expect(await errorOf(url, await sign(b.privateKey, next + 1, { tip: 2n * GWEI + 1n, fee: 60n * GWEI }))).toEqual({
      code: -32000,
      message: 'replacement transaction underpriced',
    })
    const cost = 50n * GWEI * 21_000n + 1n
    expect(
      await errorOf(url, await sign('0x1111111111111111111111111111111111111111111111111111111111111111', 0)),
    ).toEqual({
      code: -32000,
      message: `insufficient funds for gas * price + value: balance 0, tx cost ${cost}, overshot ${cost}`,
    })
    // leave nothing behind: fill the gap
    await waitForReceipt(url, await send(url, await sign(b.privateKey, next)))
    await drained(url)
  })

  it('an accepted replacement takes the old one’s place (queued and pending)', async () => {
    await drained(url)
    const c = DEV_ACCOUNTS[3]
    const n = await nonceOf(url, c.address)
    const old = await send(url, await sign(c.privateKey, n + 1))
    const replacement = await send(url, await sign(c.privateKey, n + 1, { tip: 3n * GWEI, fee: 55n * GWEI, value: 2n }))
    const queued = (await rpc(url, 'txpool_contentFrom', [c.address])).queued
    expect(Object.values(queued).map((t) => (t as { hash: string }).hash)).toEqual([replacement])
    expect(await rpc(url, 'eth_getTransactionByHash', [old])).toBeNull()
    // a pending one, replaced right after a block so the next block cannot take it first
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    await waitFor(async () => BigInt(await rpc(url, 'eth_blockNumber')) > head, { intervalMs: 10, what: 'a new block' })
    const pendingOld = await send(url, await sign(c.privateKey, n))
    const pendingNew = await send(url, await sign(c.privateKey, n, { tip: 4n * GWEI, fee: 60n * GWEI }))
    const pending = (await rpc(url, 'txpool_contentFrom', [c.address])).pending
    expect(Object.keys(pending)).toEqual([String(n), String(n + 1)])
    expect(pending[String(n)].hash).toBe(pendingNew)
    const r = await waitForReceipt(url, pendingNew)
    expect(r.status).toBe('0x1')
    expect((await waitForReceipt(url, replacement)).status).toBe('0x1')
    expect(await rpc(url, 'eth_getTransactionReceipt', [pendingOld])).toBeNull()
    expect(await rpc(url, 'eth_getTransactionReceipt', [old])).toBeNull()
  })
})

describe('txpool limits and restarts (a chain that does not seal during the test)', () => {
  let node: IbexNode
  const args = [
    '--block-time',
    '600s',
    '--txpool.accountqueue',
    '2',
    '--txpool.globalslots',
    '2',
    '--txpool.globalqueue',
    '2',
  ]
  beforeAll(async () => {
    node = await startNode({ args })
  })
  afterAll(cleanupNodes)

  const [A, B, C, D, E, F] = DEV_ACCOUNTS.slice(4)
  const hashes = (content: Record<string, Record<string, { hash: string }>>, who: string) =>
    Object.values(content[getAddress(who)] ?? {}).map((t) => t.hash)

  it('per-account queue limit, then the cheapest evicted when the pool is full; never a pending one for a future one', async () => {
    const url = node.url
    const a1 = await send(url, await sign(A.privateKey, 1))
    const a2 = await send(url, await sign(A.privateKey, 2))
    expect(await errorOf(url, await sign(A.privateKey, 3))).toEqual({
      code: -32000,
      message: 'account limit exceeded: pooled 2 txs',
    })
    // the queue (2) is full: a future transaction must pay more than the cheapest queued tail
    expect(await errorOf(url, await sign(B.privateKey, 1, { tip: 2n * GWEI }))).toEqual({
      code: -32000,
      message: 'transaction underpriced',
    })
    const b1 = await send(url, await sign(B.privateKey, 1, { tip: 3n * GWEI }))
    let content = await rpc(url, 'txpool_content')
    expect(hashes(content.queued, A.address)).toEqual([a1])
    expect(hashes(content.queued, B.address)).toEqual([b1])
    expect(await rpc(url, 'eth_getTransactionByHash', [a2])).toBeNull()
    // the whole pool (2 + 2) fills up with pending transactions
    const c0 = await send(url, await sign(C.privateKey, 0, { fee: 40n * GWEI }))
    const d0 = await send(url, await sign(D.privateKey, 0, { fee: 45n * GWEI }))
    expect(await rpc(url, 'txpool_status')).toEqual({ pending: '0x2', queued: '0x2' })
    expect(await errorOf(url, await sign(E.privateKey, 0, { tip: GWEI }))).toEqual({
      code: -32000,
      message: 'transaction underpriced',
    })
    const e0 = await send(url, await sign(E.privateKey, 0, { tip: 5n * GWEI }))
    content = await rpc(url, 'txpool_content')
    expect(hashes(content.pending, C.address)).toEqual([])
    expect(hashes(content.pending, D.address)).toEqual([d0])
    expect(hashes(content.pending, E.address)).toEqual([e0])
    expect(await rpc(url, 'eth_getTransactionByHash', [c0])).toBeNull()
    expect(await errorOf(url, await sign(F.privateKey, 1, { tip: 9n * GWEI }))).toEqual({
      code: -32000,
      message: 'future transaction tries to replace pending',
    })
  })
})

describe('the pool survives restarts (a chain that does not seal during the test)', () => {
  let node: IbexNode
  const args = ['--block-time', '600s']
  beforeAll(async () => {
    node = await startNode({ args })
  })
  afterAll(cleanupNodes)

  it('pending and queued transactions are still there after a clean stop and after kill -9', async () => {
    const [A, B] = DEV_ACCOUNTS.slice(7)
    const queued = await send(node.url, await sign(A.privateKey, 5))
    const pending = await send(node.url, await sign(B.privateKey, 0))
    const before = await rpc(node.url, 'txpool_content')
    expect(await rpc(node.url, 'txpool_status')).toEqual({ pending: '0x1', queued: '0x1' })
    expect((await node.stop()).code).toBe(0)
    node = await startNode({ datadir: node.datadir, args })
    expect(await rpc(node.url, 'txpool_content')).toEqual(before)
    expect((await rpc(node.url, 'eth_getTransactionByHash', [queued])).hash).toBe(queued)

    const more = await send(node.url, await sign(A.privateKey, 6))
    await node.kill9()
    node = await startNode({ datadir: node.datadir, args })
    const after = await rpc(node.url, 'txpool_content')
    const hashes = (group: Record<string, Record<string, { hash: string }>>, who: string) =>
      Object.values(group[getAddress(who)] ?? {}).map((t) => t.hash)
    expect(hashes(after.queued, A.address)).toEqual([queued, more])
    expect(hashes(after.pending, B.address)).toEqual([pending])
  })
})

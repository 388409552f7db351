/**
 * WebSocket on the HTTP port (ws://127.0.0.1:P, no flag needed): eth_subscribe newHeads, logs and
 * newPendingTransactions deliver geth-shaped notifications, eth_unsubscribe answers true (then
 * -32000 `subscription not found`), every other method and batches work over the socket, viem's
 * webSocket transport and ethers' WebSocketProvider watch blocks and events, a reader that stops
 * reading is disconnected at the buffer limit, and `--ws=false` refuses upgrades.
 */
import { WebSocketProvider } from 'ethers'
import { type Abi, createPublicClient, createWalletClient, defineChain, type Hex, http, webSocket } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode, waitFor, waitForReceipt } from './helpers/node.js'
import { sendTx } from './helpers/tx.js'

const COUNTER = compileContract('Counter')
const abi = COUNTER.abi as unknown as Abi
const account = privateKeyToAccount(DEV_ACCOUNTS[0].privateKey)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC messages
type Message = Record<string, any>

/** A raw WebSocket JSON-RPC client that keeps every notification. */
class RawClient {
  readonly ws: WebSocket
  readonly notifications: Message[] = []
  readonly #waiting = new Map<number, (m: Message) => void>()
  #id = 1
  constructor(ws: WebSocket) {
    this.ws = ws
    ws.on('message', (data) => {
      const m = JSON.parse(String(data)) as Message | Message[]
      if (Array.isArray(m)) {
        this.#waiting.get(m[0]?.id)?.(m as unknown as Message)
      } else if (m.method === 'eth_subscription') {
        this.notifications.push(m)
      } else {
        this.#waiting.get(m.id)?.(m)
      }
    })
  }
  static open(url: string): Promise<RawClient> {
    const ws = new WebSocket(url)
    return new Promise((resolve, reject) => {
      ws.once('open', () => resolve(new RawClient(ws)))
      ws.once('error', reject)
    })
  }
  call(method: string, params: unknown[] = []): Promise<Message> {
    const id = this.#id++
    return this.send(id, JSON.stringify({ jsonrpc: '2.0', id, method, params }))
  }
  /** Sends `text` and resolves with the answer whose (first) id is `id`. */
  send(id: number, text: string): Promise<Message> {
    return new Promise((resolve) => {
      this.#waiting.set(id, resolve)
      this.ws.send(text)
    })
  }
  of(subscription: string): unknown[] {
    return this.notifications.filter((n) => n.params.subscription === subscription).map((n) => n.params.result)
  }
  close(): void {
    this.ws.close()
  }
}

let node: IbexNode
let wsUrl: string
let counter: Hex

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '1s', '--ws.max-buffer', '65536'] })
  wsUrl = node.url.replace('http://', 'ws://')
  const chain = defineChain({
    id: DEV_CHAIN_ID,
    name: 'ibex dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  const wallet = createWalletClient({ account, chain, transport: http(node.url) })
  const hash = await wallet.deployContract({ abi, bytecode: COUNTER.bytecode })
  counter = (await waitForReceipt(node.url, hash)).contractAddress
})

afterAll(cleanupNodes)

async function increment(): Promise<Hex> {
  const { encodeFunctionData } = await import('viem')
  const data = encodeFunctionData({ abi, functionName: 'increment' })
  return sendTx(node.url, DEV_ACCOUNTS[0].privateKey, { to: counter, data, gas: 100_000n })
}

describe('eth_subscribe over ws://host:port (raw)', () => {
  it('newHeads delivers each new header, geth-shaped', async () => {
    const c = await RawClient.open(wsUrl)
    const sub = await c.call('eth_subscribe', ['newHeads'])
    expect(sub).toEqual({ jsonrpc: '2.0', id: 1, result: expect.stringMatching(/^0x[1-9a-f][0-9a-f]{0,31}$/) })
    await waitFor(async () => c.of(sub.result).length >= 2, { what: 'two heads' })
    const [first, second] = c.of(sub.result) as Message[]
    expect(Object.keys(c.notifications[0] as Message)).toEqual(['jsonrpc', 'method', 'params'])
    expect(Object.keys((c.notifications[0] as Message).params)).toEqual(['subscription', 'result'])
    expect(BigInt(second?.number)).toBe(BigInt(first?.number) + 1n)
    const block = await rpc(node.url, 'eth_getBlockByNumber', [first?.number, false])
    for (const k of Object.keys(first as Message)) expect((first as Message)[k], k).toEqual(block[k])
    expect(await c.call('eth_unsubscribe', [sub.result])).toMatchObject({ result: true })
    expect(await c.call('eth_unsubscribe', [sub.result])).toMatchObject({
      error: { code: -32000, message: 'subscription not found' },
    })
    const count = c.of(sub.result).length
    await sleep(1500)
    expect(c.of(sub.result).length).toBe(count)
    c.close()
  })

  it('logs (with a filter) and newPendingTransactions (hashes, full objects)', async () => {
    const c = await RawClient.open(wsUrl)
    const logs = (await c.call('eth_subscribe', ['logs', { address: counter }])).result
    const hashes = (await c.call('eth_subscribe', ['newPendingTransactions'])).result
    const full = (await c.call('eth_subscribe', ['newPendingTransactions', true])).result
    const other = (await c.call('eth_subscribe', ['logs', { address: randomAddress() }])).result
    const tx = await increment()
    const receipt = await waitForReceipt(node.url, tx)
    await waitFor(async () => c.of(logs).length >= 1, { what: 'the log notification' })
    expect(c.of(logs)).toEqual(receipt.logs)
    expect(c.of(hashes)).toContain(tx)
    expect(c.of(full)).toContainEqual(
      expect.objectContaining({ hash: tx, blockHash: null, from: account.address.toLowerCase() }),
    )
    expect(c.of(other)).toEqual([])
    c.close()
  })

  it('every other method works over the socket; unknown subscriptions and HTTP subscribe are refused', async () => {
    const c = await RawClient.open(wsUrl)
    expect(await c.call('eth_chainId')).toEqual({ jsonrpc: '2.0', id: 1, result: '0x539' })
    const batch = [
      { jsonrpc: '2.0', id: 99, method: 'eth_blockNumber' },
      { jsonrpc: '2.0', id: 100, method: 'net_version' },
    ]
    expect(await c.send(99, JSON.stringify(batch))).toEqual([
      { jsonrpc: '2.0', id: 99, result: expect.stringMatching(/^0x/) },
      { jsonrpc: '2.0', id: 100, result: '1337' },
    ])
    expect(await c.call('eth_subscribe', ['syncingg'])).toMatchObject({
      error: { code: -32601, message: 'no "syncingg" subscription in eth namespace' },
    })
    expect(await c.call('eth_subscribe', [])).toMatchObject({
      error: { code: -32602, message: 'expected subscription name as first argument' },
    })
    expect(await c.call('eth_subscribe', ['newHeads', 1])).toMatchObject({
      error: { code: -32602, message: 'too many arguments, want at most 1' },
    })
    c.close()
    expect((await rpcResponse(node.url, 'eth_subscribe', ['newHeads'])).error).toEqual({
      code: -32601,
      message: 'notifications not supported',
    })
  })

  it('a reader that stops reading is disconnected at the buffer limit; others are unaffected', async () => {
    const slow = new WebSocket(wsUrl)
    await new Promise((r) => slow.once('open', r))
    let answers = 0
    slow.on('message', () => answers++)
    const closed = new Promise<void>((r) => slow.once('close', () => r()))
    slow.on('error', () => {})
    const socket = (slow as unknown as { _socket: { pause(): void; resume(): void } })._socket
    socket.pause()
    const BATCHES = 300
    const batch = JSON.stringify(
      Array.from({ length: 200 }, (_, i) => ({
        jsonrpc: '2.0',
        id: i,
        method: 'eth_getCode',
        params: [counter, 'latest'],
      })),
    )
    for (let i = 0; i < BATCHES && slow.readyState === WebSocket.OPEN; i++) {
      slow.send(batch)
      await sleep(5)
    }
    await sleep(1000)
    socket.resume()
    await Promise.race([closed, sleep(20_000).then(() => Promise.reject(new Error('slow reader not disconnected')))])
    expect(answers).toBeLessThan(BATCHES)
    const fine = await RawClient.open(wsUrl)
    expect((await fine.call('eth_chainId')).result).toBe('0x539')
    fine.close()
  })
})

describe('real clients over WebSocket', () => {
  it('viem webSocket transport: watchBlocks, watchContractEvent, watchPendingTransactions', async () => {
    const chain = defineChain({
      id: DEV_CHAIN_ID,
      name: 'ibex dev',
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [node.url], webSocket: [wsUrl] } },
    })
    const transport = webSocket(wsUrl, { retryCount: 0 })
    const client = createPublicClient({ chain, transport })
    const blocks: bigint[] = []
    const events: Hex[] = []
    const pending: Hex[] = []
    const unwatch = [
      client.watchBlocks({ onBlock: (b) => void blocks.push(b.number) }),
      client.watchContractEvent({
        address: counter,
        abi,
        eventName: 'Incremented',
        onLogs: (logs) => events.push(...logs.map((l) => l.transactionHash as Hex)),
      }),
      client.watchPendingTransactions({ onTransactions: (h) => pending.push(...h) }),
    ]
    await sleep(500)
    const tx = await increment()
    await waitFor(async () => events.includes(tx) && pending.includes(tx) && blocks.length >= 2, {
      what: 'viem websocket events',
      timeoutMs: 15_000,
    })
    for (const u of unwatch) u()
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe((blocks[i - 1] as bigint) + 1n)
    expect(events.filter((h) => h === tx)).toHaveLength(1)
    expect(await client.getChainId()).toBe(DEV_CHAIN_ID)
    const rpcClient = await (
      client.transport as unknown as { getRpcClient(): Promise<{ close(): void }> }
    ).getRpcClient()
    rpcClient.close()
  })

  it("ethers WebSocketProvider: provider.on('block')", async () => {
    const provider = new WebSocketProvider(wsUrl, DEV_CHAIN_ID)
    try {
      const blocks: number[] = []
      await provider.on('block', (n: number) => blocks.push(n))
      await waitFor(async () => blocks.length >= 2, { what: 'ethers blocks over ws', timeoutMs: 15_000 })
      expect((blocks[1] as number) - (blocks[0] as number)).toBe(1)
      expect(Number(await provider.getBlockNumber())).toBeGreaterThanOrEqual(blocks[1] as number)
    } finally {
      await provider.destroy()
    }
  })
})

describe('--ws=false, and a node without the txpool namespace', () => {
  it('refuses upgrades; HTTP is unaffected; txpool_* are not served', async () => {
    const off = await startNode({ args: ['--ws=false', '--http.api', 'eth,net,web3'] })
    const err = await new Promise<Error>((resolve) => {
      const ws = new WebSocket(off.url.replace('http://', 'ws://'))
      ws.once('error', resolve)
      ws.once('open', () => resolve(new Error('opened')))
    })
    expect(err.message).toContain('400')
    expect(await rpc(off.url, 'eth_chainId')).toBe('0x539')
    expect((await rpcResponse(off.url, 'txpool_status')).error).toEqual({
      code: -32601,
      message: 'the method txpool_status does not exist/is not available',
    })
  })
})

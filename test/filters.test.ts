/**
 * Filters and eth_getLogs over HTTP, raw and through real clients, on a chain sealing every
 * second with a 3 s filter timeout: a block filter hands out each new block hash once, a log
 * filter each matching log once, getFilterLogs equals getLogs, OR-topics and wildcards select
 * the right logs, an idle filter is gone after the timeout (-32000 `filter not found`), range
 * errors are geth's; viem watchBlocks / watchContractEvent / watchPendingTransactions and ethers
 * provider.on('block') / contract.on / provider.on('pending') deliver what was mined or sent.
 */
import { Contract, JsonRpcProvider, Network } from 'ethers'
import {
  type Abi,
  type Account,
  type Chain,
  createPublicClient,
  createWalletClient,
  defineChain,
  encodeEventTopics,
  type Hex,
  http,
  pad,
  type PublicClient,
  type Transport,
  type WalletClient,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode, waitFor, waitForReceipt } from './helpers/node.js'

const COUNTER = compileContract('Counter')
const abi = COUNTER.abi as unknown as Abi
const FILTER_TIMEOUT_MS = 3000
const alice = privateKeyToAccount(DEV_ACCOUNTS[0].privateKey)
const bob = privateKeyToAccount(DEV_ACCOUNTS[1].privateKey)
const RECEIPT = { pollingInterval: 50, timeout: 20_000 } as const
const [INCREMENTED, DEPOSITED] = (['Incremented', 'Deposited'] as const).map(
  (eventName) => encodeEventTopics({ abi, eventName })[0] as Hex,
)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let node: IbexNode
let url: string
let chain: Chain
let pub: PublicClient
let wallets: WalletClient<Transport, Chain, Account>[]
let counter: Hex

beforeAll(async () => {
  node = await startNode({ args: ['--block-time', '1s', '--rpc.filter-timeout', `${FILTER_TIMEOUT_MS}ms`] })
  url = node.url
  chain = defineChain({
    id: DEV_CHAIN_ID,
    name: 'ibex dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const transport = http(url, { retryCount: 0 })
  pub = createPublicClient({ chain, transport, pollingInterval: 100, cacheTime: 0 })
  wallets = [alice, bob].map((account) => createWalletClient({ account, chain, transport, cacheTime: 0 }))
  const receipt = await pub.waitForTransactionReceipt({
    hash: await (wallets[0] as WalletClient<Transport, Chain, Account>).deployContract({
      abi,
      bytecode: COUNTER.bytecode,
    }),
    ...RECEIPT,
  })
  counter = receipt.contractAddress as Hex
})

afterAll(cleanupNodes)

async function increment(who = 0): Promise<Hex> {
  const hash = await (wallets[who] as WalletClient<Transport, Chain, Account>).writeContract({
    address: counter,
    abi,
    functionName: 'increment',
  })
  await pub.waitForTransactionReceipt({ hash, ...RECEIPT })
  return hash
}

async function deposit(who = 1): Promise<Hex> {
  const hash = await (wallets[who] as WalletClient<Transport, Chain, Account>).writeContract({
    address: counter,
    abi,
    functionName: 'deposit',
    value: 5n,
  })
  await pub.waitForTransactionReceipt({ hash, ...RECEIPT })
  return hash
}

describe('polling filters (raw JSON-RPC)', () => {
  it('a block filter returns each new block hash exactly once, in order', async () => {
    const id = await rpc<string>(url, 'eth_newBlockFilter')
    expect(id).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/)
    const start = BigInt(await rpc(url, 'eth_blockNumber'))
    const seen: string[] = []
    while (seen.length < 4) {
      seen.push(...(await rpc<string[]>(url, 'eth_getFilterChanges', [id])))
      await sleep(300)
    }
    expect(new Set(seen).size).toBe(seen.length)
    const first = (await rpc(url, 'eth_getBlockByHash', [seen[0], false])).number
    expect(BigInt(first)).toBeGreaterThanOrEqual(start)
    for (let i = 0; i < seen.length; i++) {
      const b = await rpc(url, 'eth_getBlockByNumber', [`0x${(BigInt(first) + BigInt(i)).toString(16)}`, false])
      expect(b.hash).toBe(seen[i])
    }
    expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(true)
    expect(await rpc(url, 'eth_uninstallFilter', [id])).toBe(false)
  })

  it('a log filter returns each matching log once; getFilterLogs equals getLogs', async () => {
    const options = { address: counter, fromBlock: '0x0' }
    const id = await rpc<string>(url, 'eth_newFilter', [options])
    // polling between sends keeps the filter alive (3 s timeout) however slow the box is
    const got: string[] = []
    const poll = async (filter: string) =>
      got.push(
        ...(await rpc<{ transactionHash: string }[]>(url, 'eth_getFilterChanges', [filter])).map(
          (l) => l.transactionHash,
        ),
      )
    const txs: Hex[] = []
    for (const send of [() => increment(0), () => deposit(1), () => increment(1)]) {
      txs.push(await send())
      await poll(id)
    }
    await poll(id)
    expect(got).toEqual(txs)
    expect(await rpc(url, 'eth_getFilterChanges', [id])).toEqual([])
    const all = await rpc(url, 'eth_getLogs', [options])
    expect(await rpc(url, 'eth_getFilterLogs', [id])).toEqual(all)
    expect(all.map((l: { transactionHash: string }) => l.transactionHash)).toEqual(expect.arrayContaining(txs))
    // a topic filter sees only its event
    const onlyDeposits = await rpc<string>(url, 'eth_newFilter', [{ topics: [DEPOSITED] }])
    got.length = 0
    const d = await deposit(0)
    await poll(onlyDeposits)
    await increment(0)
    await poll(onlyDeposits)
    expect(got).toEqual([d])
  })

  it('OR-topics, null wildcards and address lists select the right logs', async () => {
    const q = (o: object) =>
      rpc<{ topics: string[]; address: string }[]>(url, 'eth_getLogs', [{ fromBlock: '0x0', ...o }])
    const all = await q({ address: counter })
    const byAlice = pad(alice.address.toLowerCase() as Hex, { size: 32 })
    const byBob = pad(bob.address.toLowerCase() as Hex, { size: 32 })
    expect(all.length).toBeGreaterThanOrEqual(5)
    expect(await q({ topics: [[INCREMENTED, DEPOSITED]] })).toEqual(all)
    expect(await q({ topics: [INCREMENTED] })).toEqual(all.filter((l) => l.topics[0] === INCREMENTED))
    expect(await q({ topics: [null, byAlice] })).toEqual(all.filter((l) => l.topics[1] === byAlice))
    expect(await q({ topics: [[INCREMENTED], [byAlice, byBob]] })).toEqual(
      all.filter((l) => l.topics[0] === INCREMENTED),
    )
    expect(await q({ topics: [[DEPOSITED, null]] })).toEqual(all)
    expect(await q({ address: [randomAddress(), counter] })).toEqual(all)
    expect(await q({ address: randomAddress() })).toEqual([])
    expect(await q({ topics: [INCREMENTED, byAlice, null, null] })).toEqual([])
    expect((await rpcResponse(url, 'eth_getLogs', [{ topics: [null, null, null, null, null] }])).error).toEqual({
      code: -32602,
      message: 'invalid argument 0: exceed max topics',
    })
  })

  it("eth_getLogs answers geth's range errors", async () => {
    const head = BigInt(await rpc(url, 'eth_blockNumber'))
    const hex = (n: bigint) => `0x${n.toString(16)}`
    expect((await rpcResponse(url, 'eth_getLogs', [{ fromBlock: '0x0', toBlock: hex(head + 100n) }])).error).toEqual({
      code: -32602,
      message: 'block range extends beyond current head block',
    })
    expect((await rpcResponse(url, 'eth_getLogs', [{ fromBlock: hex(head + 100n) }])).error).toEqual({
      code: -32602,
      message: 'invalid block range params',
    })
    expect((await rpcResponse(url, 'eth_getLogs', [{ blockHash: `0x${'11'.repeat(32)}` }])).error).toEqual({
      code: -32000,
      message: 'unknown block',
    })
  })

  it('an idle filter is gone after the timeout; a polled one stays', async () => {
    const idle = await rpc<string>(url, 'eth_newBlockFilter')
    const polled = await rpc<string>(url, 'eth_newPendingTransactionFilter')
    for (let t = 0; t < FILTER_TIMEOUT_MS + 1500; t += 700) {
      await sleep(700)
      expect(Array.isArray(await rpc(url, 'eth_getFilterChanges', [polled]))).toBe(true)
    }
    for (const method of ['eth_getFilterChanges', 'eth_getFilterLogs']) {
      expect((await rpcResponse(url, method, [idle])).error).toEqual({ code: -32000, message: 'filter not found' })
    }
    expect(await rpc(url, 'eth_uninstallFilter', [idle])).toBe(false)
    expect((await rpcResponse(url, 'eth_getFilterChanges', ['0x1234'])).error).toEqual({
      code: -32000,
      message: 'filter not found',
    })
  })
})

describe('real clients over HTTP polling', () => {
  it('viem watchBlocks delivers consecutive blocks', async () => {
    const blocks: bigint[] = []
    const unwatch = pub.watchBlocks({ onBlock: (b) => void blocks.push(b.number), pollingInterval: 100 })
    await waitFor(async () => blocks.length >= 3, { what: '3 blocks', timeoutMs: 15_000 })
    unwatch()
    for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe((blocks[i - 1] as bigint) + 1n)
  })

  it('viem watchContractEvent (eth_newFilter + eth_getFilterChanges) delivers each event once', async () => {
    const got: Hex[] = []
    const unwatch = pub.watchContractEvent({
      address: counter,
      abi,
      eventName: 'Incremented',
      pollingInterval: 100,
      onLogs: (logs) => got.push(...logs.map((l) => l.transactionHash as Hex)),
    })
    await sleep(300)
    const sent = [await increment(0), await increment(1)]
    await waitFor(async () => got.length >= 2, { what: 'two events', timeoutMs: 15_000 })
    await sleep(500)
    unwatch()
    expect(got).toEqual(sent)
  })

  it('viem watchPendingTransactions (eth_newPendingTransactionFilter) sees a sent transaction', async () => {
    const got: Hex[] = []
    const unwatch = pub.watchPendingTransactions({ pollingInterval: 100, onTransactions: (h) => got.push(...h) })
    await sleep(300)
    const hash = await (wallets[0] as WalletClient<Transport, Chain, Account>).sendTransaction({
      to: randomAddress(),
      value: 1n,
    })
    await waitFor(async () => got.includes(hash), { what: 'the pending hash', timeoutMs: 15_000 })
    unwatch()
    await waitForReceipt(url, hash)
  })

  it("ethers provider.on('block'), contract.on(event) and provider.on('pending')", async () => {
    const network = Network.from(DEV_CHAIN_ID)
    const provider = new JsonRpcProvider(url, network, {
      staticNetwork: network,
      pollingInterval: 100,
      cacheTimeout: -1,
    })
    try {
      const blocks: number[] = []
      await provider.on('block', (n: number) => blocks.push(n))
      const contract = new Contract(counter, COUNTER.abi, provider)
      const events: string[] = []
      await contract.on('Incremented', (_by: string, _value: bigint, ev: { log: { transactionHash: string } }) =>
        events.push(ev.log.transactionHash),
      )
      const pending: string[] = []
      await provider.on('pending', (h: string) => pending.push(h))
      await sleep(500)
      const hash = await increment(1)
      await waitFor(async () => events.includes(hash) && pending.includes(hash) && blocks.length >= 2, {
        what: 'ethers events',
        timeoutMs: 15_000,
      })
      for (let i = 1; i < blocks.length; i++) expect(blocks[i]).toBe((blocks[i - 1] as number) + 1)
      expect(events.filter((h) => h === hash)).toHaveLength(1)
    } finally {
      provider.destroy()
    }
  })
})

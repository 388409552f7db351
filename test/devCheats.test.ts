/**
 * The dev chain's test controls as anvil and hardhat users call them: `ibex start --network dev`
 * through the binary, then viem's test client in anvil mode (setBalance, setCode, setStorageAt,
 * setNonce, mine, increaseTime, setNextBlockTimestamp) and `cast rpc anvil_…`. What must hold:
 * reads at latest see an edit at once (on the main thread and on the call workers), the next
 * transaction runs on the edited state and traces of it replay from there, block timestamps follow
 * the clock the methods set, edits survive a restart. A testnet-preset node has none of them.
 */
import { spawnSync } from 'node:child_process'
import {
  type Chain,
  createPublicClient,
  createTestClient,
  createWalletClient,
  defineChain,
  http,
  parseEther,
  type PublicClient,
  type TestClient,
} from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cast } from './helpers/cast.js'
import { DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, IBEX_BIN, type IbexNode, makeTempDir, rpc, rpcResponse, startNode } from './helpers/node.js'

const RECEIPT_OPTS = { pollingInterval: 50, timeout: 30_000 } as const
/** PUSH1 0 SLOAD PUSH1 0 MSTORE PUSH1 32 PUSH1 0 RETURN: returns storage slot 0. */
const SLOT0_READER = '0x60005460005260206000f3'
const word = (n: bigint) => `0x${n.toString(16).padStart(64, '0')}` as const

function clientsFor(url: string) {
  const chain: Chain = defineChain({
    id: DEV_CHAIN_ID,
    name: 'ibex dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [url] } },
  })
  const transport = http(url, { retryCount: 0 })
  const pub = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }) as PublicClient
  const test = createTestClient({ chain, mode: 'anvil', transport }) as TestClient<'anvil'>
  return { chain, pub, test }
}

/** A fresh key funded by anvil_setBalance only (it holds nothing in genesis), and a viem wallet over it. */
function freshWallet(url: string, chain: Chain) {
  const account = privateKeyToAccount(generatePrivateKey())
  return { account, wallet: createWalletClient({ account, chain, transport: http(url, { retryCount: 0 }) }) }
}

afterAll(cleanupNodes)

describe('state controls on the dev preset', () => {
  let node: IbexNode
  let chain: Chain
  let pub: PublicClient
  let test: TestClient<'anvil'>

  beforeAll(async () => {
    node = await startNode()
    ;({ chain, pub, test } = clientsFor(node.url))
  })

  it('setBalance, setCode, setStorageAt, setNonce: seen at latest at once, no block sealed', async () => {
    const address = randomAddress()
    const height = await pub.getBlockNumber()
    await test.setBalance({ address, value: parseEther('5') })
    expect(await pub.getBalance({ address })).toBe(parseEther('5'))
    await test.setCode({ address, bytecode: SLOT0_READER })
    expect(await pub.getCode({ address })).toBe(SLOT0_READER)
    // a call before the edit: the worker caches the head block and the node caches the result
    expect(await pub.call({ to: address })).toEqual({ data: word(0n) })
    await test.setStorageAt({ address, index: 0, value: word(42n) })
    expect(await pub.getStorageAt({ address, slot: '0x0' })).toBe(word(42n))
    expect(await pub.call({ to: address })).toEqual({ data: word(42n) })
    await test.setNonce({ address, nonce: 9 })
    expect(await pub.getTransactionCount({ address })).toBe(9)
    // the earlier edits are still there, and the balance was kept through the others
    expect(await pub.getBalance({ address })).toBe(parseEther('5'))
    expect(await pub.getBlockNumber()).toBe(height)
  })

  it('the next transaction runs on the edited state, and its trace replays from it', async () => {
    const { account, wallet } = freshWallet(node.url, chain)
    await test.setBalance({ address: account.address, value: parseEther('2') })
    await test.setNonce({ address: account.address, nonce: 5 })
    const to = randomAddress()
    // viem asks the node for the nonce, the gas estimate (a call worker) and the fees
    const hash = await wallet.sendTransaction({ to, value: parseEther('1') })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    expect((await pub.getTransaction({ hash })).nonce).toBe(5)
    expect(await pub.getBalance({ address: to })).toBe(parseEther('1'))
    const trace = await rpc(node.url, 'debug_traceTransaction', [hash, { tracer: 'callTracer' }])
    expect(trace).toMatchObject({ from: account.address.toLowerCase(), to, value: '0xde0b6b3a7640000' })
    expect(trace.error).toBeUndefined()
    const pre = await rpc(node.url, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])
    expect(pre[account.address.toLowerCase()]).toMatchObject({ balance: '0x1bc16d674ec80000', nonce: 5 })
  })

  it('a transaction refused for want of funds passes once the balance is set', async () => {
    const { account, wallet } = freshWallet(node.url, chain)
    const gasPrice = await pub.getGasPrice()
    // signed locally with a nonce and gas of our own: the node has nothing to estimate against
    const request = { to: randomAddress(), value: 1n, gas: 21_000n, gasPrice, nonce: 0 } as const
    const raw = await wallet.signTransaction({ ...request, type: 'legacy' })
    const refused = await rpcResponse(node.url, 'eth_sendRawTransaction', [raw])
    expect(refused.error?.message).toMatch(/^insufficient funds/)
    await test.setBalance({ address: account.address, value: parseEther('1') })
    const hash = await pub.sendRawTransaction({ serializedTransaction: raw })
    expect((await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })).status).toBe('success')
  })

  it('cast rpc anvil_setBalance / anvil_setStorageAt, and hardhat_ names answer as anvil does', async () => {
    const address = randomAddress()
    const set = await cast(['rpc', 'anvil_setBalance', address, '0xde0b6b3a7640000', '--rpc-url', node.url])
    expect(set).toMatchObject({ code: 0, stdout: 'null\n' })
    const balance = await cast(['balance', address, '--rpc-url', node.url])
    expect(balance).toMatchObject({ code: 0, stdout: '1000000000000000000\n' })
    const slot = await cast(['rpc', 'anvil_setStorageAt', address, '0x1', word(7n), '--rpc-url', node.url])
    expect(slot).toMatchObject({ code: 0, stdout: 'true\n' })
    const read = await cast(['storage', address, '1', '--rpc-url', node.url])
    expect(read.stdout.trim()).toBe(word(7n))
    // a bare decimal number, as cast sends `1000`
    expect(await rpc(node.url, 'hardhat_setBalance', [address, 1000])).toBeNull()
    expect(await rpc(node.url, 'eth_getBalance', [address, 'latest'])).toBe('0x3e8')
    expect(await rpc(node.url, 'hardhat_setCode', [address, '0x00'])).toBeNull()
    expect(await rpc(node.url, 'hardhat_setNonce', [address, '0x3'])).toBeNull()
    expect(await rpc(node.url, 'hardhat_setStorageAt', [address, '0x1', word(0n)])).toBe(true)
    expect(await rpc(node.url, 'eth_getStorageAt', [address, '0x1', 'latest'])).toBe(word(0n))
    expect(await rpc(node.url, 'eth_getTransactionCount', [address, 'latest'])).toBe('0x3')
  })
})

describe('mining and time on the dev preset', () => {
  let node: IbexNode
  let pub: PublicClient
  let test: TestClient<'anvil'>

  beforeAll(async () => {
    node = await startNode()
    ;({ pub, test } = clientsFor(node.url))
  })

  it('evm_mine and anvil_mine seal empty blocks now; intervals move the clock', async () => {
    const start = await pub.getBlockNumber()
    expect(await rpc(node.url, 'evm_mine')).toBe('0x0')
    expect(await pub.getBlockNumber()).toBe(start + 1n)
    expect((await pub.getBlock()).transactions).toEqual([])
    await test.mine({ blocks: 3, interval: 10 })
    expect(await pub.getBlockNumber()).toBe(start + 4n)
    const stamps = await Promise.all(
      [2n, 3n, 4n].map(async (i) => (await pub.getBlock({ blockNumber: start + i })).timestamp),
    )
    expect(stamps[1] - stamps[0]).toBeGreaterThanOrEqual(10n)
    expect(stamps[2] - stamps[1]).toBeGreaterThanOrEqual(10n)
    expect(await rpc(node.url, 'hardhat_mine', ['0x2'])).toBeNull()
    expect(await pub.getBlockNumber()).toBe(start + 6n)
  })

  it('evm_increaseTime answers the total offset and stamps the next block that far ahead', async () => {
    const before = BigInt(Math.floor(Date.now() / 1000))
    const offset = await rpc<number>(node.url, 'evm_increaseTime', ['0xe10'])
    expect(offset).toBeGreaterThanOrEqual(3600)
    expect(await test.increaseTime({ seconds: 60 })).toBe(offset + 60)
    await test.mine({ blocks: 1 })
    const block = await pub.getBlock()
    expect(block.timestamp).toBeGreaterThanOrEqual(before + BigInt(offset + 60))
  })

  it('evm_setNextBlockTimestamp: the next block gets exactly that time; not at or before the head', async () => {
    const head = await pub.getBlock()
    const next = head.timestamp + 1000n
    await test.setNextBlockTimestamp({ timestamp: next })
    await test.mine({ blocks: 1 })
    expect((await pub.getBlock()).timestamp).toBe(next)
    // time runs on from the timestamp that was set
    await test.mine({ blocks: 1 })
    const after = (await pub.getBlock()).timestamp
    expect(after).toBeGreaterThan(next)
    expect(after).toBeLessThan(next + 600n)
    for (const ts of [next, next - 5n]) {
      const refused = await rpcResponse(node.url, 'evm_setNextBlockTimestamp', [Number(ts)])
      expect(refused.error).toEqual({
        code: -32602,
        message: `Timestamp error: ${ts} is lower than previous block's timestamp`,
      })
    }
    expect(await rpc(node.url, 'evm_mine', [Number(after + 500n)])).toBe('0x0')
    expect((await pub.getBlock()).timestamp).toBe(after + 500n)
    const past = await rpcResponse(node.url, 'evm_mine', [Number(after)])
    expect(past.error?.code).toBe(-32602)
  })

  it('a transaction after a time jump is sealed at the moved time', async () => {
    const head = await pub.getBlock()
    await test.setNextBlockTimestamp({ timestamp: head.timestamp + 86_400n })
    const hash = await rpc<string>(node.url, 'eth_sendTransaction', [
      { from: '0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266', to: randomAddress(), value: '0x1' },
    ])
    const receipt = await pub.waitForTransactionReceipt({ hash: hash as `0x${string}`, ...RECEIPT_OPTS })
    expect((await pub.getBlock({ blockHash: receipt.blockHash })).timestamp).toBe(head.timestamp + 86_400n)
  })
})

describe('edits survive a restart', () => {
  it('balance, code and storage after a restart; transactions and traces on both sides of it', async () => {
    const datadir = makeTempDir()
    let node = await startNode({ datadir })
    let { chain, pub, test } = clientsFor(node.url)
    const contract = randomAddress()
    await test.setCode({ address: contract, bytecode: SLOT0_READER })
    await test.setStorageAt({ address: contract, index: 0, value: word(99n) })
    const { account, wallet } = freshWallet(node.url, chain)
    await test.setBalance({ address: account.address, value: parseEther('3') })
    const first = await wallet.sendTransaction({ to: contract, value: 1n })
    await pub.waitForTransactionReceipt({ hash: first, ...RECEIPT_OPTS })
    // edits at the new head, then the node stops before any block is built on them
    await test.setBalance({ address: account.address, value: parseEther('7') })
    await node.stop()

    node = await startNode({ datadir })
    ;({ chain, pub, test } = clientsFor(node.url))
    expect(await pub.getBalance({ address: account.address })).toBe(parseEther('7'))
    expect(await pub.getCode({ address: contract })).toBe(SLOT0_READER)
    expect(await pub.getStorageAt({ address: contract, slot: '0x0' })).toBe(word(99n))
    expect(await pub.call({ to: contract })).toEqual({ data: word(99n) })
    const again = createWalletClient({ account, chain, transport: http(node.url, { retryCount: 0 }) })
    const second = await again.sendTransaction({ to: contract, value: 2n })
    expect((await pub.waitForTransactionReceipt({ hash: second, ...RECEIPT_OPTS })).status).toBe('success')
    for (const [hash, balance] of [
      [first, '0x29a2241af62c0000'],
      [second, '0x6124fee993bc0000'],
    ] as const) {
      const pre = await rpc(node.url, 'debug_traceTransaction', [hash, { tracer: 'prestateTracer' }])
      expect(pre[account.address.toLowerCase()].balance).toBe(balance)
    }
  })
})

describe('never on the testnet preset', () => {
  let node: IbexNode

  beforeAll(async () => {
    // the namespaces listed explicitly: the methods still do not exist on a public chain
    node = await startNode({ network: 'testnet', args: ['--http.api', 'eth,net,web3,evm,anvil,hardhat'] })
  })

  it('every test control answers -32601', async () => {
    const address = randomAddress()
    const calls: [string, unknown[]][] = [
      ['evm_mine', []],
      ['evm_increaseTime', ['0x1']],
      ['evm_setNextBlockTimestamp', ['0x1']],
      ['anvil_mine', ['0x1']],
      ['anvil_setBalance', [address, '0x1']],
      ['anvil_setCode', [address, '0x00']],
      ['anvil_setStorageAt', [address, '0x0', word(1n)]],
      ['anvil_setNonce', [address, '0x1']],
      ['hardhat_mine', []],
      ['hardhat_setBalance', [address, '0x1']],
      ['hardhat_setCode', [address, '0x00']],
      ['hardhat_setStorageAt', [address, '0x0', word(1n)]],
      ['hardhat_setNonce', [address, '0x1']],
    ]
    for (const [method, params] of calls) {
      const res = await rpcResponse(node.url, method, params)
      expect(res.error, method).toEqual({
        code: -32601,
        message: `the method ${method} does not exist/is not available`,
      })
    }
  })

  it('[dev] cheats is refused at start', () => {
    const args = ['start', '--network', 'testnet', '--datadir', makeTempDir(), '--http.port', '0', '--dev.cheats']
    const bin = process.env.IBEX_E2E_BIN ?? IBEX_BIN
    const run = spawnSync(process.execPath, [bin, ...args], { encoding: 'utf8', timeout: 60_000 })
    expect(run.status).toBe(2)
    expect(run.stderr.trim().split('\n').at(-1)).toBe(
      "ibex: [dev] cheats is refused: it would let any client rewrite chain 7860's state",
    )
  })
})

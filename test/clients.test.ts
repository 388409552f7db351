/**
 * Clients out of the box (issue 17): cast, viem and ethers with their default settings against
 * ibex processes started through the binary.
 *
 * 1. A chain that enforces a 1 gwei minimum tip, as testnet and mainnet do: `ibex genesis --network
 *    testnet --validators 1 --block-time 1s` and `ibex start --genesis … --price-limit 1gwei`. Its
 *    idle blocks made eth_feeHistory all zeros, so cast picked a 1 wei tip that the pool refused.
 *    cast send, viem's sendTransaction and ethers' sendTransaction, no fee options, must succeed.
 * 2. Multicall3 at its canonical address, on that chain and on dev: viem's `multicall` through the
 *    chain definition the README gives, ethers' aggregate3 through a plain Contract.
 */
import { execFileSync } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { Contract, Interface, JsonRpcProvider, Network, Wallet } from 'ethers'
import { createPublicClient, createWalletClient, defineChain, http, keccak256, parseAbi } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cast } from './helpers/cast.js'
import { REPO_ROOT } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_BALANCE_WEI, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, IBEX_BIN, type IbexNode, makeTempDir, rpc, startNode, waitFor } from './helpers/node.js'

// ---- README "Using ibex from your tools", verbatim ----
const ibexDev = defineChain({
  id: 1337,
  name: 'Ibex Dev',
  nativeCurrency: { name: 'IBX', symbol: 'IBX', decimals: 18 },
  rpcUrls: { default: { http: ['http://127.0.0.1:8545'], webSocket: ['ws://127.0.0.1:8545'] } },
  contracts: { multicall3: { address: '0xcA11bde05977b3631167028862bE2a173976CA11', blockCreated: 0 } },
})
const ibexDevNetwork = new Network('ibex-dev', 1337)
// ---- end of the README's definitions ----

const MULTICALL3 = '0xcA11bde05977b3631167028862bE2a173976CA11'
/** keccak256 of the canonical Multicall3 runtime code (Ethereum mainnet), kept apart from src/ on purpose. */
const MULTICALL3_CODE_HASH = '0xd5c15df687b16f2ff992fc8d767b4216323184a2bbc6ee2f9c398c318e770891'
const MULTICALL3_ABI = parseAbi([
  'struct Call3 { address target; bool allowFailure; bytes callData; }',
  'struct Result { bool success; bytes returnData; }',
  'function aggregate3(Call3[] calls) payable returns (Result[] returnData)',
  'function getChainId() view returns (uint256 chainid)',
  'function getEthBalance(address addr) view returns (uint256 balance)',
  'function getBlockNumber() view returns (uint256 blockNumber)',
])
const GWEI = 1_000_000_000n
/** The minimum tip the first chain enforces, as testnet and mainnet do. */
const PRICE_LIMIT_WEI = GWEI
/** Blocks alloy (cast) reads rewards over (EIP1559_FEE_ESTIMATION_PAST_BLOCKS). */
const ALLOY_FEE_HISTORY_BLOCKS = 10
const SEND_VALUE_WEI = 10n ** 15n
const TESTNET_CHAIN_ID = 7860
const RECEIPT_OPTS = { pollingInterval: 100, timeout: 30_000 } as const
const ibexBin = process.env.IBEX_E2E_BIN ?? IBEX_BIN

let limited: IbexNode
let dev: IbexNode

beforeAll(async () => {
  const dir = makeTempDir('ibex-clients-')
  const prefund = DEV_ACCOUNTS.slice(0, 3).flatMap((a) => ['--prefund', `${a.address}=1000ether`])
  execFileSync(
    process.execPath,
    [ibexBin, 'genesis', '--network', 'testnet', '--validators', '1', '--block-time', '1s', ...prefund, '--out', dir],
    { cwd: REPO_ROOT, stdio: 'pipe' },
  )
  const args = ['--genesis', join(dir, 'genesis.json'), '--validator-key', join(dir, 'validator-0.key')]
  ;[limited, dev] = await Promise.all([
    startNode({ network: false, args: [...args, '--price-limit', PRICE_LIMIT_WEI.toString()] }),
    startNode(),
  ])
})

afterAll(cleanupNodes)

async function codeHashAt(url: string, address: string): Promise<string> {
  return keccak256(await rpc(url, 'eth_getCode', [address, 'latest']))
}

describe("the README's chain definitions", () => {
  it('are the ones this file tests, line for line', () => {
    const readme = readFileSync(join(REPO_ROOT, 'README.md'), 'utf8')
    const self = readFileSync(join(REPO_ROOT, 'test', 'clients.test.ts'), 'utf8')
    const block = /\/\/ ---- README[^\n]*\n([\s\S]*?)\/\/ ---- end/.exec(self)?.[1] ?? ''
    const [viemDefinition, ethersDefinition] = block.split(/\n(?=const ibexDevNetwork)/)
    expect(viemDefinition).toMatch(/^const ibexDev = defineChain\(/)
    expect(readme).toContain(viemDefinition)
    expect(ethersDefinition).toMatch(/^const ibexDevNetwork = new Network/)
    expect(readme).toContain(ethersDefinition)
  })
})

describe('default fee settings on a chain with a 1 gwei minimum tip', () => {
  it('cast send with no fee flags is accepted after idle blocks', async () => {
    // the situation that broke: several sealed blocks, none with a transaction
    await waitFor(async () => BigInt(await rpc(limited.url, 'eth_blockNumber')) >= 3n, {
      timeoutMs: 30_000,
      what: 'three idle blocks',
    })
    const history = await rpc(limited.url, 'eth_feeHistory', [ALLOY_FEE_HISTORY_BLOCKS, 'latest', [20]])
    expect(history.gasUsedRatio.every((r: number) => r === 0)).toBe(true)

    const to = randomAddress()
    const res = await cast([
      'send',
      '--rpc-url',
      limited.url,
      '--private-key',
      DEV_ACCOUNTS[0].privateKey,
      '--json',
      to,
      '--value',
      SEND_VALUE_WEI.toString(),
    ])
    expect(res.stderr).toBe('')
    expect(res.code).toBe(0)
    const receipt = JSON.parse(res.stdout)
    expect(receipt.status).toBe('0x1')
    const tx = await rpc(limited.url, 'eth_getTransactionByHash', [receipt.transactionHash])
    expect(BigInt(tx.maxPriorityFeePerGas)).toBeGreaterThanOrEqual(PRICE_LIMIT_WEI)
    expect(BigInt(await rpc(limited.url, 'eth_getBalance', [to, 'latest']))).toBe(SEND_VALUE_WEI)
  })

  it("viem's walletClient.sendTransaction with its default fee estimation is mined", async () => {
    const chain = { ...ibexDev, id: TESTNET_CHAIN_ID, rpcUrls: { default: { http: [limited.url] } } }
    const transport = http(limited.url, { retryCount: 0 })
    const wallet = createWalletClient({ account: privateKeyToAccount(DEV_ACCOUNTS[1].privateKey), chain, transport })
    const pub = createPublicClient({ chain, transport })
    const to = randomAddress()
    const hash = await wallet.sendTransaction({ to, value: SEND_VALUE_WEI })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    expect(await pub.getBalance({ address: to })).toBe(SEND_VALUE_WEI)
  })

  it("ethers' wallet.sendTransaction with its default fee data is mined", async () => {
    const network = new Network('ibex-testnet', TESTNET_CHAIN_ID)
    const provider = new JsonRpcProvider(limited.url, network, { staticNetwork: network, pollingInterval: 100 })
    try {
      const wallet = new Wallet(DEV_ACCOUNTS[2].privateKey, provider)
      const to = randomAddress()
      const sent = await wallet.sendTransaction({ to, value: SEND_VALUE_WEI })
      const receipt = await sent.wait(1, RECEIPT_OPTS.timeout)
      expect(receipt?.status).toBe(1)
      expect(await provider.getBalance(to)).toBe(SEND_VALUE_WEI)
    } finally {
      provider.destroy()
    }
  })

  it('the chain built from the testnet preset carries the canonical Multicall3', async () => {
    expect(await codeHashAt(limited.url, MULTICALL3)).toBe(MULTICALL3_CODE_HASH)
  })
})

describe('Multicall3 on the dev chain', () => {
  it('is predeployed with the canonical code', async () => {
    expect(await codeHashAt(dev.url, MULTICALL3)).toBe(MULTICALL3_CODE_HASH)
  })

  it("answers viem's multicall through the README's chain definition", async () => {
    const chain = { ...ibexDev, rpcUrls: { default: { http: [dev.url] } } }
    const pub = createPublicClient({ chain, transport: http(dev.url, { retryCount: 0 }) })
    const untouched = DEV_ACCOUNTS[9].address
    const results = await pub.multicall({
      contracts: [
        { address: MULTICALL3, abi: MULTICALL3_ABI, functionName: 'getChainId' },
        { address: MULTICALL3, abi: MULTICALL3_ABI, functionName: 'getEthBalance', args: [untouched] },
      ],
    })
    expect(results).toEqual([
      { status: 'success', result: BigInt(DEV_CHAIN_ID) },
      { status: 'success', result: DEV_BALANCE_WEI },
    ])
  })

  it("answers ethers' aggregate3 through a Contract, a failing call reported, not thrown", async () => {
    const provider = new JsonRpcProvider(dev.url, ibexDevNetwork, { staticNetwork: ibexDevNetwork })
    try {
      const iface = new Interface(MULTICALL3_ABI)
      const multicall = new Contract(MULTICALL3, iface, provider)
      const results = await multicall.aggregate3.staticCall([
        { target: MULTICALL3, allowFailure: false, callData: iface.encodeFunctionData('getChainId') },
        { target: MULTICALL3, allowFailure: true, callData: '0xdeadbeef' }, // no such function: reverts
      ])
      expect(results).toHaveLength(2)
      expect(results[0].success).toBe(true)
      expect(iface.decodeFunctionResult('getChainId', results[0].returnData)[0]).toBe(BigInt(DEV_CHAIN_ID))
      expect(results[1].success).toBe(false)
    } finally {
      provider.destroy()
    }
  })
})

/**
 * viem 2 against a dev node: public + wallet clients over http with a custom chain {id: 1337},
 * transfers of the three fee types, deploy, reads, simulateContract reverts decoded into
 * ContractFunctionRevertedError (reason string, custom error, panic), logs and contract events,
 * log filters, and a transaction that reverts on chain.
 */
import {
  type Abi,
  BaseError,
  ContractFunctionRevertedError,
  createPublicClient,
  createWalletClient,
  decodeEventLog,
  defineChain,
  encodeErrorResult,
  type Hex,
  http,
  pad,
  parseEther,
  type PublicClient,
  toHex,
  type WalletClient,
  type Chain,
  type Account,
  type Transport,
} from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_BALANCE_WEI, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, startNode } from './helpers/node.js'

const COUNTER = compileContract('Counter')
const abi = COUNTER.abi as unknown as Abi
const account = privateKeyToAccount(DEV_ACCOUNTS[0].privateKey)
const otherAccount = privateKeyToAccount(DEV_ACCOUNTS[2].privateKey)
const RECEIPT_OPTS = { pollingInterval: 50, timeout: 20_000 } as const

let node: IbexNode
let chain: Chain
let pub: PublicClient
let wallet: WalletClient<Transport, Chain, Account>
let otherWallet: WalletClient<Transport, Chain, Account>
let counter: Hex

beforeAll(async () => {
  node = await startNode()
  chain = defineChain({
    id: DEV_CHAIN_ID,
    name: 'ibex dev',
    nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
    rpcUrls: { default: { http: [node.url] } },
  })
  const transport = http(node.url, { retryCount: 0, timeout: 15_000 })
  pub = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 })
  wallet = createWalletClient({ account, chain, transport, pollingInterval: 50, cacheTime: 0 })
  otherWallet = createWalletClient({ account: otherAccount, chain, transport, pollingInterval: 50, cacheTime: 0 })
})

afterAll(cleanupNodes)

/** The first ContractFunctionRevertedError in the cause chain of what `p` rejects with. */
async function revertOf(p: Promise<unknown>): Promise<ContractFunctionRevertedError> {
  const e = await p.then(
    () => undefined,
    (err: unknown) => err,
  )
  if (!(e instanceof BaseError)) throw new Error(`expected a viem error, got ${String(e)}`)
  const revert = e.walk((x) => x instanceof ContractFunctionRevertedError)
  if (!(revert instanceof ContractFunctionRevertedError)) {
    throw new Error(`no ContractFunctionRevertedError in the cause chain:\n${e.message}`)
  }
  return revert
}

describe('viem 2 on the dev chain', () => {
  it('reads chain id, block number and the genesis balance', async () => {
    expect(await pub.getChainId()).toBe(DEV_CHAIN_ID)
    expect(await pub.getBlockNumber()).toBeGreaterThanOrEqual(0n)
    expect(await pub.getBalance({ address: account.address, blockNumber: 0n })).toBe(DEV_BALANCE_WEI)
  })

  for (const type of ['eip1559', 'legacy', 'eip2930'] as const) {
    it(`mines a ${type} transfer with exact balance accounting`, async () => {
      const to = randomAddress()
      const value = parseEther('0.75')
      const hash =
        type === 'eip1559'
          ? await wallet.sendTransaction({ to, value, type })
          : await wallet.sendTransaction({ to, value, type, gasPrice: await pub.getGasPrice() })
      const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
      expect(receipt.status).toBe('success')
      expect(receipt.type).toBe(type)
      expect(receipt.gasUsed).toBe(21_000n)
      expect(receipt.transactionHash).toBe(hash)
      const before = await pub.getBalance({ address: account.address, blockNumber: receipt.blockNumber - 1n })
      const after = await pub.getBalance({ address: account.address, blockNumber: receipt.blockNumber })
      expect(before - after).toBe(value + receipt.gasUsed * receipt.effectiveGasPrice)
      expect(await pub.getBalance({ address: to })).toBe(value)
      const tx = await pub.getTransaction({ hash })
      expect(tx.type).toBe(type)
      expect(tx.chainId).toBe(DEV_CHAIN_ID)
      expect(tx.blockHash).toBe(receipt.blockHash)
    })
  }

  it('deploys Counter and reads it', async () => {
    const hash = await wallet.deployContract({ abi, bytecode: COUNTER.bytecode })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    if (!receipt.contractAddress) throw new Error('no contractAddress')
    counter = receipt.contractAddress
    expect(await pub.getCode({ address: counter })).toBe(COUNTER.deployedBytecode)
    expect(await pub.readContract({ address: counter, abi, functionName: 'get' })).toBe(0n)
    expect((await pub.readContract({ address: counter, abi, functionName: 'owner' })) as string).toBe(account.address)
  })

  it('writes, waits, and finds the event via receipt, getLogs and getContractEvents', async () => {
    const { request } = await pub.simulateContract({ account, address: counter, abi, functionName: 'increment' })
    const hash = await wallet.writeContract(request)
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    expect(receipt.logs).toHaveLength(1)
    const decoded = decodeEventLog({ abi, ...receipt.logs[0] })
    expect(decoded.eventName).toBe('Incremented')
    expect(decoded.args).toEqual({ by: account.address, value: 1n })

    const event = abi.find((x) => x.type === 'event' && x.name === 'Incremented')
    if (!event || event.type !== 'event') throw new Error('no event in ABI')
    const logs = await pub.getLogs({ address: counter, event, fromBlock: 0n, toBlock: 'latest' })
    expect(logs).toHaveLength(1)
    expect(logs[0]).toMatchObject({
      address: counter,
      blockHash: receipt.blockHash,
      blockNumber: receipt.blockNumber,
      transactionHash: hash,
      logIndex: receipt.logs[0].logIndex,
      removed: false,
      args: { by: account.address, value: 1n },
    })
    const events = await pub.getContractEvents({ address: counter, abi, eventName: 'Incremented', fromBlock: 0n })
    expect(events.map((e) => e.args)).toEqual([{ by: account.address, value: 1n }])
    const none = await pub.getContractEvents({
      address: counter,
      abi,
      eventName: 'Incremented',
      args: { by: otherAccount.address },
      fromBlock: 0n,
    })
    expect(none).toEqual([])
  })

  it('serves log filters (eth_newFilter / getFilterChanges / getFilterLogs)', async () => {
    const filter = await pub.createContractEventFilter({ address: counter, abi, eventName: 'Incremented' })
    const hash = await wallet.writeContract({ address: counter, abi, functionName: 'incrementBy', args: [2n] })
    await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    const changes = await pub.getFilterChanges({ filter })
    expect(changes.map((l) => l.args)).toEqual([{ by: account.address, value: 3n }])
    expect(await pub.getFilterChanges({ filter })).toEqual([])
    const all = await pub.getFilterLogs({ filter })
    expect(all.map((l) => l.transactionHash)).toContain(hash)
    expect(await pub.uninstallFilter({ filter })).toBe(true)
  })

  it('reads storage and estimates gas', async () => {
    expect(await pub.getStorageAt({ address: counter, slot: '0x0' })).toBe(pad(toHex(3n), { size: 32 }))
    const gas = await pub.estimateContractGas({
      account,
      address: counter,
      abi,
      functionName: 'incrementBy',
      args: [1n],
    })
    expect(gas).toBeGreaterThan(21_000n)
    expect(gas).toBeLessThan(100_000n)
    expect(await pub.estimateGas({ account, to: randomAddress(), value: 1n })).toBe(21_000n)
  })

  it('simulateContract revert → ContractFunctionRevertedError with the reason', async () => {
    const revert = await revertOf(
      pub.simulateContract({ account, address: counter, abi, functionName: 'incrementBy', args: [1000n] }),
    )
    expect(revert.reason).toBe('counter: too big')
    expect(revert.data?.errorName).toBe('Error')
    const errorString = [{ type: 'error', name: 'Error', inputs: [{ name: 'message', type: 'string' }] }] as const
    expect(revert.raw).toBe(encodeErrorResult({ abi: errorString, errorName: 'Error', args: ['counter: too big'] }))
  })

  it('decodes the custom error name and args', async () => {
    const revert = await revertOf(
      pub.simulateContract({ account: otherAccount, address: counter, abi, functionName: 'restricted' }),
    )
    expect(revert.data?.errorName).toBe('Unauthorized')
    expect(revert.data?.args).toEqual([otherAccount.address])
  })

  it('decodes panics', async () => {
    const revert = await revertOf(pub.readContract({ address: counter, abi, functionName: 'divide', args: [0n] }))
    expect(revert.data?.errorName).toBe('Panic')
    expect(revert.data?.args).toEqual([0x12n])
  })

  it('payable: deposit moves ether into the contract', async () => {
    const value = parseEther('2')
    const hash = await otherWallet.writeContract({ address: counter, abi, functionName: 'deposit', value })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('success')
    expect(await pub.getBalance({ address: counter })).toBe(value)
  })

  it('a tx sent with a fixed gas limit that reverts on chain → receipt status "reverted"', async () => {
    const hash = await wallet.writeContract({
      address: counter,
      abi,
      functionName: 'incrementBy',
      args: [1000n],
      gas: 100_000n,
    })
    const receipt = await pub.waitForTransactionReceipt({ hash, ...RECEIPT_OPTS })
    expect(receipt.status).toBe('reverted')
    expect(receipt.logs).toEqual([])
    expect(await pub.readContract({ address: counter, abi, functionName: 'get' })).toBe(3n)
  })

  it('serves blocks by tag and number consistently', async () => {
    const latest = await pub.getBlock({ blockTag: 'latest' })
    const byNumber = await pub.getBlock({ blockNumber: latest.number })
    expect(byNumber.hash).toBe(latest.hash)
    const byHash = await pub.getBlock({ blockHash: latest.hash })
    expect(byHash.number).toBe(latest.number)
    expect((await pub.getBlock({ blockTag: 'finalized' })).number).toBe(latest.number)
    expect((await pub.getBlock({ blockTag: 'safe' })).number).toBe(latest.number)
    expect(await pub.getTransactionCount({ address: account.address })).toBeGreaterThan(0)
  })
})

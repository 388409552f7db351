/**
 * ethers v6 against a dev node, the way a dapp developer uses it: JsonRpcProvider + Wallet with
 * dev account #0, transfers (type 2 and legacy), deploy, calls, events, logs, storage, gas
 * estimation, and the three kinds of revert as ethers reports them.
 */
import {
  Contract,
  ContractFactory,
  type ContractTransactionResponse,
  type Log,
  isError,
  JsonRpcProvider,
  Network,
  type TransactionReceipt,
  Wallet,
  id as eventId,
  toBeHex,
  zeroPadValue,
} from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, DEV_BALANCE_WEI, DEV_CHAIN_ID, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, startNode } from './helpers/node.js'

const COUNTER = compileContract('Counter')
const ONE_ETH = 10n ** 18n

let node: IbexNode
let provider: JsonRpcProvider
let wallet: Wallet
let other: Wallet
let counter: Contract
let counterAddress: string

beforeAll(async () => {
  node = await startNode()
  const network = Network.from(DEV_CHAIN_ID)
  // cacheTimeout -1: ethers otherwise reuses answers for 250 ms, and a chain that seals at once
  // would hand the next send a stale pending nonce.
  provider = new JsonRpcProvider(node.url, network, { staticNetwork: network, pollingInterval: 50, cacheTimeout: -1 })
  wallet = new Wallet(DEV_ACCOUNTS[0].privateKey, provider)
  other = new Wallet(DEV_ACCOUNTS[1].privateKey, provider)
})

afterAll(async () => {
  provider?.destroy()
  await cleanupNodes()
})

/** Balance of `addr` just before and just after the block of `receipt`. */
async function balanceAround(addr: string, receipt: TransactionReceipt): Promise<[bigint, bigint]> {
  return [
    await provider.getBalance(addr, receipt.blockNumber - 1),
    await provider.getBalance(addr, receipt.blockNumber),
  ]
}

async function mined(
  tx: ContractTransactionResponse | Promise<ContractTransactionResponse>,
): Promise<TransactionReceipt> {
  const receipt = await (await tx).wait(1, 20_000)
  if (!receipt) throw new Error('no receipt')
  return receipt
}

describe('ethers v6 on the dev chain', () => {
  it('reports chain id 1337 and the funded dev account', async () => {
    expect((await provider.getNetwork()).chainId).toBe(BigInt(DEV_CHAIN_ID))
    expect(await provider.send('eth_chainId', [])).toBe('0x539')
    expect(await provider.getBalance(wallet.address, 0)).toBe(DEV_BALANCE_WEI)
    expect(await provider.getBalance(DEV_ACCOUNTS[9].address, 0)).toBe(DEV_BALANCE_WEI)
  })

  it('mines a type-2 transfer; balances move by exactly value + gasUsed × effectiveGasPrice', async () => {
    const to = randomAddress()
    const value = 1_234_567_890_123_456_789n
    const tx = await wallet.sendTransaction({ to, value })
    expect(tx.type).toBe(2)
    const receipt = await tx.wait(1, 20_000)
    if (!receipt) throw new Error('no receipt')
    expect(receipt.status).toBe(1)
    expect(receipt.type).toBe(2)
    expect(receipt.gasUsed).toBe(21_000n)
    expect(receipt.hash).toBe(tx.hash)
    expect(receipt.from).toBe(wallet.address)
    expect(receipt.to?.toLowerCase()).toBe(to)

    const block = await provider.getBlock(receipt.blockNumber)
    if (!block?.baseFeePerGas) throw new Error('block without baseFeePerGas')
    // effectiveGasPrice = baseFee + min(tip, maxFee - baseFee)
    const maxFee = tx.maxFeePerGas ?? 0n
    const tip = tx.maxPriorityFeePerGas ?? 0n
    const expectedPrice =
      block.baseFeePerGas + (tip < maxFee - block.baseFeePerGas ? tip : maxFee - block.baseFeePerGas)
    expect(receipt.gasPrice).toBe(expectedPrice)
    expect(block.transactions).toContain(tx.hash)

    const [before, after] = await balanceAround(wallet.address, receipt)
    expect(before - after).toBe(value + receipt.gasUsed * receipt.gasPrice)
    expect(await provider.getBalance(to)).toBe(value)
  })

  it('mines a legacy (type 0, EIP-155) transfer', async () => {
    const to = randomAddress()
    const value = 5n * ONE_ETH
    const { gasPrice } = await provider.getFeeData()
    if (!gasPrice) throw new Error('eth_gasPrice gave nothing')
    const tx = await wallet.sendTransaction({ to, value, type: 0, gasPrice })
    const receipt = await tx.wait(1, 20_000)
    if (!receipt) throw new Error('no receipt')
    expect(receipt.status).toBe(1)
    expect(receipt.type).toBe(0)
    expect(receipt.gasPrice).toBe(gasPrice)

    const [before, after] = await balanceAround(wallet.address, receipt)
    expect(before - after).toBe(value + 21_000n * gasPrice)
    expect(await provider.getBalance(to)).toBe(value)

    const seen = await provider.getTransaction(tx.hash)
    expect(seen?.type).toBe(0)
    expect(seen?.chainId).toBe(BigInt(DEV_CHAIN_ID))
    // EIP-155: v = chainId * 2 + 35 + yParity
    expect([2709n, 2710n]).toContain(seen?.signature.networkV)
    expect(seen?.blockNumber).toBe(receipt.blockNumber)
  })

  it('deploys Counter: status 1, runtime code as compiled', async () => {
    const factory = new ContractFactory(COUNTER.abi, COUNTER.bytecode, wallet)
    const deployed = await factory.deploy()
    const deployTx = deployed.deploymentTransaction()
    if (!deployTx) throw new Error('no deployment tx')
    const receipt = await deployTx.wait(1, 20_000)
    if (!receipt) throw new Error('no receipt')
    expect(receipt.status).toBe(1)
    counterAddress = await deployed.getAddress()
    expect(receipt.contractAddress).toBe(counterAddress)
    expect(receipt.to).toBeNull()
    expect(await provider.getCode(counterAddress)).toBe(COUNTER.deployedBytecode)
    counter = new Contract(counterAddress, COUNTER.abi, wallet)
  })

  it('calls views', async () => {
    expect(await counter.get()).toBe(0n)
    expect(await counter.count()).toBe(0n)
    expect(await counter.owner()).toBe(wallet.address)
    expect(await counter.divide(7n)).toBe(14n)
  })

  it('emits Incremented; the receipt log and eth_getLogs agree', async () => {
    const receipt = await mined(counter.increment())
    expect(receipt.status).toBe(1)
    expect(receipt.logs).toHaveLength(1)
    const log = receipt.logs[0]
    const topic0 = eventId('Incremented(address,uint256)')
    expect(log.address).toBe(counterAddress)
    expect(log.topics).toEqual([topic0, zeroPadValue(wallet.address.toLowerCase(), 32)])
    expect(log.data).toBe(zeroPadValue(toBeHex(1), 32))
    expect(log.blockHash).toBe(receipt.blockHash)
    expect(log.blockNumber).toBe(receipt.blockNumber)
    expect(log.transactionHash).toBe(receipt.hash)
    const parsed = counter.interface.parseLog(log)
    expect(parsed?.name).toBe('Incremented')
    expect(parsed?.args.by).toBe(wallet.address)
    expect(parsed?.args.value).toBe(1n)

    const strip = (l: Log) => ({
      address: l.address,
      topics: l.topics,
      data: l.data,
      blockHash: l.blockHash,
      blockNumber: l.blockNumber,
      transactionHash: l.transactionHash,
      transactionIndex: l.transactionIndex,
      index: l.index,
    })
    const logs = await provider.getLogs({ address: counterAddress, fromBlock: 0, toBlock: 'latest', topics: [topic0] })
    expect(logs.map(strip)).toEqual([strip(log)])
    const byBlockHash = await provider.getLogs({ blockHash: receipt.blockHash, address: counterAddress })
    expect(byBlockHash.map(strip)).toEqual([strip(log)])
    const events = await counter.queryFilter(counter.filters.Incremented(wallet.address), 0, 'latest')
    expect(events).toHaveLength(1)
    expect(await counter.queryFilter(counter.filters.Incremented(other.address), 0, 'latest')).toEqual([])
    expect(await counter.get()).toBe(1n)
  })

  it('reads the counter slot with eth_getStorageAt', async () => {
    expect(await provider.getStorage(counterAddress, 0)).toBe(zeroPadValue(toBeHex(1), 32))
    expect(await provider.getStorage(counterAddress, 1)).toBe(zeroPadValue(wallet.address.toLowerCase(), 32))
    expect(await provider.getStorage(counterAddress, 2)).toBe(zeroPadValue('0x', 32))
  })

  it('estimates gas: 21000 for a transfer, enough (and not absurd) for a call', async () => {
    expect(await provider.estimateGas({ from: wallet.address, to: randomAddress(), value: 1n })).toBe(21_000n)
    const est = await counter.incrementBy.estimateGas(5n)
    expect(est).toBeGreaterThan(21_000n)
    expect(est).toBeLessThan(100_000n)
    const receipt = await mined(counter.incrementBy(5n, { gasLimit: est }))
    expect(receipt.status).toBe(1)
    expect(receipt.gasUsed).toBeLessThanOrEqual(est)
    expect(await counter.get()).toBe(6n)
  })

  it('a reverting call gives CALL_EXCEPTION with reason "counter: too big" and the revert data', async () => {
    const expectedData = counter.interface.encodeErrorResult('Error(string)', ['counter: too big'])
    for (const attempt of [() => counter.incrementBy.staticCall(1000n), () => counter.alwaysTooBig()]) {
      const e = await attempt().then(
        () => undefined,
        (err: unknown) => err,
      )
      expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
      if (!isError(e, 'CALL_EXCEPTION')) return
      expect(e.reason).toBe('counter: too big')
      expect(e.data).toBe(expectedData)
      expect(e.revert?.name).toBe('Error')
      expect(e.revert?.args).toEqual(['counter: too big'])
    }
    const est = await counter.incrementBy.estimateGas(1000n).then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(isError(est, 'CALL_EXCEPTION')).toBe(true)
    if (isError(est, 'CALL_EXCEPTION')) expect(est.reason).toBe('counter: too big')
  })

  it('decodes the custom error Unauthorized(caller) via the ABI', async () => {
    expect(await counter.restricted()).toBe(true)
    const asOther = counter.connect(other) as Contract
    const e = await asOther.restricted().then(
      () => undefined,
      (err: unknown) => err,
    )
    expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
    if (!isError(e, 'CALL_EXCEPTION')) return
    expect(e.data).toBe(counter.interface.encodeErrorResult('Unauthorized', [other.address]))
    expect(e.revert?.name).toBe('Unauthorized')
    expect(e.revert?.args[0]).toBe(other.address)
    const parsed = counter.interface.parseError(e.data ?? '0x')
    expect(parsed?.name).toBe('Unauthorized')
  })

  it('reports panics (division by zero 0x12, assert 0x01)', async () => {
    for (const [call, code] of [
      [() => counter.divide(0n), 0x12n],
      [() => counter.failAssert(), 0x01n],
    ] as const) {
      const e = await call().then(
        () => undefined,
        (err: unknown) => err,
      )
      expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
      if (!isError(e, 'CALL_EXCEPTION')) return
      expect(e.revert?.name).toBe('Panic')
      expect(BigInt(e.revert?.args[0])).toBe(code)
    }
  })

  it('accepts ether in a payable function', async () => {
    const receipt = await mined(counter.deposit({ value: 3n * ONE_ETH }))
    expect(receipt.status).toBe(1)
    expect(await provider.getBalance(counterAddress)).toBe(3n * ONE_ETH)
    const parsed = counter.interface.parseLog(receipt.logs[0])
    expect(parsed?.name).toBe('Deposited')
    expect(parsed?.args.amount).toBe(3n * ONE_ETH)
  })

  it('a transaction that reverts on chain is mined with status 0 and charged', async () => {
    const nonceBefore = await provider.getTransactionCount(wallet.address, 'latest')
    const tx: ContractTransactionResponse = await counter.incrementBy(1000n, { gasLimit: 100_000n })
    const e = await tx.wait(1, 20_000).then(
      () => undefined,
      (err: unknown) => err,
    )
    // ethers throws CALL_EXCEPTION from wait() for a status-0 receipt, with the receipt attached
    expect(isError(e, 'CALL_EXCEPTION')).toBe(true)
    const receipt = await provider.getTransactionReceipt(tx.hash)
    if (!receipt) throw new Error('status-0 tx has no receipt')
    expect(receipt.status).toBe(0)
    expect(receipt.logs).toEqual([])
    expect(receipt.gasUsed).toBeGreaterThan(21_000n)
    expect(receipt.gasUsed).toBeLessThan(100_000n)
    expect(await provider.getTransactionCount(wallet.address, 'latest')).toBe(nonceBefore + 1)
    const [before, after] = await balanceAround(wallet.address, receipt)
    expect(before - after).toBe(receipt.gasUsed * receipt.gasPrice)
    expect(await counter.get()).toBe(6n)
  })

  it('serves the mined transaction and its block', async () => {
    const tx = await wallet.sendTransaction({ to: other.address, value: 1n, data: '0x1234' })
    const receipt = await tx.wait(1, 20_000)
    if (!receipt) throw new Error('no receipt')
    const seen = await provider.getTransaction(tx.hash)
    expect(seen).toMatchObject({
      hash: tx.hash,
      from: wallet.address,
      to: other.address,
      value: 1n,
      data: '0x1234',
      nonce: tx.nonce,
      blockNumber: receipt.blockNumber,
      blockHash: receipt.blockHash,
      index: receipt.index,
    })
    const block = await provider.getBlock(receipt.blockHash, true)
    expect(block?.number).toBe(receipt.blockNumber)
    expect(block?.prefetchedTransactions.map((t) => t.hash)).toContain(tx.hash)
    expect(await provider.getBlockNumber()).toBeGreaterThanOrEqual(receipt.blockNumber)
  })
})

/**
 * A clean restart keeps the chain: after a few transactions the node is stopped with SIGTERM (it
 * must exit 0) and started again on the same datadir; every block 0..head has the same hash and
 * content, receipts, balances, nonces, code and storage are identical, and the node goes on
 * producing blocks on top of the old head.
 */
import { type Abi, encodeFunctionData } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { compileContract } from './helpers/compile.js'
import { DEV_ACCOUNTS, randomAddress } from './helpers/dev.js'
import { cleanupNodes, type IbexNode, RPC_TIMEOUT_MS, rpc, startNode, waitForReceipt } from './helpers/node.js'
import { sendTx } from './helpers/tx.js'

const COUNTER = compileContract('Counter')
const abi = COUNTER.abi as unknown as Abi
/** SIGTERM must bring the node down within this (systemd's default stop timeout is 90 s; we ask for far less). */
const CLEAN_STOP_MS = 10_000

interface Snapshot {
  head: string
  blocks: unknown[]
  receipts: unknown[]
  balances: string[]
  nonces: string[]
  code: string
  storage: string[]
}

let first: IbexNode
let second: IbexNode | undefined
const txHashes: `0x${string}`[] = []
const accounts: string[] = [DEV_ACCOUNTS[0].address, DEV_ACCOUNTS[1].address]
let counter: `0x${string}`
let before: Snapshot

async function snapshot(url: string, head: string): Promise<Snapshot> {
  const blocks: unknown[] = []
  for (let n = 0n; n <= BigInt(head); n++)
    blocks.push(await rpc(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, true]))
  const receipts = []
  for (const h of txHashes) receipts.push(await rpc(url, 'eth_getTransactionReceipt', [h]))
  return {
    head,
    blocks,
    receipts,
    balances: await Promise.all(accounts.map((a) => rpc<string>(url, 'eth_getBalance', [a, head]))),
    nonces: await Promise.all(accounts.map((a) => rpc<string>(url, 'eth_getTransactionCount', [a, head]))),
    code: await rpc(url, 'eth_getCode', [counter, head]),
    storage: await Promise.all(['0x0', '0x1'].map((s) => rpc<string>(url, 'eth_getStorageAt', [counter, s, head]))),
  }
}

beforeAll(async () => {
  first = await startNode()
  const url = first.url
  for (let i = 0; i < 3; i++) {
    const to = randomAddress()
    accounts.push(to)
    txHashes.push(await sendTx(url, DEV_ACCOUNTS[0].privateKey, { to, value: 10n ** 15n * BigInt(i + 1) }))
    await waitForReceipt(url, txHashes[txHashes.length - 1])
  }
  const deploy = await sendTx(url, DEV_ACCOUNTS[1].privateKey, { to: null, data: COUNTER.bytecode, gas: 1_000_000n })
  txHashes.push(deploy)
  counter = (await waitForReceipt(url, deploy)).contractAddress
  accounts.push(counter)
  for (let i = 0; i < 2; i++) {
    const h = await sendTx(url, DEV_ACCOUNTS[1].privateKey, {
      to: counter,
      data: encodeFunctionData({ abi, functionName: 'increment' }),
      gas: 100_000n,
      type: i === 0 ? 'eip1559' : 'legacy',
    })
    txHashes.push(h)
    await waitForReceipt(url, h)
  }
  before = await snapshot(url, await rpc(url, 'eth_blockNumber'))
}, 60_000 + RPC_TIMEOUT_MS)

afterAll(cleanupNodes)

describe('restart after SIGTERM', () => {
  it('produced the blocks to compare', () => {
    expect(BigInt(before.head)).toBeGreaterThanOrEqual(1n)
    for (const r of before.receipts as { status: string }[]) expect(r.status).toBe('0x1')
  })

  it('SIGTERM stops the node cleanly (exit code 0)', async () => {
    const status = await first.stop('SIGTERM', CLEAN_STOP_MS)
    expect(status.timedOut, `did not exit within ${CLEAN_STOP_MS} ms of SIGTERM`).toBe(false)
    expect(status).toMatchObject({ code: 0, signal: null })
  })

  it('restarts on the same datadir with the same chain, receipts and state', async () => {
    second = await startNode({ datadir: first.datadir })
    const head = await rpc<string>(second.url, 'eth_blockNumber')
    expect(BigInt(head)).toBeGreaterThanOrEqual(BigInt(before.head))
    const after = await snapshot(second.url, before.head)
    for (let n = 0; n < before.blocks.length; n++) {
      expect(after.blocks[n], `block ${n}`).toEqual(before.blocks[n])
    }
    expect(after.receipts).toEqual(before.receipts)
    expect(after.balances).toEqual(before.balances)
    expect(after.nonces).toEqual(before.nonces)
    expect(after.code).toBe(COUNTER.deployedBytecode)
    expect(after.storage).toEqual(before.storage)
    expect(await rpc(second.url, 'eth_getTransactionCount', [DEV_ACCOUNTS[1].address, 'pending'])).toBe(
      before.nonces[1],
    )
  })

  it('goes on producing blocks on top of the old head', async () => {
    if (!second) throw new Error('second node not started')
    const head = await rpc(second.url, 'eth_getBlockByNumber', ['latest', false])
    const h = await sendTx(second.url, DEV_ACCOUNTS[0].privateKey, { to: randomAddress(), value: 1n })
    const r = await waitForReceipt(second.url, h)
    expect(r.status).toBe('0x1')
    expect(BigInt(r.blockNumber)).toBe(BigInt(head.number) + 1n)
    const b = await rpc(second.url, 'eth_getBlockByNumber', [r.blockNumber, false])
    expect(b.parentHash).toBe(head.hash)
    const st = await second.stop('SIGTERM', CLEAN_STOP_MS)
    // on failure, the node's last words say why (a native abort prints to stderr)
    expect(st, `stderr tail:\n${second.stderr().slice(-3000)}`).toMatchObject({ code: 0, timedOut: false })
  })
})

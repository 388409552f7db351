/**
 * The explorer indexes on an existing datadir: a dev node runs with every `[explorer] index_*`
 * off (the ots_ methods that need one say which key, -32000), makes history (a contract, value it
 * forwards to an address nothing else touches), stops; started again with the indexes on, it
 * indexes the blocks it already had in the background (its log says how far it got, then that it
 * is done) while serving, and ots_ answers the whole history — the old blocks from the backfill,
 * a new one from its commit.
 */
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from '../helpers/dev.js'
import { cleanupNodes, rpc, rpcResponse, startNode, waitFor, waitForReceipt } from '../helpers/node.js'

/** Runtime: CALL(gas, calldata[0..32) as address, callvalue) — forwards the value it is sent. */
const FORWARDER_INIT: Hex = '0x600f80600b6000396000f36000600060006000346000355af100'
const PAYMENTS = 12
const OFF = [
  '--explorer.index-appearances=false',
  '--explorer.index-sender-nonce=false',
  '--explorer.index-creators=false',
  '--explorer.index-fees=false',
  '--explorer.index-reverts=false',
]
const API = ['--http.api', 'eth,net,web3,ots']
const target = `0x${'5a'.repeat(20)}` as Hex
const account = privateKeyToAccount(DEV_ACCOUNTS[3].privateKey as Hex)
let nonce = 0

async function send(url: string, to: Hex | null, data: Hex, value = 0n) {
  const raw = await account.signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    to,
    data,
    value,
    gas: 200_000n,
    nonce: nonce++,
    maxFeePerGas: parseGwei('50'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
  return waitForReceipt(url, await rpc<Hex>(url, 'eth_sendRawTransaction', [raw]))
}

afterAll(async () => {
  await cleanupNodes()
})

describe('explorer indexes on a datadir written without them', () => {
  it('are off by config, then back-filled in the background with progress in the log', async () => {
    const first = await startNode({ port: 'free', args: [...API, ...OFF] })
    const deployed = await send(first.url, null, FORWARDER_INIT)
    const forwarder = deployed.contractAddress as Hex
    const payments: Hex[] = []
    for (let i = 0; i < PAYMENTS; i++) {
      const r = await send(first.url, forwarder, `0x${target.slice(2).padStart(64, '0')}`, 1n)
      payments.push(r.transactionHash)
    }
    const off = await rpcResponse(first.url, 'ots_searchTransactionsBefore', [target, 0, 25])
    expect(off.error).toEqual({
      code: -32000,
      message:
        'ots_searchTransactionsBefore needs the explorer index [explorer] index_appearances, which is off on this node',
    })
    expect((await rpcResponse(first.url, 'ots_getContractCreator', [forwarder])).error?.message).toMatch(
      /index_creators, which is off/,
    )
    // fees and revert output have their fallbacks: the receipts, a trace worker
    const details = await rpc(first.url, 'ots_getBlockDetails', [Number(deployed.blockNumber)])
    expect(BigInt(details.totalFees)).toBe(BigInt(deployed.gasUsed) * BigInt(deployed.effectiveGasPrice))
    const head = Number(await rpc(first.url, 'eth_blockNumber'))
    expect((await first.stop()).code).toBe(0)

    const second = await startNode({ port: 'free', datadir: first.datadir, logLevel: 'info', args: [...API] })
    // the log goes to stderr, the banner to stdout
    const log = () => second.stderr()
    await waitFor(async () => log().includes('explorer indexes: all'), {
      timeoutMs: 60_000,
      what: 'the explorer index backfill',
    })
    expect(log()).toMatch(new RegExp(`explorer indexes: indexing blocks ${head}\\.\\.0 \\(newest first\\)`))
    expect(log()).toMatch(new RegExp(`explorer indexes: all ${head + 1} blocks indexed`))

    // a block committed now is indexed with its commit, above the back-filled ones
    const late = await send(second.url, forwarder, `0x${target.slice(2).padStart(64, '0')}`, 1n)
    const page = await rpc(second.url, 'ots_searchTransactionsBefore', [target, 0, 25])
    expect(page.txs.map((t: { hash: Hex }) => t.hash)).toEqual([late.transactionHash, ...[...payments].reverse()])
    expect([page.firstPage, page.lastPage]).toEqual([true, true])
    expect(await rpc(second.url, 'ots_getContractCreator', [forwarder])).toEqual({
      hash: deployed.transactionHash,
      creator: account.address.toLowerCase(),
    })
    expect(await rpc(second.url, 'ots_getTransactionBySenderAndNonce', [account.address, 3])).toBe(payments[2])
  }, 180_000)
})

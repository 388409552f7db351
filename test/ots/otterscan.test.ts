/**
 * Otterscan against an ibex dev node (2 s blocks, so blocks hold several transactions), as
 * Otterscan 2.10 talks to it:
 *
 *  - the connect probe of src/useProvider.ts — eth_blockNumber, erigon_getHeaderByNumber("latest"),
 *    ots_getApiLevel, eth_chainId — one by one, as an ethers JsonRpcProvider batch (ethers batches
 *    by default) and as a raw JSON-RPC batch; `ots` in `[jsonrpc] api` brings erigon_; without it
 *    both answer -32601;
 *  - the history of an address only ever touched by internal calls (value a contract forwards to
 *    it), page by page in both directions: complete, newest first, no block split;
 *  - ots_getBlockTransactions pages counted from the block's end (Erigon's order);
 *  - an address page over ws:// (ethers' WebSocketProvider does not batch): ots_getInternalOperations
 *    for each of its 25 transactions at once on one connection, every one answered (the trace queue
 *    refused 8 of them at its old length, 16);
 *  - the State Diff tab's trace_replayTransaction(hash, ["stateDiff"]) (`trace` in `[jsonrpc] api`):
 *    a contract born with "+", a payment's balances and nonce with "*", untouched accounts left out;
 *  - bad input on every method — unknown hash, malformed address, page beyond the end, huge page
 *    size, wrong JSON kinds — answered -32602 or a clear -32000, never a crash: the node answers
 *    after all of it.
 */
import { JsonRpcProvider, Network } from 'ethers'
import WebSocket from 'ws'
import { type Hex, parseGwei } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS, DEV_CHAIN_ID } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rawRpc, rpc, rpcResponse, startNode, waitForReceipt } from '../helpers/node.js'

/** Runtime: CALL(gas, calldata[0..32) as address, callvalue) — forwards the value it is sent. */
const FORWARDER_INIT: Hex = '0x600f80600b6000396000f36000600060006000346000355af100'
/** Forwarded payments to TARGET, spread over blocks by the senders' turns. */
const PAYMENTS = 24
/** Transactions on one Otterscan history page (its PAGE_SIZE). */
const OTTERSCAN_PAGE = 25
const PAGE = 3
const BIG_BLOCK_TXS = 5

let node: IbexNode
let forwarder: Hex
let forwarderDeploy: Hex
const target = `0x${'7e'.repeat(20)}` as Hex
/** Hashes of the payments to `target`, and of the transactions of one block with several. */
const payments: Hex[] = []
let bigBlock: { number: number; hashes: Hex[] }

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

const nonces = new Map<string, number>()
async function signed(i: number, to: Hex | null, data: Hex, value = 0n): Promise<Hex> {
  const account = privateKeyToAccount(DEV_ACCOUNTS[i].privateKey as Hex)
  const nonce = nonces.get(account.address) ?? 0
  nonces.set(account.address, nonce + 1)
  return account.signTransaction({
    chainId: DEV_CHAIN_ID,
    type: 'eip1559',
    to,
    data,
    value,
    gas: 200_000n,
    nonce,
    maxFeePerGas: parseGwei('50'),
    maxPriorityFeePerGas: parseGwei('1'),
  })
}

/** Sends raw transactions in one JSON-RPC batch (they reach the pool together) and waits for them. */
async function sendAll(raws: Hex[]): Promise<Json[]> {
  const body = raws.map((raw, id) => ({ jsonrpc: '2.0', id, method: 'eth_sendRawTransaction', params: [raw] }))
  const { json } = await rawRpc(node.url, JSON.stringify(body))
  const hashes = (json as Json[]).map((r) => {
    if (r.error !== undefined) throw new Error(`eth_sendRawTransaction: ${r.error.message}`)
    return r.result as Hex
  })
  return Promise.all(hashes.map((h) => waitForReceipt(node.url, h, 30_000)))
}

const pay = (i: number) => signed(i, forwarder, `0x${target.slice(2).padStart(64, '0')}`, 1n)

beforeAll(async () => {
  node = await startNode({ port: 'free', args: ['--block-time', '2s', '--http.api', 'eth,net,web3,ots,trace'] })
  const [deployed] = await sendAll([await signed(0, null, FORWARDER_INIT)])
  forwarder = deployed.contractAddress
  forwarderDeploy = deployed.transactionHash
  // several payments per block from different senders, some blocks with one
  for (let sent = 0; sent < PAYMENTS; ) {
    const batch: Hex[] = []
    for (let s = 1; s <= 1 + (sent % 3) && sent < PAYMENTS; s++, sent++) batch.push(await pay(s))
    for (const r of await sendAll(batch)) payments.push(r.transactionHash)
  }
  const raws: Hex[] = []
  for (let i = 0; i < BIG_BLOCK_TXS; i++) raws.push(await signed(5 + i, DEV_ACCOUNTS[0].address as Hex, '0x', 1n))
  const receipts = await sendAll(raws)
  const numbers = new Set(receipts.map((r) => r.blockNumber))
  if (numbers.size !== 1) throw new Error(`the ${BIG_BLOCK_TXS} transfers landed in ${numbers.size} blocks`)
  const block = await rpc(node.url, 'eth_getBlockByNumber', [receipts[0].blockNumber, false])
  bigBlock = { number: Number(block.number), hashes: block.transactions }
}, 180_000)

afterAll(async () => {
  await cleanupNodes()
})

describe("Otterscan's connect probe", () => {
  it('answers the four calls one by one', async () => {
    const number = await rpc(node.url, 'eth_blockNumber')
    const header = await rpc(node.url, 'erigon_getHeaderByNumber', ['latest'])
    expect(BigInt(header.number)).toBeGreaterThanOrEqual(BigInt(number))
    expect(header.hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(await rpc(node.url, 'ots_getApiLevel')).toBe(8)
    expect(await rpc(node.url, 'eth_chainId')).toBe(`0x${DEV_CHAIN_ID.toString(16)}`)
    // every new block: erigon_getHeaderByNumber with a plain JSON integer
    const byNumber = await rpc(node.url, 'erigon_getHeaderByNumber', [Number(number)])
    expect(byNumber.number).toBe(number)
  })

  it('answers them as one ethers JsonRpcProvider batch', async () => {
    const network = Network.from(DEV_CHAIN_ID)
    const provider = new JsonRpcProvider(node.url, network, { staticNetwork: network, batchMaxCount: 100 })
    try {
      const [number, header, level, chainId] = await Promise.all([
        provider.send('eth_blockNumber', []),
        provider.send('erigon_getHeaderByNumber', ['latest']),
        provider.send('ots_getApiLevel', []),
        provider.send('eth_chainId', []),
      ])
      expect(BigInt(header.number)).toBeGreaterThanOrEqual(BigInt(number))
      expect(level).toBe(8)
      expect(BigInt(chainId)).toBe(BigInt(DEV_CHAIN_ID))
    } finally {
      provider.destroy()
    }
  })

  it('answers them as a raw JSON-RPC batch, in order', async () => {
    const calls = [
      ['eth_blockNumber', []],
      ['erigon_getHeaderByNumber', ['latest']],
      ['ots_getApiLevel', []],
      ['eth_chainId', []],
    ] as const
    const body = calls.map(([method, params], id) => ({ jsonrpc: '2.0', id, method, params }))
    const { json } = await rawRpc(node.url, JSON.stringify(body))
    const answers = json as Json[]
    expect(answers.map((a) => a.id)).toEqual([0, 1, 2, 3])
    expect(answers.every((a) => a.error === undefined)).toBe(true)
    expect(answers[2].result).toBe(8)
  })

  it('serves neither ots_ nor erigon_ when ots is not in [jsonrpc] api; erigon alone serves erigon_ only', async () => {
    const plain = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3'] })
    expect((await rpcResponse(plain.url, 'ots_getApiLevel')).error?.code).toBe(-32601)
    expect((await rpcResponse(plain.url, 'erigon_getHeaderByNumber', ['latest'])).error?.code).toBe(-32601)
    expect((await rpcResponse(plain.url, 'trace_replayTransaction', [payments[0], ['stateDiff']])).error?.code).toBe(
      -32601,
    )
    const erigon = await startNode({ port: 'free', args: ['--http.api', 'eth,erigon'] })
    expect((await rpcResponse(erigon.url, 'erigon_getHeaderByNumber', ['latest'])).result).toBeTruthy()
    expect((await rpcResponse(erigon.url, 'ots_getApiLevel')).error?.code).toBe(-32601)
  }, 60_000)
})

describe('address history of an address touched only by internal calls', () => {
  async function pages(direction: 'Before' | 'After'): Promise<Json[][]> {
    const out: Json[][] = []
    let block = 0
    for (let i = 0; i < 100; i++) {
      const page = await rpc(node.url, `ots_searchTransactions${direction}`, [target, block, PAGE])
      out.push(page.txs)
      const done = direction === 'Before' ? page.lastPage : page.firstPage
      if (i === 0) expect(direction === 'Before' ? page.firstPage : page.lastPage).toBe(true)
      expect(page.receipts.map((r: Json) => r.transactionHash)).toEqual(page.txs.map((t: Json) => t.hash))
      if (done) break
      block = Number(direction === 'Before' ? page.txs.at(-1).blockNumber : page.txs[0].blockNumber)
    }
    return out
  }

  function checkPages(found: Json[][]): void {
    const all = found.flat()
    // complete, each once, newest first (block, then position in the block)
    expect(all.map((t) => t.hash)).toEqual([...payments].reverse())
    for (let i = 1; i < all.length; i++) {
      const [a, b] = [all[i - 1], all[i]]
      const order =
        BigInt(a.blockNumber) - BigInt(b.blockNumber) || BigInt(a.transactionIndex) - BigInt(b.transactionIndex)
      expect(order > 0n).toBe(true)
    }
    // no block split over two pages; a page holds at least PAGE transactions unless it is the last
    for (let p = 1; p < found.length; p++) {
      expect(found[p - 1].at(-1).blockNumber).not.toBe(found[p][0]?.blockNumber)
      expect(found[p - 1].length).toBeGreaterThanOrEqual(PAGE)
    }
    // every transaction is a call to the forwarder: the target appears only inside it
    for (const t of all) expect(t.to).toBe(forwarder)
  }

  it('ots_searchTransactionsBefore pages from the tip to genesis', async () => {
    const found = await pages('Before')
    expect(found.length).toBeGreaterThan(3)
    checkPages(found)
  })

  it('ots_searchTransactionsAfter pages from genesis to the tip, each page newest first', async () => {
    const found = await pages('After')
    checkPages(found.reverse())
  })

  it('ots_getInternalOperations shows each payment as a transfer from the forwarder', async () => {
    const ops = await rpc(node.url, 'ots_getInternalOperations', [payments[0]])
    expect(ops).toEqual([{ type: 0, from: forwarder, to: target, value: '0x1' }])
    const trace = await rpc(node.url, 'ots_traceTransaction', [payments[0]])
    expect(trace.map((e: Json) => [e.type, e.depth, e.to])).toEqual([
      ['CALL', 0, forwarder],
      ['CALL', 1, target],
    ])
  })
})

describe('an address page over ws://', () => {
  it('answers ots_getInternalOperations for 25 transactions sent at once on one WebSocket, none refused busy', async () => {
    const ws = new WebSocket(node.url.replace('http://', 'ws://'))
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    try {
      const answers = new Map<number, Json>()
      const all = new Promise<void>((resolve) =>
        ws.on('message', (data) => {
          const a = JSON.parse(data.toString())
          answers.set(a.id, a)
          if (answers.size === OTTERSCAN_PAGE) resolve()
        }),
      )
      // Otterscan's page: 25 transactions, each asked for its internal operations (the payments and plain transfers)
      const hashes = [...payments, ...bigBlock.hashes].slice(0, OTTERSCAN_PAGE)
      expect(hashes).toHaveLength(OTTERSCAN_PAGE)
      hashes.forEach((hash, id) => {
        ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'ots_getInternalOperations', params: [hash] }))
      })
      await all
      for (const [id, a] of answers) {
        expect(a.error, JSON.stringify(a)).toBeUndefined()
        const payment = payments.includes(hashes[id] as Hex)
        expect(a.result).toEqual(payment ? [{ type: 0, from: forwarder, to: target, value: '0x1' }] : [])
      }
    } finally {
      ws.close()
    }
  }, 60_000)
})

describe("the State Diff tab: trace_replayTransaction(hash, ['stateDiff'])", () => {
  const replay = (hash: Hex) => rpc(node.url, 'trace_replayTransaction', [hash, ['stateDiff']])
  const sender = (i: number) => DEV_ACCOUNTS[i].address.toLowerCase()

  it('shows a deployed contract born ("+": its code, nonce 1) and the deployer paying gas', async () => {
    const r = await replay(forwarderDeploy)
    expect(r.trace).toEqual([])
    expect(r.vmTrace).toBeNull()
    const runtime = `0x${FORWARDER_INIT.slice(2 + 2 * 11)}`
    expect(r.output).toBe(runtime)
    expect(r.stateDiff[forwarder.toLowerCase()]).toEqual({
      balance: { '+': '0x0' },
      code: { '+': runtime },
      nonce: { '+': '0x1' },
      storage: {},
    })
    const deployer = r.stateDiff[sender(0)]
    expect(deployer.nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
    expect(BigInt(deployer.balance['*'].to)).toBeLessThan(BigInt(deployer.balance['*'].from))
    expect(deployer.code).toBe('=')
  })

  it("shows a forwarded payment: the sender's balance and nonce, the target born with the value; the forwarder, unchanged, left out", async () => {
    const { stateDiff } = await replay(payments[0])
    expect(stateDiff[target]).toEqual({
      balance: { '+': '0x1' },
      code: { '+': '0x' },
      nonce: { '+': '0x0' },
      storage: {},
    })
    expect(stateDiff[sender(1)].nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
    expect(stateDiff[forwarder.toLowerCase()]).toBeUndefined()
    // every entry in the shape Otterscan's StateDiff.tsx reads: "=", or one of "*", "+", "-"
    for (const account of Object.values(stateDiff) as Json[]) {
      for (const field of ['balance', 'code', 'nonce']) {
        const change = account[field]
        expect(change === '=' || ['*', '+', '-'].includes(Object.keys(change).join())).toBe(true)
      }
    }
  })

  it('answers null for an unknown transaction and -32602 for trace types it does not serve', async () => {
    expect(await rpc(node.url, 'trace_replayTransaction', [`0x${'ab'.repeat(32)}`, ['stateDiff']])).toBeNull()
    const vm = await rpcResponse(node.url, 'trace_replayTransaction', [payments[0], ['vmTrace']])
    expect(vm.error?.code).toBe(-32602)
    expect(vm.error?.message).toMatch(/trace type vmTrace is not served/)
  })
})

describe('ots_getBlockTransactions', () => {
  it("counts pages from the block's end, each page in block order (Erigon; Otterscan reverses it)", async () => {
    const { number, hashes } = bigBlock
    const page = async (p: number) => {
      const r = await rpc(node.url, 'ots_getBlockTransactions', [number, p, 2])
      expect(r.fullblock.transactionCount).toBe(hashes.length)
      expect(r.receipts.map((x: Json) => x.transactionHash)).toEqual(r.fullblock.transactions.map((t: Json) => t.hash))
      return r.fullblock.transactions.map((t: Json) => t.hash)
    }
    const n = hashes.length
    expect(await page(0)).toEqual(hashes.slice(n - 2, n))
    expect(await page(1)).toEqual(hashes.slice(n - 4, n - 2))
    expect(await page(2)).toEqual(hashes.slice(Math.max(0, n - 6), n - 4))
    // a page beyond the end is empty
    expect(await page(50)).toEqual([])
  })
})

describe('bad input', () => {
  const unknownHash = `0x${'ab'.repeat(32)}`
  const cases: [string, unknown[], number, RegExp][] = [
    // unknown transactions: geth's "not found", -32000
    ['ots_traceTransaction', [unknownHash], -32000, /transaction not found/],
    ['ots_getInternalOperations', [unknownHash], -32000, /transaction not found/],
    ['ots_getTransactionError', [unknownHash], -32000, /transaction not found/],
    // malformed hashes and addresses
    ['ots_traceTransaction', ['0x1234'], -32602, /hex string has length 4, want 64/],
    ['ots_getBlockDetailsByHash', ['not a hash'], -32602, /invalid argument 0/],
    ['ots_searchTransactionsBefore', ['0x12', 0, 25], -32602, /invalid argument 0/],
    ['ots_searchTransactionsAfter', [`0x${'zz'.repeat(20)}`, 0, 25], -32602, /invalid argument 0/],
    ['ots_getContractCreator', ['0xnope'], -32602, /invalid argument 0/],
    ['ots_hasCode', ['0x12', 'latest'], -32602, /invalid argument 0/],
    ['ots_getTransactionBySenderAndNonce', [42, 0], -32602, /invalid argument 0/],
    // huge, negative, fractional and non-numeric page arguments
    ['ots_searchTransactionsBefore', [`0x${'11'.repeat(20)}`, 0, 1_000_000_000], -32602, /max allowed page size: 25/],
    ['ots_searchTransactionsAfter', [`0x${'11'.repeat(20)}`, 0, 26], -32602, /max allowed page size: 25/],
    ['ots_getBlockTransactions', [1, 0, 65_536], -32602, /max allowed page size: 25/],
    ['ots_searchTransactionsBefore', [`0x${'11'.repeat(20)}`, 0, 0], -32602, /page size must be at least 1/],
    ['ots_searchTransactionsBefore', [`0x${'11'.repeat(20)}`, -1, 25], -32602, /invalid argument 1/],
    ['ots_getBlockTransactions', [1, 0.5, 25], -32602, /invalid argument 1/],
    ['ots_getBlockTransactions', [1, 0, 'many'], -32602, /invalid argument 2/],
    ['ots_getTransactionBySenderAndNonce', [`0x${'11'.repeat(20)}`, 2 ** 70], -32602, /invalid argument 1/],
    ['ots_getBlockDetails', [{ number: 1 }], -32602, /invalid argument 0/],
    // missing arguments
    ['ots_getBlockDetails', [], -32602, /missing value for required argument 0/],
    ['ots_searchTransactionsBefore', [`0x${'11'.repeat(20)}`], -32602, /missing value for required argument 1/],
  ]
  for (const [method, params, code, message] of cases) {
    it(`${method}(${JSON.stringify(params).slice(0, 60)}) → ${code}`, async () => {
      const r = await rpcResponse(node.url, method, params)
      expect(r.result, JSON.stringify(r)).toBeUndefined()
      expect(r.error?.code, JSON.stringify(r.error)).toBe(code)
      expect(r.error?.message).toMatch(message)
    })
  }

  it('answers null, false, empty pages or "0x" where there is nothing, and keeps serving', async () => {
    const head = Number(await rpc(node.url, 'eth_blockNumber'))
    const nobody = `0x${'11'.repeat(20)}`
    expect(await rpc(node.url, 'ots_getBlockDetails', [head + 1000])).toBeNull()
    expect(await rpc(node.url, 'ots_getBlockDetails', [2 ** 53])).toBeNull()
    expect(await rpc(node.url, 'ots_getBlockDetailsByHash', [unknownHash])).toBeNull()
    expect(await rpc(node.url, 'ots_getBlockTransactions', [head + 1000, 0, 25])).toBeNull()
    expect(await rpc(node.url, 'erigon_getHeaderByNumber', [head + 1000])).toBeNull()
    expect(await rpc(node.url, 'ots_getContractCreator', [nobody])).toBeNull()
    expect(await rpc(node.url, 'ots_getTransactionBySenderAndNonce', [nobody, 0])).toBeNull()
    expect(await rpc(node.url, 'ots_hasCode', [nobody, head])).toBe(false)
    expect((await rpcResponse(node.url, 'ots_hasCode', [nobody, head + 1000])).error?.code).toBe(-32000)
    expect(await rpc(node.url, 'ots_getTransactionError', [payments[0]])).toBe('0x')
    // nothing before block 1, nothing after the head, nothing for an address never seen
    expect(await rpc(node.url, 'ots_searchTransactionsBefore', [target, 1, 25])).toEqual({
      txs: [],
      receipts: [],
      firstPage: false,
      lastPage: true,
    })
    expect(await rpc(node.url, 'ots_searchTransactionsAfter', [target, head + 1000, 25])).toEqual({
      txs: [],
      receipts: [],
      firstPage: true,
      lastPage: false,
    })
    expect(await rpc(node.url, 'ots_searchTransactionsBefore', [nobody, 0, 25])).toEqual({
      txs: [],
      receipts: [],
      firstPage: true,
      lastPage: true,
    })
    expect(await rpc(node.url, 'eth_blockNumber')).toMatch(/^0x/)
  })
})

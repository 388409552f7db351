/**
 * Differential test of the ots_ namespace: the tracer scenario's signed transactions
 * (test/trace/helpers/scenario.ts: creations in constructors, CREATE2, DELEGATECALL, precompiles,
 * value to an account without code, reverts, a failed CREATE, SELFDESTRUCT …, one per block) go
 * as the same bytes to `ibex start --network dev` with `ots` served and to anvil 1.7.1, and every
 * ots_ answer must be the same JSON — after rewriting anvil's departures from Erigon to Erigon's
 * form (helpers/normalize.ts lists each, O1–O5, with the Erigon behaviour ibex follows). Fields
 * that differ because the chains differ (hashes, roots, the miner, extraData, timestamps) are
 * left out of the block comparisons; everything a transaction decides is compared.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, startNode } from '../helpers/node.js'
import { type Anvil, startAnvil } from '../trace/helpers/anvil.js'
import { firstDifference } from '../trace/helpers/normalize.js'
import { runScenario, type Scenario } from '../trace/helpers/scenario.js'
import { creationEntries, erigonInternalOps, erigonTrace, withoutCreations } from './helpers/normalize.js'

const SETUP_TIMEOUT_MS = 180_000
const TEST_TIMEOUT_MS = 120_000
/** A small page, so every address's history spans several pages. */
const PAGE = 2

let ibex: IbexNode
let anvil: Anvil
let scenario: Scenario

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

async function both(method: string, params: unknown[]): Promise<[Json, Json]> {
  return Promise.all([rpc(ibex.url, method, params), rpc(anvil.url, method, params)])
}

function expectSame(mine: Json, theirs: Json, what: string): void {
  const diff = firstDifference(mine, theirs)
  expect(diff, `${what}: ${diff}`).toBeUndefined()
}

function pick(o: Json, keys: readonly string[]): Json {
  const out: Json = {}
  for (const k of keys) out[k] = o?.[k]
  return out
}

/** Block fields both chains must agree on (the same transactions, receipts and base fee). */
const BLOCK_FIELDS = [
  'number',
  'gasUsed',
  'baseFeePerGas',
  'transactionsRoot',
  'receiptsRoot',
  'sha3Uncles',
  'uncles',
  'transactionCount',
] as const
/** Transaction fields that come from the signed bytes and the block position. */
const TX_FIELDS = ['hash', 'nonce', 'from', 'to', 'value', 'input', 'gas', 'type', 'transactionIndex', 'blockNumber']
/** Receipt fields a transaction's execution decides. */
const RECEIPT_FIELDS = [
  'transactionHash',
  'status',
  'gasUsed',
  'cumulativeGasUsed',
  'effectiveGasPrice',
  'contractAddress',
  'from',
  'to',
  'type',
  'transactionIndex',
  'blockNumber',
]

/** A receipt's logs without what differs between the chains (the block hash). */
function logsOf(r: Json): Json {
  return (r.logs ?? []).map((l: Json) =>
    pick(l, ['address', 'topics', 'data', 'logIndex', 'transactionHash', 'blockNumber']),
  )
}

beforeAll(async () => {
  ibex = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3,txpool,debug,ots'] })
  anvil = await startAnvil(['--gas-limit', '30000000'])
  const coinbase = ibex.validatorAddress()
  if (coinbase === undefined) throw new Error(`ibex printed no validator address:\n${ibex.stdout()}`)
  scenario = await runScenario(ibex.url, anvil.url, coinbase)
}, SETUP_TIMEOUT_MS)

afterAll(async () => {
  await anvil?.stop()
  await cleanupNodes()
})

describe('ots_ against anvil on the same transactions', () => {
  it('ots_getApiLevel is 8 on both', async () => {
    expect(await both('ots_getApiLevel', [])).toEqual([8, 8])
  })

  it(
    'ots_traceTransaction: same call entries (O1–O3), creations as the callTracer saw them',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      for (const tx of scenario.txs) {
        const [mine, theirs] = await both('ots_traceTransaction', [tx.hash])
        const created = tx.receipt.contractAddress !== null
        if (created) expect(theirs, `${tx.name}: anvil's answer for a creation (O1)`).toEqual([])
        else expectSame(withoutCreations(mine), erigonTrace(theirs), `${tx.name} calls`)
        const frame = await rpc(anvil.url, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }])
        const expected = creationEntries(frame)
        const entries = mine.filter((e: Json) => ['CREATE', 'CREATE2', 'SELFDESTRUCT'].includes(e.type))
        expect(entries.length, `${tx.name} creation entries`).toBe(expected.length)
        for (let i = 0; i < expected.length; i++) {
          // a failed creation: geth's callTracer has no `to`; Erigon (and ibex) name the address it was to get
          const want = expected[i].to === undefined ? { ...expected[i], to: entries[i].to } : expected[i]
          expectSame(entries[i], want, `${tx.name} creation entry ${i}`)
        }
        if (created) expect(mine[0]).toMatchObject({ type: 'CREATE', depth: 0, to: tx.receipt.contractAddress })
      }
    },
  )

  it(
    'ots_getInternalOperations: the same operations below the top frame (O4)',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      let seen = 0
      for (const tx of scenario.txs) {
        const [mine, theirs] = await both('ots_getInternalOperations', [tx.hash])
        const sent = await rpc(ibex.url, 'eth_getTransactionByHash', [tx.hash])
        const top = { from: sent.from, to: sent.to, contract: tx.receipt.contractAddress }
        expectSame(mine, erigonInternalOps(theirs, top), `${tx.name} internal operations`)
        seen += mine.length
      }
      // transfers, creations (CREATE in a constructor, CREATE2, a failed CREATE) and a self-destruct
      expect(seen).toBeGreaterThanOrEqual(6)
      const kinds = new Set<number>()
      for (const tx of scenario.txs)
        for (const op of await rpc(ibex.url, 'ots_getInternalOperations', [tx.hash])) kinds.add(op.type)
      expect([...kinds].sort()).toEqual([0, 1, 2, 3])
    },
  )

  it('ots_getTransactionError: the same revert output, 0x on success', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const tx of scenario.txs) {
      const [mine, theirs] = await both('ots_getTransactionError', [tx.hash])
      expect(mine, tx.name).toBe(theirs)
    }
    const reverted = scenario.txs.find((t) => t.name === 'reverted transaction')
    expect((await rpc(ibex.url, 'ots_getTransactionError', [reverted?.hash])).startsWith('0x08c379a0')).toBe(true)
  })

  it(
    'ots_getBlockDetails (by number, by hash): same shape, block fields, issuance and total fees',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      for (const tx of scenario.txs) {
        const n = Number(tx.receipt.blockNumber)
        const [mine, theirs] = await both('ots_getBlockDetails', [n])
        expect(Object.keys(mine).sort()).toEqual(Object.keys(theirs).sort())
        expectSame(pick(mine.block, BLOCK_FIELDS), pick(theirs.block, BLOCK_FIELDS), `block ${n}`)
        expect(mine.block.transactions).toBeUndefined()
        // O6: Erigon sends logsBloom null in block details (ots-api.md); anvil sends the bloom
        expect(mine.block.logsBloom).toBeNull()
        expectSame(mine.issuance, theirs.issuance, `block ${n} issuance`)
        expect(mine.totalFees, `block ${n} totalFees`).toBe(theirs.totalFees)
        const byHash = await rpc(ibex.url, 'ots_getBlockDetailsByHash', [mine.block.hash])
        expectSame(byHash, mine, `block ${n} by hash`)
      }
    },
  )

  it(
    'ots_getBlockTransactions: the same page of transactions (selector only) and receipts (no logs)',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      for (const tx of scenario.txs) {
        const n = Number(tx.receipt.blockNumber)
        const [mine, theirs] = await both('ots_getBlockTransactions', [n, 0, 25])
        expect(mine.fullblock.transactionCount).toBe(theirs.fullblock.transactionCount)
        expectSame(
          mine.fullblock.transactions.map((t: Json) => pick(t, TX_FIELDS)),
          theirs.fullblock.transactions.map((t: Json) => pick(t, TX_FIELDS)),
          `block ${n} transactions`,
        )
        expectSame(
          mine.receipts.map((r: Json) => pick(r, RECEIPT_FIELDS)),
          theirs.receipts.map((r: Json) => pick(r, RECEIPT_FIELDS)),
          `block ${n} receipts`,
        )
        expect(mine.fullblock.transactions[0].input.length).toBeLessThanOrEqual(10)
        // O7: Erigon's receipts here carry logs and logsBloom null (ots-api.md); anvil sends [] and the bloom
        for (const r of mine.receipts) expect([r.logs, r.logsBloom]).toEqual([null, null])
      }
    },
  )

  it(
    'ots_searchTransactionsBefore / After: the same pages for every address, internal appearances included',
    { timeout: TEST_TIMEOUT_MS },
    async () => {
      const addresses = [
        scenario.sender,
        ...Object.values(scenario.addresses),
        DEV_ACCOUNTS[1].address,
        DEV_ACCOUNTS[2].address,
      ]
      for (const address of addresses) {
        for (const direction of ['Before', 'After'] as const) {
          let block = 0
          for (let page = 0; page < 50; page++) {
            const [mine, theirs] = await both(`ots_searchTransactions${direction}`, [address, block, PAGE])
            const what = `${address} ${direction} page ${page} from ${block}`
            expect(
              mine.txs.map((t: Json) => t.hash),
              what,
            ).toEqual(theirs.txs.map((t: Json) => t.hash))
            if (mine.firstPage !== theirs.firstPage || mine.lastPage !== theirs.lastPage) {
              // O8: anvil stops scanning once a page is full and says "more" without looking; Erigon
              // (buildSearchResults' hasMore) says more only when a match in another block follows
              const edge = direction === 'Before' ? mine.txs.at(-1) : mine.txs[0]
              const next = await rpc(anvil.url, `ots_searchTransactions${direction}`, [
                address,
                Number(edge.blockNumber),
                PAGE,
              ])
              expect(next.txs, `${what}: anvil's next page`).toEqual([])
              expect(direction === 'Before' ? mine.lastPage : mine.firstPage, what).toBe(true)
            }
            expectSame(
              mine.receipts.map((r: Json) => ({ ...pick(r, RECEIPT_FIELDS), logs: logsOf(r), logsBloom: r.logsBloom })),
              theirs.receipts.map((r: Json) => ({
                ...pick(r, RECEIPT_FIELDS),
                logs: logsOf(r),
                logsBloom: r.logsBloom,
              })),
              what,
            )
            // each receipt carries its block's timestamp, a JSON integer as Erigon's block.Time() (O9)
            expect(
              mine.receipts.map((r: Json) => r.timestamp),
              what,
            ).toEqual(mine.txs.map((t: Json) => Number(t.blockTimestamp)))
            expect(
              theirs.receipts.map((r: Json) => Number(r.timestamp) > 0),
              what,
            ).toEqual(theirs.txs.map(() => true))
            const done = direction === 'Before' ? mine.lastPage : mine.firstPage
            if (done || mine.txs.length === 0) break
            const edge = mine.txs.at(-1)
            block = Number(direction === 'Before' ? edge.blockNumber : mine.txs[0].blockNumber)
          }
        }
      }
      // DEV_ACCOUNTS[2] only ever received value from a contract (Misc.payEoa): found through the internal call
      const internal = await rpc(ibex.url, 'ots_searchTransactionsBefore', [DEV_ACCOUNTS[2].address, 0, 25])
      const paid = scenario.txs.find((t) => t.name === 'value to an account without code')
      expect(internal.txs.map((t: Json) => t.hash)).toEqual([paid?.hash])
    },
  )

  it('ots_getTransactionBySenderAndNonce: the same hash for every nonce, null past the last', async () => {
    for (let nonce = 0; nonce <= scenario.txs.length; nonce++) {
      const [mine, theirs] = await both('ots_getTransactionBySenderAndNonce', [scenario.sender, nonce])
      expect(mine, `nonce ${nonce}`).toBe(theirs)
    }
    expect(await rpc(ibex.url, 'ots_getTransactionBySenderAndNonce', [scenario.sender, scenario.txs.length])).toBeNull()
  })

  it('ots_getContractCreator and ots_hasCode: the same for every contract and an account', async () => {
    for (const [name, address] of Object.entries(scenario.addresses)) {
      const [mine, theirs] = await both('ots_getContractCreator', [address])
      expect(mine, name).toEqual(theirs)
      const [code, theirCode] = await both('ots_hasCode', [address, 'latest'])
      expect(code, name).toBe(theirCode)
    }
    expect(await both('ots_getContractCreator', [scenario.sender])).toEqual([null, null])
    const first = Number(scenario.txs[0]?.receipt.blockNumber)
    // a plain JSON integer block, before the first contract existed
    expect(await both('ots_hasCode', [scenario.addresses.store, first - 1])).toEqual([false, false])
    expect(await both('ots_hasCode', [scenario.addresses.store, first])).toEqual([true, true])
  })

  it('erigon_getHeaderByNumber: the same header fields for a number and for latest', async () => {
    const n = Number(scenario.txs.at(-1)?.receipt.blockNumber)
    const [mine, theirs] = await both('erigon_getHeaderByNumber', [n])
    expectSame(
      pick(
        mine,
        BLOCK_FIELDS.filter((f) => f !== 'transactionCount' && f !== 'uncles'),
      ),
      pick(
        theirs,
        BLOCK_FIELDS.filter((f) => f !== 'transactionCount' && f !== 'uncles'),
      ),
      'header',
    )
    const [latest] = await both('erigon_getHeaderByNumber', ['latest'])
    expect(latest.number).toBe(mine.number)
  })
})

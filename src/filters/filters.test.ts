import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { backfillLogIndex, logIndexHead } from '../chain/logIndex.js'
import { devAccounts } from '../config/accounts.js'
import { openTestChain } from '../exec/testing.js'
import { createLogger } from '../log.js'
import { formatBlockReceipts } from '../rpc/format/receipt.js'
import type { FilterCriteria } from '../rpc/params/index.js'
import { createPoolChain } from '../txpool/chain.js'
import { TransactionPool } from '../txpool/pool.js'
import { ChainEvents } from './events.js'
import { FilterSystem, newRpcId } from './filters.js'
import { ChainStore } from '../chain/store.js'
import { blockLogsAt } from './keptLogs.js'
import { candidateBlocks, queryLogs } from './query.js'
import { Subscriptions } from './subscriptions.js'
import { compileMatcher } from './match.js'

const GWEI = 10n ** 9n
const [alice, validator] = devAccounts(2) as { address: string; privateKey: string }[] as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]
const T = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const topic = (n: number) => hexToBytes(T(n) as `0x${string}`)

/** Init code that emits LOG2(topic0, topic1) from the new contract's address and stops. */
function logInitCode(t0: number, t1: number): Uint8Array {
  return hexToBytes(`0x7f${T(t1).slice(2)}7f${T(t0).slice(2)}60006000a200` as `0x${string}`)
}

const dirs: string[] = []
const cleanups: (() => Promise<void> | void)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function setup(timeoutMs = 1000) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-filters-'))
  dirs.push(dir)
  const chain = await openTestChain(dir, { validator })
  cleanups.push(() => chain.db.close())
  const pool = new TransactionPool({
    chain: createPoolChain(chain.store, chain.db, chain.common, 0n),
    limits: {
      priceBumpPercent: 10,
      accountQueue: 64,
      globalSlots: 100,
      globalQueue: 100,
      lifetimeMs: 1e9,
      rejournalMs: 0,
    },
  })
  const events = new ChainEvents(chain.store)
  pool.onNewTx((tx) => events.emitPendingTx(tx))
  let now = 1_000_000
  const filters = new FilterSystem({
    store: chain.store,
    events,
    timeoutMs,
    limits: { maxBlockRange: 0, maxResults: 0 },
    now: () => now,
  })
  cleanups.push(() => filters.close())
  let nonce = 0n
  /** Mines one block holding one log-emitting deployment per [t0, t1] pair (none: an empty block). */
  const mine = async (...logs: [number, number][]) => {
    for (const [t0, t1] of logs) {
      const tx = createTx(
        {
          type: 2,
          nonce: nonce++,
          data: logInitCode(t0, t1),
          gasLimit: 100_000n,
          maxFeePerGas: 20n * GWEI,
          maxPriorityFeePerGas: GWEI,
        },
        { common: chain.common },
      ).sign(hexToBytes(alice.privateKey as `0x${string}`))
      await pool.submit(tx.serialize())
    }
    const head = chain.store.head.header
    const { block, dropped } = await chain.builder.build(pool.candidates(head.calcNextBaseFee()), head.timestamp + 1n)
    await pool.onBlock(dropped.map((d) => d.ptx))
    events.emitBlock(block)
    return block
  }
  const advance = (ms: number) => {
    now += ms
  }
  return { ...chain, filters, events, mine, advance }
}

function criteria(c: Partial<FilterCriteria>): FilterCriteria {
  return { blockHash: undefined, fromBlock: undefined, toBlock: undefined, addresses: [], topics: [], ...c }
}
const num = (n: bigint) => ({ kind: 'number', number: n }) as const

describe('log queries', () => {
  it('finds blocks through the index: address, topic positions, OR-alternatives, wildcards', async () => {
    const { store, mine } = await setup()
    const b1 = await mine([1, 10])
    await mine()
    const b3 = await mine([2, 10], [1, 11])
    const m = (c: Partial<FilterCriteria>) => candidateBlocks(store, compileMatcher(criteria(c)), 0n, 3n)
    expect(m({})).toEqual([1, 3])
    expect(m({ topics: [[topic(1)]] })).toEqual([1, 3])
    expect(m({ topics: [[topic(2)]] })).toEqual([3])
    expect(m({ topics: [null, [topic(11)]] })).toEqual([3])
    expect(m({ topics: [[topic(2), topic(9)], [topic(10)]] })).toEqual([3])
    expect(m({ topics: [[topic(3)]] })).toEqual([])
    const all = await queryLogs(store, criteria({ fromBlock: num(0n) }), { maxBlockRange: 0, maxResults: 0 })
    expect(all.map((l) => [l.blockNumber, l.topics])).toEqual([
      ['0x1', [T(1), T(10)]],
      ['0x3', [T(2), T(10)]],
      ['0x3', [T(1), T(11)]],
    ])
    const or = await queryLogs(store, criteria({ fromBlock: num(0n), topics: [null, [topic(10), topic(11)]] }), {
      maxBlockRange: 0,
      maxResults: 0,
    })
    expect(or.length).toBe(3)
    const address = all[0]?.address as string
    const byAddress = await queryLogs(store, criteria({ fromBlock: num(0n), addresses: [address] }), {
      maxBlockRange: 0,
      maxResults: 0,
    })
    expect(byAddress).toEqual([all[0]])
    const byHash = await queryLogs(store, criteria({ blockHash: b3.hash }), { maxBlockRange: 0, maxResults: 0 })
    expect(byHash).toEqual(all.slice(1))
    // the same objects as the receipts carry
    const receipts = formatBlockReceipts(b3, store.getReceipts(b3.hash) ?? [])
    expect(byHash).toEqual(receipts.flatMap((r) => r.logs as unknown[]))
    expect(b1.header.number).toBe(1n)
  })

  it("answers geth's range errors and the configured limits", async () => {
    const { store, mine } = await setup()
    await mine([1, 1])
    await mine([1, 2], [1, 3])
    const none = { maxBlockRange: 0, maxResults: 0 }
    const err = (c: Partial<FilterCriteria>, limits = none) =>
      queryLogs(store, criteria(c), limits).then(
        () => 'no error',
        (e: Error & { code: number }) => `${e.code} ${e.message}`,
      )
    expect(await err({ fromBlock: num(0n), toBlock: num(3n) })).toBe(
      '-32602 block range extends beyond current head block',
    )
    expect(await err({ fromBlock: num(3n) })).toBe('-32602 invalid block range params')
    expect(await err({ fromBlock: num(2n), toBlock: num(1n) })).toBe('-32602 invalid block range params')
    expect(await err({ blockHash: new Uint8Array(32) })).toBe('-32000 unknown block')
    expect(await err({ fromBlock: num(0n) }, { maxBlockRange: 1, maxResults: 0 })).toBe(
      '-32602 exceed maximum block range 1',
    )
    expect(await err({ fromBlock: num(1n) }, { maxBlockRange: 1, maxResults: 0 })).toBe('no error')
    expect(await err({ fromBlock: num(0n) }, { maxBlockRange: 0, maxResults: 2 })).toBe(
      '-32602 query exceeds max results 2, retry with the range 0-1',
    )
  })

  it('serves a range again from kept logs: the same answers as a fresh store, formatting only what a query returned', async () => {
    const { store, db, common, mine } = await setup()
    await mine([1, 10], [2, 20])
    await mine()
    const b3 = await mine([1, 11], [3, 10])
    const none = { maxBlockRange: 0, maxResults: 0 }
    const fresh = (c: Partial<FilterCriteria>, limits = none) =>
      queryLogs(new ChainStore(db, common), criteria(c), limits)
    const one = await queryLogs(store, criteria({ fromBlock: num(0n), topics: [null, [topic(11)]] }), none)
    expect(one.map((l) => [l.blockNumber, l.logIndex, l.topics])).toEqual([['0x3', '0x0', [T(1), T(11)]]])
    // block 3's other log was not formatted by that query
    const kept3 = blockLogsAt(store, 3n)
    expect(Buffer.from(kept3?.hash ?? []).equals(Buffer.from(b3.hash))).toBe(true)
    expect(kept3?.objects[0]).toBe(one[0])
    expect(kept3?.objects[1]).toBeUndefined()
    const all = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    expect(all).toEqual(await fresh({ fromBlock: num(0n) }))
    expect(all.map((l) => [l.blockNumber, l.logIndex, l.transactionIndex])).toEqual([
      ['0x1', '0x0', '0x0'],
      ['0x1', '0x1', '0x1'],
      ['0x3', '0x0', '0x0'],
      ['0x3', '0x1', '0x1'],
    ])
    expect(all[2]).toBe(one[0])
    const again = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    for (const [i, l] of again.entries()) expect(l).toBe(all[i])
    for (const c of [
      { topics: [[topic(1)]] },
      { topics: [null, [topic(10)]] },
      { addresses: [all[1]?.address as string] },
    ]) {
      expect(await queryLogs(store, criteria({ fromBlock: num(0n), ...c }), none)).toEqual(
        await fresh({ fromBlock: num(0n), ...c }),
      )
    }
    // the result limit counts kept logs as before
    const limited = (s: ChainStore) =>
      queryLogs(s, criteria({ fromBlock: num(0n) }), { maxBlockRange: 0, maxResults: 3 }).then(
        () => 'no error',
        (e: Error) => e.message,
      )
    expect(await limited(store)).toBe('query exceeds max results 3, retry with the range 0-2')
    expect(await limited(new ChainStore(db, common))).toBe('query exceeds max results 3, retry with the range 0-2')
    // a new block joins the range
    await mine([5, 50])
    const more = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    expect(more.slice(0, 4)).toEqual(all)
    expect(more.map((l) => l.blockNumber)).toEqual(['0x1', '0x1', '0x3', '0x3', '0x4'])
    expect(more).toEqual(await fresh({ fromBlock: num(0n) }))
  })

  it('indexes the blocks of a datadir written before the index', async () => {
    const { store, db, mine } = await setup()
    await mine([4, 4])
    const batch = db.batch()
    batch.del('meta', Buffer.from('logindex-head'))
    await batch.write(false)
    expect(logIndexHead(db)).toBeUndefined()
    expect(await backfillLogIndex(store, createLogger('silent'))).toBe(2)
    expect(logIndexHead(db)).toBe(1n)
  })
})

describe('polling filters', () => {
  it('ids are geth rpc.IDs', () => {
    for (let i = 0; i < 50; i++) expect(newRpcId()).toMatch(/^0x[1-9a-f][0-9a-f]{0,31}$/)
  })

  it('a block filter returns each new block hash once', async () => {
    const { filters, mine } = await setup()
    const id = filters.newBlockFilter()
    const b1 = await mine()
    const b2 = await mine()
    const hex = (h: Uint8Array) => `0x${Buffer.from(h).toString('hex')}`
    expect(filters.changes(id)).toEqual([hex(b1.hash), hex(b2.hash)])
    expect(filters.changes(id)).toEqual([])
    const b3 = await mine()
    expect(filters.changes(id)).toEqual([hex(b3.hash)])
  })

  it('a log filter returns each matching log once; getFilterLogs equals getLogs', async () => {
    const { store, filters, mine } = await setup()
    const id = filters.newLogFilter(criteria({ topics: [[topic(1), topic(2)], null] }))
    await mine([1, 5], [3, 5])
    await mine([2, 6])
    const changes = filters.changes(id) as { topics: string[] }[]
    expect(changes.map((l) => l.topics[0])).toEqual([T(1), T(2)])
    expect(filters.changes(id)).toEqual([])
    const logs = await filters.logs(id)
    expect(logs).toEqual(await queryLogs(store, criteria({ topics: [[topic(1), topic(2)], null] }), filters.limits))
  })

  it('a log filter honours numeric block bounds', async () => {
    const { filters, mine } = await setup()
    const id = filters.newLogFilter(criteria({ fromBlock: num(2n), toBlock: num(2n) }))
    await mine([1, 1])
    await mine([1, 2])
    await mine([1, 3])
    expect((filters.changes(id) as { blockNumber: string }[]).map((l) => l.blockNumber)).toEqual(['0x2'])
    expect(() => filters.newLogFilter(criteria({ fromBlock: num(3n), toBlock: num(2n) }))).toThrow(
      'invalid block range params',
    )
  })

  it('a pending transaction filter returns hashes, or objects when asked', async () => {
    const { filters, mine } = await setup()
    const hashes = filters.newPendingTransactionFilter(false)
    const full = filters.newPendingTransactionFilter(true)
    await mine([1, 1])
    const [hash] = filters.changes(hashes) as string[]
    expect(hash).toMatch(/^0x[0-9a-f]{64}$/)
    expect(filters.changes(full)).toMatchObject([{ hash, blockHash: null, from: alice.address.toLowerCase() }])
  })

  it('an idle filter is gone after the timeout; polling restarts it; uninstall is true then false', async () => {
    const { filters, advance } = await setup(3000)
    const idle = filters.newBlockFilter()
    const polled = filters.newBlockFilter()
    advance(2000)
    expect(filters.changes(polled)).toEqual([])
    advance(1500)
    expect(() => filters.changes(idle)).toThrow('filter not found')
    expect(filters.changes(polled)).toEqual([])
    expect(filters.uninstall(polled)).toBe(true)
    expect(filters.uninstall(polled)).toBe(false)
    expect(() => filters.changes(polled)).toThrow('filter not found')
    await expect(async () => filters.logs(polled)).rejects.toThrow('filter not found')
  })
})

describe('subscriptions of one connection', () => {
  it('hold notifications until the subscribe answer is out, then deliver each once; removal stops them', async () => {
    const { events, mine } = await setup()
    const sent: { params: { subscription: string; result: { number?: string } } }[] = []
    const subs = new Subscriptions(events, (text) => sent.push(JSON.parse(text)))
    const heads = subs.add('newHeads')
    const logs = subs.add('logs', { query: criteria({ topics: [[topic(7)]] }) })
    const b1 = await mine([7, 1], [8, 1])
    expect(sent).toEqual([])
    subs.activate()
    expect(sent.map((n) => n.params.subscription)).toEqual([heads, logs])
    expect(sent[0]?.params.result.number).toBe(`0x${b1.header.number.toString(16)}`)
    expect(subs.remove(logs)).toBe(true)
    expect(subs.remove(logs)).toBe(false)
    await mine([7, 2])
    expect(sent.map((n) => n.params.subscription)).toEqual([heads, logs, heads])
    subs.close()
    await mine()
    expect(sent).toHaveLength(3)
  })
})

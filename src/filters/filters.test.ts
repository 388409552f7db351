import { afterEach, describe, expect, it } from 'vitest'
import { backfillLogIndex, logIndexHead } from '../chain/logIndex.js'
import { ChainStore } from '../chain/store.js'
import { createLogger } from '../log.js'
import type { ChainLog } from './chainLog.js'
import { newRpcId } from './filters.js'
import { blockLogsAt } from './keptLogs.js'
import { compileMatcher } from './match.js'
import { candidateBlocks, type LogQuery, queryLogs } from './query.js'
import { SubscriptionHub, type SubscriptionItem } from './subscriptions.js'
import { criteria, hex, num, openFilterChain, SENDER, T, topic } from '../../test/helpers/filters.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function setup(timeoutMs = 1000) {
  const chain = await openFilterChain(timeoutMs)
  cleanups.push(chain.close)
  return chain
}

const none = { maxBlockRange: 0, maxResults: 0 }
/** Where a log sits, as comparable values. */
const placed = (l: ChainLog) => [l.block.number, l.logIndex, l.txIndex]
const topicsOf = (l: ChainLog) => l.topics.map(hex)

describe('log queries', () => {
  it('finds blocks through the index: address, topic positions, OR-alternatives, wildcards', async () => {
    const { store, mine } = await setup()
    const b1 = await mine([1, 10])
    await mine()
    const b3 = await mine([2, 10], [1, 11])
    const m = (c: Partial<LogQuery>) => candidateBlocks(store, compileMatcher(criteria(c)), 0n, 3n)
    expect(m({})).toEqual([1, 3])
    expect(m({ topics: [[topic(1)]] })).toEqual([1, 3])
    expect(m({ topics: [[topic(2)]] })).toEqual([3])
    expect(m({ topics: [null, [topic(11)]] })).toEqual([3])
    expect(m({ topics: [[topic(2), topic(9)], [topic(10)]] })).toEqual([3])
    expect(m({ topics: [[topic(3)]] })).toEqual([])
    const all = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    expect(all.map((l) => [l.block.number, topicsOf(l)])).toEqual([
      [1n, [T(1), T(10)]],
      [3n, [T(2), T(10)]],
      [3n, [T(1), T(11)]],
    ])
    const or = await queryLogs(store, criteria({ fromBlock: num(0n), topics: [null, [topic(10), topic(11)]] }), none)
    expect(or.length).toBe(3)
    const address = hex((all[0] as ChainLog).address)
    const byAddress = await queryLogs(store, criteria({ fromBlock: num(0n), addresses: [address] }), none)
    expect(byAddress).toEqual([all[0]])
    const byHash = await queryLogs(store, criteria({ blockHash: b3.hash }), none)
    expect(byHash).toEqual(all.slice(1))
    // each log carries its block and transaction: what the receipts say
    const receipts = store.getReceipts(b3.hash) ?? []
    expect(byHash.map((l) => [hex(l.block.hash), l.block.timestamp, l.block.logCount])).toEqual([
      [hex(b3.hash), b3.header.timestamp, 2],
      [hex(b3.hash), b3.header.timestamp, 2],
    ])
    expect(byHash.map((l) => hex(l.txHash))).toEqual(b3.transactions.map((tx) => hex(tx.hash())))
    expect(byHash.map((l) => [l.address, l.topics, l.data])).toEqual(receipts.flatMap((r) => r.logs))
    expect(b1.header.number).toBe(1n)
  })

  it("answers geth's range errors and the configured limits", async () => {
    const { store, mine } = await setup()
    await mine([1, 1])
    const b2 = await mine([1, 2], [1, 3])
    const err = (c: Partial<LogQuery>, limits = none) =>
      queryLogs(store, criteria(c), limits).then(
        () => 'no error',
        (e: Error & { code?: number }) => e.message,
      )
    expect(await err({ fromBlock: num(0n), toBlock: num(3n) })).toBe('block range extends beyond current head block')
    expect(await err({ fromBlock: num(3n) })).toBe('invalid block range params')
    expect(await err({ fromBlock: num(2n), toBlock: num(1n) })).toBe('invalid block range params')
    expect(await err({ blockHash: new Uint8Array(32) })).toBe('unknown block')
    expect(await err({ fromBlock: { kind: 'hash', hash: new Uint8Array(32) } })).toBe('header for hash not found')
    expect(await err({ fromBlock: num(0n) }, { maxBlockRange: 1, maxResults: 0 })).toBe('exceed maximum block range 1')
    expect(await err({ fromBlock: num(1n) }, { maxBlockRange: 1, maxResults: 0 })).toBe('no error')
    expect(await err({ fromBlock: num(0n) }, { maxBlockRange: 0, maxResults: 2 })).toBe(
      'query exceeds max results 2, retry with the range 0-1',
    )
    // one block is always answered whole (query.test.ts)
    expect(await err({ blockHash: b2.hash }, { maxBlockRange: 0, maxResults: 1 })).toBe('no error')
  })

  it('serves a range again from kept logs: the same answers as a fresh store, placing only what a query returned', async () => {
    const { store, db, common, mine } = await setup()
    await mine([1, 10], [2, 20])
    await mine()
    const b3 = await mine([1, 11], [3, 10])
    const fresh = (c: Partial<LogQuery>, limits = none) => queryLogs(new ChainStore(db, common), criteria(c), limits)
    const one = await queryLogs(store, criteria({ fromBlock: num(0n), topics: [null, [topic(11)]] }), none)
    expect(one.map((l) => [...placed(l), topicsOf(l)])).toEqual([[3n, 0, 0, [T(1), T(11)]]])
    // block 3's other log was not placed by that query
    const kept3 = blockLogsAt(store, 3n)
    expect(hex(kept3?.hash ?? new Uint8Array())).toBe(hex(b3.hash))
    expect(kept3?.found[0]).toBe(one[0])
    expect(kept3?.found[1]).toBeUndefined()
    const all = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    expect(all).toEqual(await fresh({ fromBlock: num(0n) }))
    expect(all.map(placed)).toEqual([
      [1n, 0, 0],
      [1n, 1, 1],
      [3n, 0, 0],
      [3n, 1, 1],
    ])
    expect(all[2]).toBe(one[0])
    const again = await queryLogs(store, criteria({ fromBlock: num(0n) }), none)
    for (const [i, l] of again.entries()) expect(l).toBe(all[i])
    // a block by hash is served from the same kept logs
    const byHash = await queryLogs(store, criteria({ blockHash: b3.hash }), none)
    expect(byHash[0]).toBe(all[2])
    expect(byHash[1]).toBe(all[3])
    for (const c of [
      { topics: [[topic(1)]] },
      { topics: [null, [topic(10)]] },
      { addresses: [hex((all[1] as ChainLog).address)] },
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
    expect(more.map((l) => l.block.number)).toEqual([1n, 1n, 3n, 3n, 4n])
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
    expect(filters.changes(id)).toEqual({ kind: 'blocks', hashes: [b1.hash, b2.hash] })
    expect(filters.changes(id)).toEqual({ kind: 'blocks', hashes: [] })
    const b3 = await mine()
    expect(filters.changes(id)).toEqual({ kind: 'blocks', hashes: [b3.hash] })
  })

  it('a log filter returns each matching log once; getFilterLogs equals getLogs', async () => {
    const { store, filters, mine } = await setup()
    const id = filters.newLogFilter(criteria({ topics: [[topic(1), topic(2)], null] }))
    await mine([1, 5], [3, 5])
    await mine([2, 6])
    const changes = filters.changes(id)
    expect(changes.kind).toBe('logs')
    const logs = changes.kind === 'logs' ? changes.logs : []
    expect(logs.map((l) => hex(l.topics[0] as Uint8Array))).toEqual([T(1), T(2)])
    expect(filters.changes(id)).toEqual({ kind: 'logs', logs: [] })
    // the same logs, placed the same way, as a query finds them
    const topics = [[topic(1), topic(2)], null]
    // (the events' logs come from the built block, the query's from the database: compare the facts)
    const facts = (l: ChainLog) => [
      ...placed(l),
      hex(l.block.hash),
      l.block.timestamp,
      l.block.logCount,
      hex(l.txHash),
      hex(l.address),
      topicsOf(l),
      hex(l.data),
    ]
    expect(logs.map(facts)).toEqual((await queryLogs(store, criteria({ fromBlock: num(0n), topics }), none)).map(facts))
    expect(await filters.logs(id)).toEqual(await queryLogs(store, criteria({ topics }), filters.limits))
  })

  it('a log filter honours numeric block bounds', async () => {
    const { filters, mine } = await setup()
    const id = filters.newLogFilter(criteria({ fromBlock: num(2n), toBlock: num(2n) }))
    await mine([1, 1])
    await mine([1, 2])
    await mine([1, 3])
    const changes = filters.changes(id)
    expect(changes.kind === 'logs' ? changes.logs.map((l) => l.block.number) : changes).toEqual([2n])
    expect(() => filters.newLogFilter(criteria({ fromBlock: num(3n), toBlock: num(2n) }))).toThrow(
      'invalid block range params',
    )
  })

  it('a pending transaction filter returns the pool transactions, asking for hashes or objects', async () => {
    const { filters, mine } = await setup()
    const hashes = filters.newPendingTransactionFilter(false)
    const full = filters.newPendingTransactionFilter(true)
    await mine([1, 1])
    const changes = filters.changes(hashes)
    expect(changes).toMatchObject({ kind: 'pendingTxs', fullTx: false })
    const txs = changes.kind === 'pendingTxs' ? changes.txs : []
    expect(txs.map((t) => [t.hashHex.length, hex(t.sender)])).toEqual([[66, SENDER.address.toLowerCase()]])
    expect(filters.changes(full)).toEqual({ kind: 'pendingTxs', txs, fullTx: true })
    expect(filters.changes(full)).toEqual({ kind: 'pendingTxs', txs: [], fullTx: true })
  })

  it('an idle filter is gone after the timeout; polling restarts it; uninstall is true then false', async () => {
    const { filters, advance } = await setup(3000)
    const idle = filters.newBlockFilter()
    const polled = filters.newBlockFilter()
    advance(2000)
    expect(filters.changes(polled)).toEqual({ kind: 'blocks', hashes: [] })
    advance(1500)
    expect(() => filters.changes(idle)).toThrow('filter not found')
    expect(filters.changes(polled)).toEqual({ kind: 'blocks', hashes: [] })
    expect(filters.uninstall(polled)).toBe(true)
    expect(filters.uninstall(polled)).toBe(false)
    expect(() => filters.changes(polled)).toThrow('filter not found')
    await expect(async () => filters.logs(polled)).rejects.toThrow('filter not found')
  })
})

describe('subscriptions of one connection', () => {
  it('hold items until the subscribe answer is out, then deliver each once; removal stops them', async () => {
    const { events, mine } = await setup()
    const sent: [string, SubscriptionItem][] = []
    const subs = new SubscriptionHub(events).connection((id, item) => sent.push([id, item]))
    const heads = subs.add('newHeads')
    const logs = subs.add('logs', { query: criteria({ topics: [[topic(7)]] }) })
    const pending = subs.add('newPendingTransactions', { fullTx: true })
    const b1 = await mine([7, 1], [8, 1])
    expect(sent).toEqual([])
    subs.activate()
    // each subscription's backlog in turn
    expect(sent.map(([id, item]) => [id, item.kind])).toEqual([
      [heads, 'newHeads'],
      [logs, 'logs'],
      [pending, 'newPendingTransactions'],
      [pending, 'newPendingTransactions'],
    ])
    expect(sent.filter(([id]) => id === pending).map(([, item]) => item)).toMatchObject([
      { fullTx: true },
      { fullTx: true },
    ])
    const [, head] = sent[0] as [string, SubscriptionItem]
    expect(head.kind === 'newHeads' && head.block).toBe(b1)
    const [, log] = sent[1] as [string, SubscriptionItem]
    expect(log.kind === 'logs' && [log.log.block.number, hex(log.log.topics[0] as Uint8Array)]).toEqual([1n, T(7)])
    expect(subs.remove(logs)).toBe(true)
    expect(subs.remove(logs)).toBe(false)
    expect(subs.remove(pending)).toBe(true)
    await mine([7, 2])
    expect(sent.map(([id]) => id).slice(4)).toEqual([heads])
    subs.close()
    await mine()
    expect(sent).toHaveLength(5)
  })
})

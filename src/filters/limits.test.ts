/**
 * Many filters and subscriptions (issue 18 item 4): they are capped in all and per client with
 * a clear -32005-kind error, a log costs only the filters that may match it (the matcher index),
 * and block / pending items are stored once for all filters that wait for them.
 */
import { afterEach, describe, expect, it } from 'vitest'

import { EventRing, FilterSystem } from './filters.js'
import { compileMatcher } from './match.js'
import { MatcherIndex } from './matcherIndex.js'
import { SubscriptionHub, type SubscriptionItem } from './subscriptions.js'
import { criteria, openFilterChain, topic } from '../../test/helpers/filters.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function setup() {
  const chain = await openFilterChain()
  cleanups.push(chain.close)
  return chain
}

/** A distinct 20-byte address per n. */
const address = (n: number) => `0x${n.toString(16).padStart(40, '0')}`
const addrBytes = (n: number) => Buffer.from(address(n).slice(2), 'hex')

describe('MatcherIndex', () => {
  it('a log examines its address bucket, its topic0 bucket and the wildcards — not every matcher', () => {
    const index = new MatcherIndex<string>()
    for (let i = 0; i < 5_000; i++) index.add(compileMatcher({ addresses: [address(i)], topics: [] }), `a${i}`)
    index.add(compileMatcher({ addresses: [], topics: [[topic(1)]] }), 't1')
    index.add(compileMatcher({ addresses: [], topics: [] }), 'all')
    index.add(compileMatcher({ addresses: [address(7), address(8)], topics: [null, [topic(2)]] }), 'a7-8/t2')

    const matched = [...index.matching(addrBytes(7), [topic(1), topic(2)])]
    expect(matched.sort()).toEqual(['a7', 'a7-8/t2', 'all', 't1'])
    expect(index.examined).toBeLessThanOrEqual(4)
    index.examined = 0
    expect([...index.matching(addrBytes(7), [topic(3)])].sort()).toEqual(['a7', 'all'])
    expect([...index.matching(addrBytes(99_999), [])]).toEqual(['all'])
    expect(index.examined).toBeLessThanOrEqual(4)
  })

  it('removal takes a matcher out of every bucket, once', () => {
    const index = new MatcherIndex<string>()
    const off = index.add(compileMatcher({ addresses: [address(1), address(2)], topics: [] }), 'x')
    expect(index.size).toBe(1)
    off()
    off()
    expect(index.size).toBe(0)
    expect([...index.matching(addrBytes(1), [])]).toEqual([])
    expect([...index.matching(addrBytes(2), [])]).toEqual([])
  })
})

describe('EventRing', () => {
  it('hands each reader what came after its cursor; past capacity the oldest are gone', () => {
    const ring = new EventRing<number>(3)
    const early = ring.next
    for (const n of [1, 2]) ring.push(n)
    const mid = ring.next
    for (const n of [3, 4]) ring.push(n)
    expect(ring.since(mid)).toEqual([3, 4])
    expect(ring.since(early)).toEqual([2, 3, 4])
    expect(ring.since(ring.next)).toEqual([])
  })
})

describe('filter limits', () => {
  it('per client and in all: refused with the key that sets the limit; uninstalling frees a slot', async () => {
    const { store, events } = await setup()
    const filters = new FilterSystem({
      store,
      events,
      timeoutMs: 60_000,
      limits: { maxBlockRange: 0, maxResults: 0 },
      maxFilters: 5,
      maxFiltersPerClient: 3,
    })
    cleanups.push(async () => filters.close())
    const mine = [filters.newBlockFilter('1.1.1.1'), filters.newPendingTransactionFilter(false, '1.1.1.1')]
    mine.push(filters.newLogFilter(criteria({}), '1.1.1.1'))
    let err: unknown
    try {
      filters.newBlockFilter('1.1.1.1')
    } catch (e) {
      err = e
    }
    expect(err).toMatchObject({
      kind: 'tooManyFilters',
      message: expect.stringContaining('jsonrpc.max_filters_per_ip'),
    })
    filters.newBlockFilter('2.2.2.2')
    filters.newBlockFilter('2.2.2.2')
    expect(() => filters.newBlockFilter('3.3.3.3')).toThrow(/limit 5 reached \(jsonrpc\.max_filters\)/)
    expect(filters.uninstall(mine[0] as string)).toBe(true)
    expect(filters.countOf('1.1.1.1')).toBe(2)
    filters.newBlockFilter('1.1.1.1')
  })

  it('an expired filter frees its slot for a new one', async () => {
    const { store, events } = await setup()
    let now = 0
    const filters = new FilterSystem({
      store,
      events,
      timeoutMs: 1000,
      limits: { maxBlockRange: 0, maxResults: 0 },
      maxFilters: 1,
      now: () => now,
    })
    cleanups.push(async () => filters.close())
    filters.newBlockFilter('a')
    expect(() => filters.newBlockFilter('b')).toThrow(/max_filters/)
    now += 2000
    filters.newBlockFilter('b')
  })

  it('block and pending filters share one copy of each item and each gets every item once', async () => {
    const { filters, mine } = await setup()
    const blockIds = Array.from({ length: 200 }, () => filters.newBlockFilter())
    const pendingIds = Array.from({ length: 200 }, () => filters.newPendingTransactionFilter(false))
    const b1 = await mine([1, 1])
    const b2 = await mine()
    for (const id of blockIds) {
      const c = filters.changes(id)
      expect(c.kind === 'blocks' && c.hashes).toEqual([b1.hash, b2.hash])
      expect(filters.changes(id)).toEqual({ kind: 'blocks', hashes: [] })
    }
    const first = filters.changes(pendingIds[0] as string)
    expect(first.kind === 'pendingTxs' && first.txs.length).toBe(1)
    for (const id of pendingIds.slice(1)) {
      const c = filters.changes(id)
      // the very same pool entry, not a per-filter copy
      expect(c.kind === 'pendingTxs' && c.txs[0]).toBe(first.kind === 'pendingTxs' && first.txs[0])
    }
  })
})

describe('subscription limits and sharing', () => {
  it('per client and in all; closing a connection frees its slots', async () => {
    const { events } = await setup()
    const hub = new SubscriptionHub(events, { maxTotal: 4, maxPerClient: 2 })
    const a = hub.connection(() => {}, '1.1.1.1')
    const a2 = hub.connection(() => {}, '1.1.1.1')
    a.add('newHeads')
    a2.add('newHeads')
    expect(() => a.add('newHeads')).toThrow(/limit 2 reached \(jsonrpc\.max_subscriptions_per_ip\)/)
    const b = hub.connection(() => {}, '2.2.2.2')
    b.add('newHeads')
    b.add('logs', { query: criteria({}) })
    expect(() => hub.connection(() => {}, '3.3.3.3').add('newHeads')).toThrow(/max_subscriptions\)/)
    b.close()
    expect(hub.size).toBe(2)
    hub.connection(() => {}, '3.3.3.3').add('newHeads')
    hub.close()
  })

  it('every subscriber of a head or log gets the same item object (serialized once by the RPC layer)', async () => {
    const { events, mine } = await setup()
    const hub = new SubscriptionHub(events)
    const got: SubscriptionItem[] = []
    for (let i = 0; i < 50; i++) {
      const conn = hub.connection((_id, item) => got.push(item), `10.0.0.${i}`)
      conn.add('newHeads')
      conn.add('logs', { query: criteria({ topics: [[topic(5)]] }) })
      conn.activate()
    }
    await mine([5, 1])
    const heads = got.filter((i) => i.kind === 'newHeads')
    const logs = got.filter((i) => i.kind === 'logs')
    expect(heads).toHaveLength(50)
    expect(logs).toHaveLength(50)
    expect(new Set(heads).size).toBe(1)
    expect(new Set(logs).size).toBe(1)
    hub.close()
  })
})

/**
 * The result limit of a log query never refuses one block: a blockHash query, or a range of one
 * block, answers all the block's matching logs (as reth does), so the "retry with the range n-n"
 * a wider range is refused with is a request that succeeds.
 */
import { afterEach, describe, expect, it } from 'vitest'
import { ChainStore } from '../chain/store.js'
import { type LogQuery, queryLogs } from './query.js'
import { criteria, num, openFilterChain } from '../../test/helpers/filters.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

/** At most this many logs in one answer: fewer than block 2 holds. */
const LIMIT = { maxBlockRange: 0, maxResults: 2 }

async function chainWithBigBlock() {
  const chain = await openFilterChain()
  cleanups.push(chain.close)
  await chain.mine([1, 1])
  // block 2: three logs, over LIMIT.maxResults
  const big = await chain.mine([1, 2], [1, 3], [2, 4])
  await chain.mine([1, 5])
  return { ...chain, big }
}

const answer = (store: ChainStore, c: Partial<LogQuery>) =>
  queryLogs(store, criteria(c), LIMIT).then(
    (logs) => logs.map((l) => [l.block.number, l.logIndex]),
    (e: Error) => e.message,
  )

describe('the result limit and single blocks', () => {
  it('a range over the limit names a retry range that then succeeds, block by block', async () => {
    const { store, db, common } = await chainWithBigBlock()
    for (const s of [store, new ChainStore(db, common)]) {
      expect(await answer(s, { fromBlock: num(1n) })).toBe('query exceeds max results 2, retry with the range 1-1')
      expect(await answer(s, { fromBlock: num(2n) })).toBe('query exceeds max results 2, retry with the range 2-2')
      expect(await answer(s, { fromBlock: num(2n), toBlock: num(2n) })).toEqual([
        [2n, 0],
        [2n, 1],
        [2n, 2],
      ])
    }
  })

  it('a blockHash query answers the whole block over the limit (kept logs, and a fresh store)', async () => {
    const { store, db, common, big } = await chainWithBigBlock()
    const whole = [
      [2n, 0],
      [2n, 1],
      [2n, 2],
    ]
    expect(await answer(new ChainStore(db, common), { blockHash: big.hash })).toEqual(whole)
    expect(await answer(store, { fromBlock: num(0n), toBlock: num(3n), topics: [] })).toMatch(/^query exceeds/)
    expect(await answer(store, { blockHash: big.hash })).toEqual(whole)
  })

  it('ranges of two or more blocks keep the limit', async () => {
    const { store } = await chainWithBigBlock()
    expect(await answer(store, { fromBlock: num(2n), toBlock: num(3n) })).toBe(
      'query exceeds max results 2, retry with the range 2-2',
    )
    expect(await answer(store, { fromBlock: num(0n), toBlock: num(1n) })).toEqual([[1n, 0]])
  })
})

import { describe, expect, it } from 'vitest'

import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import type { NetworkInfo } from '../p2p/network.js'
import { SETTINGS } from '../config/settings.js'
import { cannotFollow, maxHeadAge, READY_MAX_LAG_BLOCKS, readiness } from './health.js'

const store = { head: { header: { number: 12n, timestamp: 1_000n } } } as unknown as ChainStore
function db(status: string): Database {
  return { level: { status }, getSync: () => undefined } as unknown as Database
}
function network(peers: number, syncing: boolean, highestBlock = 40n): NetworkInfo {
  return {
    peerCount: () => peers,
    listening: () => true,
    syncStatus: () => (syncing ? { startingBlock: 0n, currentBlock: 12n, highestBlock } : undefined),
  }
}
/** A follower of a 2 s chain with one validator: heads up to 3 · 2 s + 1 s old are fine. */
const follower = { soleValidator: false, maxHeadAgeMs: 7_000, maxLagBlocks: 3 }

describe('readiness', () => {
  it('is ready with the database open, synced and peers when expected', () => {
    expect(
      readiness(
        { store, db: db('open'), network: network(2, false), expectPeers: true, ...follower },
        false,
        1_005_000,
      ),
    ).toEqual({
      ok: true,
      body: {
        ready: true,
        head: 12,
        headAgeSeconds: 5,
        maxHeadAgeSeconds: 7,
        soleValidator: false,
        database: 'open',
        synced: true,
        peers: 2,
      },
    })
    const sole = { soleValidator: true, maxHeadAgeMs: 7_000, maxLagBlocks: 3 }
    // a sole validator's head moves when it seals (dev: when transactions arrive), however old it is
    expect(readiness({ store, db: db('open'), network: undefined, expectPeers: false, ...sole }, false).ok).toBe(true)
  })

  it('names every reason it is not', () => {
    const r = readiness({ store, db: db('closed'), network: network(0, true), expectPeers: true, ...follower }, true)
    expect(r.ok).toBe(false)
    expect(r.body).toMatchObject({
      ready: false,
      database: 'closed',
      synced: false,
      highestBlock: 40,
      reasons: ['database closed', 'syncing', 'no peers', 'head stale', 'shutting down'],
    })
  })

  it('stays ready a few blocks behind, not more (no flap on a block in flight)', () => {
    const at = (highest: bigint, nowMs: number) =>
      readiness(
        { store, db: db('open'), network: network(1, true, highest), expectPeers: true, ...follower },
        false,
        nowMs,
      )
    expect(at(13n, 1_002_000).ok).toBe(true)
    expect(at(15n, 1_007_000).ok).toBe(true)
    expect(at(16n, 1_002_000).body.reasons).toEqual(['syncing'])
    expect(at(13n, 1_007_001).body.reasons).toEqual(['head stale'])
  })

  it('a node without p2p that is not the sole validator cannot follow', () => {
    const r = readiness(
      { store, db: db('open'), network: undefined, expectPeers: false, ...follower },
      false,
      1_001_000,
    )
    expect(r.body.reasons).toEqual(['cannot follow'])
  })

  it('tolerates a few block times, plus a round change when several validators seal', () => {
    const p = { blockTimeMs: 2000, validators: 1, roundTimeoutBaseMs: 10_000, maxLagBlocks: READY_MAX_LAG_BLOCKS }
    expect(maxHeadAge(p)).toBe(7_000)
    expect(maxHeadAge({ ...p, validators: 4 })).toBe(19_000)
    expect(maxHeadAge({ ...p, blockTimeMs: 0 })).toBeUndefined()
    expect(SETTINGS.find((s) => s.key === 'jsonrpc.ready_max_lag_blocks')?.default).toBe(READY_MAX_LAG_BLOCKS)
  })

  it('says why a node cannot follow', () => {
    const base = { soleValidator: false, validator: false, p2p: true, bootnodes: 2 }
    expect(cannotFollow(base)).toBeUndefined()
    expect(cannotFollow({ ...base, p2p: false })).toMatch(/^p2p is off/)
    expect(cannotFollow({ ...base, bootnodes: 0 })).toMatch(/^p2p has no bootnodes/)
    expect(cannotFollow({ ...base, bootnodes: 0, validator: true })).toBeUndefined()
    expect(cannotFollow({ ...base, p2p: false, soleValidator: true })).toBeUndefined()
  })
})

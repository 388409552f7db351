import { describe, expect, it } from 'vitest'

import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import type { NetworkInfo } from '../p2p/network.js'
import { readiness } from './health.js'

const store = { head: { header: { number: 12n, timestamp: 1_000n } } } as unknown as ChainStore
function db(status: string): Database {
  return { level: { status }, getSync: () => undefined } as unknown as Database
}
function network(peers: number, syncing: boolean): NetworkInfo {
  return {
    peerCount: () => peers,
    listening: () => true,
    syncStatus: () => (syncing ? { startingBlock: 0n, currentBlock: 12n, highestBlock: 40n } : undefined),
  }
}

describe('readiness', () => {
  it('is ready with the database open, synced and peers when expected', () => {
    expect(
      readiness({ store, db: db('open'), network: network(2, false), expectPeers: true }, false, 1_005_000),
    ).toEqual({
      ok: true,
      body: { ready: true, head: 12, headAgeSeconds: 5, database: 'open', synced: true, peers: 2 },
    })
    expect(readiness({ store, db: db('open'), network: undefined, expectPeers: false }, false).ok).toBe(true)
  })

  it('names every reason it is not', () => {
    const r = readiness({ store, db: db('closed'), network: network(0, true), expectPeers: true }, true)
    expect(r.ok).toBe(false)
    expect(r.body).toMatchObject({
      ready: false,
      database: 'closed',
      synced: false,
      highestBlock: 40,
      reasons: ['database closed', 'syncing', 'no peers', 'shutting down'],
    })
  })
})

/**
 * What the load balancer asks (served by rpc/server/http.ts):
 *
 *   GET /health  200 {"status":"ok", head, headAgeSeconds, …} while the process serves;
 *   GET /ready   200 {"status":"ok", ready: true, …} when the node should get traffic, else
 *                503 {"status":"unavailable", ready: false, reasons: […]}:
 *                - "database closed"  the chain database is not open (or a read fails),
 *                - "syncing"          the node is behind its peers (eth_syncing is not false),
 *                - "no peers"         p2p is on with bootnodes or other validators, and no peer is connected,
 *                - "shutting down"    SIGTERM received: finishing running requests before exit.
 */
import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import type { NetworkInfo } from '../p2p/network.js'
import type { HealthReport } from '../rpc/server/http.js'

export interface ReadinessSources {
  store: ChainStore
  db: Database
  network: NetworkInfo | undefined
  /** Whether this node should have peers (p2p on with bootnodes, or several validators). */
  expectPeers: boolean
}

/** A metadata key every chain has (the genesis JSON): reading it proves the database answers. */
const PROBE_KEY = Buffer.from('genesis.json')

function databaseOpen(db: Database): boolean {
  try {
    if ((db.level as { status?: string }).status !== 'open') return false
    db.getSync('meta', PROBE_KEY)
    return true
  } catch {
    return false
  }
}

/** readiness: the /ready answer; `draining` is true once shutdown began. */
export function readiness(s: ReadinessSources, draining: boolean, nowMs = Date.now()): HealthReport {
  const reasons: string[] = []
  const dbOpen = databaseOpen(s.db)
  if (!dbOpen) reasons.push('database closed')
  const sync = s.network?.syncStatus()
  if (sync !== undefined) reasons.push('syncing')
  const peers = s.network?.peerCount() ?? 0
  if (s.expectPeers && peers === 0) reasons.push('no peers')
  if (draining) reasons.push('shutting down')
  const head = s.store.head.header
  const body: Record<string, unknown> = {
    ready: reasons.length === 0,
    head: Number(head.number),
    headAgeSeconds: Math.floor(nowMs / 1000) - Number(head.timestamp),
    database: dbOpen ? 'open' : 'closed',
    synced: sync === undefined,
    peers,
  }
  if (sync !== undefined) body.highestBlock = Number(sync.highestBlock)
  if (reasons.length > 0) body.reasons = reasons
  return { ok: reasons.length === 0, body }
}

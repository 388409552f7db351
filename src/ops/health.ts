/**
 * What the load balancer asks (served by rpc/server/http.ts):
 *
 *   GET /health  200 {"status":"ok", head, headAgeSeconds, …} while the process serves;
 *   GET /ready   200 {"status":"ok", ready: true, …} when the node should get traffic, else
 *                503 {"status":"unavailable", ready: false, reasons: […]}:
 *                - "database closed"  the chain database is not open (or a read fails),
 *                - "syncing"          more than `maxLagBlocks` behind the best peer,
 *                - "no peers"         p2p is on with bootnodes or other validators, and no peer is connected,
 *                - "head stale"       the head is older than the chain's block time allows (halted
 *                                     chain, or a node that cannot reach it),
 *                - "cannot follow"    p2p is off and this node is not the sole validator: its head
 *                                     can only move by `ibex import`,
 *                - "shutting down"    SIGTERM received: finishing running requests before exit.
 *
 * Ready means serving a head that moves as the chain's block time says, or being the chain's sole
 * validator (its head moves when it seals; on dev that is when transactions arrive). The tolerance
 * is a few blocks, so a node one block behind, or a block in flight, stays in rotation:
 *
 *   max head age = maxLagBlocks · block time + one IBFT round timeout (several validators: a round
 *                  change with a proposer down is normal operation) + TIMESTAMP_RESOLUTION_MS
 */
import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import type { NetworkInfo } from '../p2p/network.js'
import type { HealthReport } from '../rpc/server/http.js'

/**
 * READY_MAX_LAG_BLOCKS (3): blocks a ready node may trail the chain, by head age or behind its best
 * peer. One is normal (a block in flight); three block times without one is a chain or a link that
 * stopped. Config key `[jsonrpc] ready_max_lag_blocks`.
 */
export const READY_MAX_LAG_BLOCKS = 3
/** TIMESTAMP_RESOLUTION_MS: header timestamps are whole seconds, so a fresh head can look up to 1 s old. */
export const TIMESTAMP_RESOLUTION_MS = 1000

export interface ReadinessSources {
  store: ChainStore
  db: Database
  network: NetworkInfo | undefined
  /** Whether this node should have peers (p2p on with bootnodes, or several validators). */
  expectPeers: boolean
  /** This node is the only validator of the head's set: its head moves when it seals. */
  soleValidator: boolean
  /** Oldest head (ms) still "moving as the block time says"; undefined when the chain has no cadence (block time 0). */
  maxHeadAgeMs: number | undefined
  /** Blocks behind the best peer that still count as synced. */
  maxLagBlocks: number
}

/** Chain facts the head-age tolerance is made of. */
export interface CadenceParams {
  /** The chain's block time, ms (0: blocks only when transactions arrive). */
  blockTimeMs: number
  /** Validators in the head's set. */
  validators: number
  /** IBFT round timeout base, ms (round 0 ends after base + block time). */
  roundTimeoutBaseMs: number
  maxLagBlocks: number
}

/** maxHeadAge: the oldest head a ready node may serve (module doc), undefined for block time 0. */
export function maxHeadAge(p: CadenceParams): number | undefined {
  if (p.blockTimeMs <= 0) return undefined
  const roundChange = p.validators > 1 ? p.roundTimeoutBaseMs + p.blockTimeMs : 0
  return p.maxLagBlocks * p.blockTimeMs + roundChange + TIMESTAMP_RESOLUTION_MS
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
  const behind = sync === undefined ? 0n : sync.highestBlock - sync.currentBlock
  if (behind > BigInt(s.maxLagBlocks)) reasons.push('syncing')
  const peers = s.network?.peerCount() ?? 0
  if (s.expectPeers && peers === 0) reasons.push('no peers')
  const head = s.store.head.header
  const headAgeMs = nowMs - Number(head.timestamp) * 1000
  if (!s.soleValidator) {
    if (s.maxHeadAgeMs !== undefined && headAgeMs > s.maxHeadAgeMs) reasons.push('head stale')
    if (s.network === undefined) reasons.push('cannot follow')
  }
  if (draining) reasons.push('shutting down')
  const body: Record<string, unknown> = {
    ready: reasons.length === 0,
    head: Number(head.number),
    headAgeSeconds: Math.floor(headAgeMs / 1000),
    maxHeadAgeSeconds: s.soleValidator || s.maxHeadAgeMs === undefined ? null : s.maxHeadAgeMs / 1000,
    soleValidator: s.soleValidator,
    database: dbOpen ? 'open' : 'closed',
    synced: sync === undefined,
    peers,
  }
  if (sync !== undefined) body.highestBlock = Number(sync.highestBlock)
  if (reasons.length > 0) body.reasons = reasons
  return { ok: reasons.length === 0, body }
}

/** Why a node cannot follow the chain, or undefined when it can (a validator, or p2p with somewhere to go). */
export function cannotFollow(p: {
  soleValidator: boolean
  validator: boolean
  p2p: boolean
  bootnodes: number
}): string | undefined {
  if (p.soleValidator) return undefined
  if (!p.p2p)
    return 'p2p is off and this node is not the sole validator: its head moves only by ibex import (set [p2p] bootnodes)'
  if (p.bootnodes === 0 && !p.validator)
    return 'p2p has no bootnodes and this node is not a validator: it follows only if a peer dials it (set [p2p] bootnodes)'
  return undefined
}

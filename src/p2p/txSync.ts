/**
 * TxSync: pending transactions announced by hash and fetched by hash, so that every transaction
 * a node holds as pending reaches the peers that lack it — the work of geth's eth/68
 * NewPooledTransactionHashes, GetPooledTransactions and tx fetcher. Gossip (network.ts) sends a
 * new transaction once, to whoever listens at that moment; a validator that was down then, or whose
 * pool refused a later nonce while an earlier one was missing, would never see it again.
 *
 *   a peer connects, or every `p2p.tx_announce_interval` for every peer
 *      ─▶ our pending hashes, the first nonce of every sender before any second one
 *         (≤ TX_ROUND_MAX_HASHES; a nonce gap at the peer is filled first)
 *      ─▶ the peer's announce queue ─▶ /tx-hashes, ≤ TX_ANNOUNCE_MAX_HASHES each, one in flight
 *         (a failed announcement, e.g. a peer still starting, is retried after TX_ANNOUNCE_RETRY_MS,
 *         backing off to the interval for a peer that never answers)
 *
 *   /tx-hashes from a peer ─▶ each hash our pool lacks, not being fetched, not tried within
 *      TX_REFETCH_AFTER_MS ─▶ that peer's fetch queue (≤ TX_FETCH_QUEUE_MAX)
 *      ─▶ /pooled-txs, ≤ TX_FETCH_MAX_HASHES each, one in flight per peer
 *      ─▶ frames checked against the hashes asked ─▶ submitted one by one in the order asked
 *         (a sender's nonces ascending), through the same admission as every transaction
 *
 * What must hold: an announcement never causes an announcement (no loop); a hash is fetched from
 * one peer at a time and at most once per TX_REFETCH_AFTER_MS; every queue and message is bounded;
 * the work on the main thread per event is bounded by those limits.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import type { Logger } from '../log.js'
import type { TxPool } from '../txpool/index.js'
import { keccak256 } from '../util/keccak.js'
import type { P2pHost } from './host.js'
import {
  decodeHashes,
  encodeHashes,
  type ProtocolNames,
  TX_ANNOUNCE_MAX_HASHES,
  TX_FETCH_MAX_HASHES,
} from './protocol.js'

/** Default of `p2p.tx_announce_interval`: a few block times, so a stranded transaction waits seconds, not minutes. */
export const TX_ANNOUNCE_INTERVAL_MS = 5_000
/** How often the timer looks for peers whose announcement failed (and for a due round). */
export const TX_SYNC_TICK_MS = 1_000
/** A peer whose announcement failed (still starting: our protocol not yet served) is tried again after this, doubled per failure up to the announce interval. */
export const TX_ANNOUNCE_RETRY_MS = 1_000
/** Most hashes announced to one peer per round: the size of a full pool (global slots + queue) of the defaults, roughly. */
export const TX_ROUND_MAX_HASHES = 6_144
/** Hashes waiting to be fetched from one peer (geth's maxTxAnnounces). */
export const TX_FETCH_QUEUE_MAX = 4_096
/** A hash asked for (delivered or not, admitted or refused) is not asked for again before this. */
export const TX_REFETCH_AFTER_MS = 2_000
/** Hashes remembered with the time they were last asked for (the seen-cache of fetches). */
export const TX_FETCH_SEEN_MAX = 16_384
/** A fetch answer stops adding transactions past this many bytes (geth's softResponseLimit). */
export const TX_FETCH_RESPONSE_MAX_BYTES = 2 * 1024 * 1024

export interface TxSyncOptions {
  host: P2pHost
  names: ProtocolNames
  pool: TxPool
  /** Pending transactions are announced to every peer this often, ms. */
  announceIntervalMs: number
  /** Admits a transaction that came from a peer (resolves whether or not the pool took it). */
  submit(raw: Uint8Array, hashHex: string): Promise<void>
  log: Logger
}

/** What we are sending to and fetching from one connected peer. */
class PeerTxs {
  announceQueue: string[] = []
  announcing = false
  fetchQueue: string[] = []
  fetching = false
  /** When the whole pending list is due to this peer (0: not due). */
  fullDueMs = 0
  /** Announcements that failed in a row (the retry backs off). */
  failures = 0
}

export class TxSync {
  readonly #o: TxSyncOptions
  readonly #peers = new Map<string, PeerTxs>()
  /** Hashes in a fetch request now. */
  readonly #inFlight = new Set<string>()
  /** Hash → when it was last asked for; oldest first. */
  readonly #asked = new Map<string, number>()
  #timer: NodeJS.Timeout | undefined
  #nextRoundMs = 0
  #stopped = false

  constructor(opts: TxSyncOptions) {
    this.#o = opts
  }

  /** Serves announcements and fetches; announces to peers as they connect and every interval. */
  async start(): Promise<void> {
    const { host, names } = this.#o
    await host.serve(names.txHashes, async (request, peer) => {
      const hashes = decodeHashes(request, TX_ANNOUNCE_MAX_HASHES)
      if (hashes === undefined) throw new Error('malformed announcement')
      this.#announced(peer, hashes)
      return []
    })
    await host.serve(names.pooledTxs, async (request) => {
      const hashes = decodeHashes(request, TX_FETCH_MAX_HASHES)
      if (hashes === undefined) throw new Error('malformed transaction request')
      return this.#answer(hashes)
    })
    host.onPeerConnect((peer) => this.#due(peer, 0))
    host.onPeerDisconnect((peer) => this.#peers.delete(peer))
    // peers connected before we listened (the bootnode dial starts with the host)
    for (const peer of host.peers()) this.#due(peer, 0)
    this.#nextRoundMs = Date.now() + this.#o.announceIntervalMs
    this.#timer = setInterval(() => this.#tick(), TX_SYNC_TICK_MS)
    this.#timer.unref()
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer !== undefined) clearInterval(this.#timer)
  }

  /** Marks our whole pending list due to `peer` after `delayMs` (0: now). */
  #due(peer: string, delayMs: number): void {
    const state = this.#peer(peer)
    state.fullDueMs = Date.now() + delayMs
    if (delayMs === 0) this.#announceAll([peer])
  }

  #peer(peer: string): PeerTxs {
    let state = this.#peers.get(peer)
    if (state === undefined) {
      state = new PeerTxs()
      this.#peers.set(peer, state)
    }
    return state
  }

  #tick(): void {
    const now = Date.now()
    const connected = this.#o.host.peers()
    const live = new Set(connected)
    for (const peer of this.#peers.keys()) if (!live.has(peer)) this.#peers.delete(peer)
    if (now >= this.#nextRoundMs) {
      this.#nextRoundMs = now + this.#o.announceIntervalMs
      this.#announceAll(connected)
      return
    }
    const due = connected.filter((p) => {
      const at = this.#peers.get(p)?.fullDueMs ?? 0
      return at > 0 && at <= now
    })
    if (due.length > 0) this.#announceAll(due)
  }

  /** Our pending hashes, round-robin over senders by nonce: every sender's first before any second. */
  #pendingHashes(): string[] {
    const runs = [...this.#o.pool.content().pending.values()]
    const out: string[] = []
    for (let i = 0; out.length < TX_ROUND_MAX_HASHES; i++) {
      let any = false
      for (const run of runs) {
        const tx = run[i]
        if (tx === undefined) continue
        any = true
        out.push(tx.hashHex)
        if (out.length >= TX_ROUND_MAX_HASHES) break
      }
      if (!any) break
    }
    return out
  }

  /** Queues the whole pending list to each of `peers` (it replaces what was queued: it holds all of it). */
  #announceAll(peers: readonly string[]): void {
    if (this.#stopped || peers.length === 0) return
    const hashes = this.#pendingHashes()
    for (const peer of peers) {
      const state = this.#peer(peer)
      state.fullDueMs = 0
      state.announceQueue = hashes.slice()
      this.#flushAnnounce(peer, state)
    }
  }

  #flushAnnounce(peer: string, state: PeerTxs): void {
    if (state.announcing || state.announceQueue.length === 0 || this.#stopped) return
    const batch = state.announceQueue.splice(0, TX_ANNOUNCE_MAX_HASHES)
    state.announcing = true
    const { host, names, log } = this.#o
    host
      .request(peer, names.txHashes, encodeHashes(batch.map((h) => hexToBytes(h as `0x${string}`))), 0)
      .then(() => {
        state.announcing = false
        state.failures = 0
        this.#flushAnnounce(peer, state)
      })
      .catch((err: Error) => {
        state.announcing = false
        state.announceQueue = []
        const backoff = Math.min(TX_ANNOUNCE_RETRY_MS * 2 ** state.failures++, this.#o.announceIntervalMs)
        if (this.#peers.get(peer) === state) state.fullDueMs = Date.now() + backoff
        log.debug(`txsync: announcing ${batch.length} to ${peer}: ${err.message}`)
      })
  }

  /** A peer announced `hashes`: queue the ones we lack for fetching from it. */
  #announced(peer: string, hashes: readonly Uint8Array[]): void {
    const state = this.#peer(peer)
    const { pool } = this.#o
    const now = Date.now()
    for (const h of hashes) {
      if (state.fetchQueue.length >= TX_FETCH_QUEUE_MAX) break
      const hex = bytesToHex(h)
      if (pool.has(hex) || this.#inFlight.has(hex) || now - (this.#asked.get(hex) ?? -Infinity) < TX_REFETCH_AFTER_MS)
        continue
      state.fetchQueue.push(hex)
    }
    this.#flushFetch(peer, state)
  }

  #flushFetch(peer: string, state: PeerTxs): void {
    if (state.fetching || this.#stopped) return
    const { pool } = this.#o
    const now = Date.now()
    const batch: string[] = []
    while (batch.length < TX_FETCH_MAX_HASHES && state.fetchQueue.length > 0) {
      const taken = state.fetchQueue.splice(0, TX_FETCH_MAX_HASHES - batch.length)
      for (const hex of taken) {
        if (pool.has(hex) || this.#inFlight.has(hex) || now - (this.#asked.get(hex) ?? -Infinity) < TX_REFETCH_AFTER_MS)
          continue
        batch.push(hex)
        this.#inFlight.add(hex)
        this.#markAsked(hex, now)
      }
    }
    if (batch.length === 0) return
    state.fetching = true
    void this.#fetch(peer, batch).finally(() => {
      for (const hex of batch) this.#inFlight.delete(hex)
      state.fetching = false
      if (state.fetchQueue.length > 0 && this.#peers.get(peer) === state) this.#flushFetch(peer, state)
    })
  }

  #markAsked(hex: string, now: number): void {
    this.#asked.delete(hex)
    this.#asked.set(hex, now)
    if (this.#asked.size > TX_FETCH_SEEN_MAX) {
      const oldest = this.#asked.keys().next().value
      if (oldest !== undefined) this.#asked.delete(oldest)
    }
  }

  /** Asks `peer` for `batch` and submits what comes back, in order; logs and returns on any failure. */
  async #fetch(peer: string, batch: readonly string[]): Promise<void> {
    const { host, names, log, submit } = this.#o
    let frames: Uint8Array[]
    try {
      const request = encodeHashes(batch.map((h) => hexToBytes(h as `0x${string}`)))
      frames = await host.request(peer, names.pooledTxs, request, batch.length)
    } catch (err) {
      log.debug(`txsync: fetching ${batch.length} from ${peer}: ${(err as Error).message}`)
      return
    }
    const asked = new Set(batch)
    let admitted = 0
    for (const raw of frames) {
      const hex = bytesToHex(keccak256(raw))
      if (!asked.delete(hex)) {
        log.debug(`txsync: ${peer} sent a transaction not asked for (${hex}); rest of its answer ignored`)
        return
      }
      await submit(raw, hex)
      if (this.#o.pool.has(hex)) admitted++
    }
    if (admitted > 0) log.debug(`txsync: ${admitted} of ${batch.length} fetched from ${peer} admitted`)
  }

  /** The raw transactions among `hashes` our pool holds, in order, up to TX_FETCH_RESPONSE_MAX_BYTES. */
  #answer(hashes: readonly Uint8Array[]): Uint8Array[] {
    const frames: Uint8Array[] = []
    let bytes = 0
    for (const h of hashes) {
      if (bytes >= TX_FETCH_RESPONSE_MAX_BYTES) break
      const ptx = this.#o.pool.get(bytesToHex(h))
      if (ptx === undefined) continue
      const raw = ptx.tx.serialize()
      frames.push(raw)
      bytes += raw.length
    }
    return frames
  }
}

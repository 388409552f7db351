/**
 * Block sync: how a node that is behind (new, restarted, a full node, or a validator that missed
 * a decision) gets the decided blocks from its peers.
 *
 *   peer heads ◀── status request on connect and every SYNC_STATUS_INTERVAL_MS
 *              ◀── block announcements (gossip)
 *        │ some peer is ahead of our head
 *        ▼
 *   loop: keep up to SYNC_MAX_RANGES_IN_FLIGHT range requests out ahead of the import
 *         (RangeWindow: contiguous ranges of ≤ SYNC_MAX_BLOCKS_PER_REQUEST from head+1, each to
 *         the trusted peer ahead with the fewest out, ≤ SYNC_RANGES_PER_PEER per peer)
 *         ─▶ the range holding head+1 ─▶ importSealed each block in order (committed seals
 *            checked against the validator set, executed, roots compared, committed
 *            atomically; only a range's last block fsynced) ─▶ until no peer is ahead
 *   a failed, empty or short answer, a rejected block or a head moved by consensus drops the
 *   window: the next turn asks again from head+1 (nothing is imported out of order or twice)
 *   a peer that serves an invalid block is not asked again until it announces a newer head
 *
 * It also serves the same two requests to others. While the loop runs, `status()` is the
 * eth_syncing object: startingBlock is the head when this catch-up began, highestBlock the
 * highest head a peer reported.
 */
import type { ChainStore } from '../chain/store.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import type { Logger } from '../log.js'
import type { P2pHost } from './host.js'
import {
  decodeBlockRef,
  decodeRangeRequest,
  encodeBlockRef,
  encodeRangeRequest,
  type ProtocolNames,
  SYNC_MAX_BLOCKS_PER_REQUEST,
} from './protocol.js'

/** Peers' heads are asked for this often (announcements normally keep them current between polls). */
export const SYNC_STATUS_INTERVAL_MS = 3_000
/** Range requests out at once while catching up: the next ranges arrive while one is imported (≤ 8 × 64 blocks buffered). */
export const SYNC_MAX_RANGES_IN_FLIGHT = 8
/** Range requests out to one peer at once (inside the peer's P2P_MAX_INBOUND_STREAMS): several peers share the window. */
export const SYNC_RANGES_PER_PEER = 4

/** eth_syncing's object while catching up. */
export interface SyncStatus {
  startingBlock: bigint
  currentBlock: bigint
  highestBlock: bigint
}

export interface BlockSyncOptions {
  host: P2pHost
  names: ProtocolNames
  store: ChainStore
  /**
   * Verifies and commits a decided block (RLP [header, txs, uncles, withdrawals?]). `durable`
   * false: the commit need not be fsynced (a later durable one of the same range covers it).
   */
  importBlock(bytes: Uint8Array, durable: boolean): Promise<'imported' | 'known'>
  log: Logger
}

export class BlockSync {
  readonly #o: BlockSyncOptions
  readonly #heads = new Map<string, bigint>()
  /** Peers that served a bad block, with the head they had then (ignored until they report a higher one). */
  readonly #distrusted = new Map<string, bigint>()
  #running = false
  #again = false
  #startingBlock: bigint | undefined
  #timer: NodeJS.Timeout | undefined

  constructor(opts: BlockSyncOptions) {
    this.#o = opts
  }

  /** Serves status and block requests, and starts watching peers' heads. */
  async start(): Promise<void> {
    const { host, names, store } = this.#o
    await host.serve(names.status, async () => [
      encodeBlockRef({ number: store.head.header.number, hash: store.head.hash }),
    ])
    await host.serve(names.blocks, async (request) => {
      const range = decodeRangeRequest(request)
      if (range === undefined) throw new Error('malformed range request')
      const frames: Uint8Array[] = []
      for (let n = range.from; n < range.from + BigInt(range.count); n++) {
        const block = store.getBlockByNumber(n)
        if (block === undefined) break
        frames.push(encodeWireBlock(block))
      }
      return frames
    })
    host.onPeerConnect((peer) => void this.#askStatus(peer))
    this.#timer = setInterval(() => {
      const peers = host.peers()
      const connected = new Set(peers)
      for (const known of [...this.#heads.keys(), ...this.#distrusted.keys()]) {
        if (!connected.has(known)) {
          this.#heads.delete(known)
          this.#distrusted.delete(known)
        }
      }
      for (const peer of peers) void this.#askStatus(peer)
    }, SYNC_STATUS_INTERVAL_MS)
    this.#timer.unref()
  }

  stop(): void {
    if (this.#timer !== undefined) clearInterval(this.#timer)
  }

  /** A peer has `number` (announcement or status): catch up if that is ahead of us. */
  noteHead(peer: string, number: bigint): void {
    if (number > (this.#heads.get(peer) ?? -1n)) this.#heads.set(peer, number)
    if (number > this.#o.store.head.header.number) this.#poke()
  }

  /** The eth_syncing object while catching up, else undefined. */
  status(): SyncStatus | undefined {
    if (this.#startingBlock === undefined) return undefined
    const current = this.#o.store.head.header.number
    return { startingBlock: this.#startingBlock, currentBlock: current, highestBlock: this.#highest(current) }
  }

  #highest(current: bigint): bigint {
    let highest = current
    for (const h of this.#heads.values()) if (h > highest) highest = h
    return highest
  }

  async #askStatus(peer: string): Promise<void> {
    try {
      const [frame] = await this.#o.host.request(peer, this.#o.names.status, new Uint8Array(0), 1)
      const ref = frame === undefined ? undefined : decodeBlockRef(frame)
      if (ref !== undefined) this.noteHead(peer, ref.number)
    } catch (err) {
      this.#o.log.debug(`sync: status of ${peer}: ${(err as Error).message}`)
    }
  }

  #poke(): void {
    if (this.#running) {
      this.#again = true
      return
    }
    this.#running = true
    void this.#loop().finally(() => {
      this.#running = false
      this.#startingBlock = undefined
      if (this.#again) {
        this.#again = false
        this.#poke()
      }
    })
  }

  /** Connected peers we still trust whose head is above `head`, with their heads. */
  #aheadPeers(head: bigint): Map<string, bigint> {
    const connected = new Set(this.#o.host.peers())
    const ahead = new Map<string, bigint>()
    for (const [peer, h] of this.#heads) {
      if (h <= head || !connected.has(peer)) continue
      const bad = this.#distrusted.get(peer)
      if (bad !== undefined && h <= bad) continue
      ahead.set(peer, h)
    }
    return ahead
  }

  /**
   * The catch-up loop: ranges requested ahead of the import (RangeWindow), imported in order.
   * Any surprise — a failed or empty response, a short one, a bad block, the head moved by
   * consensus — drops the window and the next turn requests again from head + 1.
   */
  async #loop(): Promise<void> {
    const { store, log } = this.#o
    const window = new RangeWindow()
    for (;;) {
      const head = store.head.header.number
      const ahead = this.#aheadPeers(head)
      if (ahead.size === 0) return
      this.#startingBlock ??= head
      window.keepFrom(head + 1n)
      this.#fill(window, ahead)
      const range = window.first()
      if (range === undefined) return
      const result = await range.result
      window.remove(range)
      if (store.head.header.number !== head) continue // consensus committed meanwhile: realign
      if ('error' in result) {
        log.debug(`sync: blocks from ${range.peer}: ${result.error.message}`)
        this.#heads.delete(range.peer)
        window.clear()
        continue
      }
      const frames = result.frames
      if (frames.length === 0) {
        this.#heads.set(range.peer, head) // it no longer has what it announced (or lied)
        window.clear()
        continue
      }
      if (frames.length < range.count) window.clear() // the rest is asked again from the new head
      for (let i = 0; i < frames.length; i++) {
        try {
          await this.#o.importBlock(frames[i] as Uint8Array, i === frames.length - 1)
        } catch (err) {
          log.warn(`sync: block from ${range.peer} rejected: ${(err as Error).message}`)
          this.#distrusted.set(range.peer, ahead.get(range.peer) ?? head)
          window.clear()
          break
        }
      }
    }
  }

  /**
   * Requests ranges after the window's end until SYNC_MAX_RANGES_IN_FLIGHT are out, each from
   * the peer with the fewest in flight (at most SYNC_RANGES_PER_PEER) among those that have it.
   */
  #fill(window: RangeWindow, ahead: Map<string, bigint>): void {
    const { host, names, log } = this.#o
    while (window.size < SYNC_MAX_RANGES_IN_FLIGHT) {
      const from = window.next
      let peer: string | undefined
      let peerHead = 0n
      for (const [p, h] of ahead) {
        if (h < from || window.inFlight(p) >= SYNC_RANGES_PER_PEER) continue
        if (
          peer === undefined ||
          window.inFlight(p) < window.inFlight(peer) ||
          (window.inFlight(p) === window.inFlight(peer) && h > peerHead)
        ) {
          peer = p
          peerHead = h
        }
      }
      if (peer === undefined) return
      const left = peerHead - from + 1n
      const count = Number(left < BigInt(SYNC_MAX_BLOCKS_PER_REQUEST) ? left : BigInt(SYNC_MAX_BLOCKS_PER_REQUEST))
      if (from === this.#o.store.head.header.number + 1n && peerHead - from > 0n)
        log.info(`sync: fetching blocks ${from}… of ${this.#highest(from - 1n)} from ${ahead.size} peer(s)`)
      const result = host.request(peer, names.blocks, encodeRangeRequest({ from, count }), count).then(
        (frames) => ({ frames }),
        (error: Error) => ({ error }),
      )
      window.add({ from, count, peer, result })
    }
  }
}

/** A range request out to a peer; its result never rejects. */
export interface RangeFetch {
  from: bigint
  count: number
  peer: string
  result: Promise<{ frames: Uint8Array[] } | { error: Error }>
}

/**
 * The ranges requested ahead of the import, contiguous from the first: `next` is the block after
 * the last one asked for. Dropped ranges still complete; nobody reads their frames.
 */
export class RangeWindow {
  readonly #ranges: RangeFetch[] = []
  #next = 0n

  get size(): number {
    return this.#ranges.length
  }

  /** The first block not yet asked for. */
  get next(): bigint {
    return this.#next
  }

  first(): RangeFetch | undefined {
    return this.#ranges[0]
  }

  inFlight(peer: string): number {
    let n = 0
    for (const r of this.#ranges) if (r.peer === peer) n++
    return n
  }

  add(r: RangeFetch): void {
    this.#ranges.push(r)
    this.#next = r.from + BigInt(r.count)
  }

  remove(r: RangeFetch): void {
    const i = this.#ranges.indexOf(r)
    if (i >= 0) this.#ranges.splice(i, 1)
  }

  clear(): void {
    this.#ranges.length = 0
  }

  /**
   * Aligns the window with the import: ranges wholly below `from` go; when the first left does not
   * hold `from` (or none is left) the window restarts at `from`.
   */
  keepFrom(from: bigint): void {
    while (
      this.#ranges.length > 0 &&
      (this.#ranges[0] as RangeFetch).from + BigInt((this.#ranges[0] as RangeFetch).count) <= from
    )
      this.#ranges.shift()
    const first = this.#ranges[0]
    if (first === undefined || first.from > from) {
      this.#ranges.length = 0
      this.#next = from
    }
  }
}

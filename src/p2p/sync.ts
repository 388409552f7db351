/**
 * Block sync: how a node that is behind (new, restarted, a full node, or a validator that missed
 * a decision) gets the decided blocks from its peers.
 *
 *   peer heads ◀── status request on connect and every SYNC_STATUS_INTERVAL_MS
 *              ◀── block announcements (gossip)
 *        │ some peer is ahead of our head
 *        ▼
 *   loop: ask the highest peer for blocks head+1 … (≤ SYNC_MAX_BLOCKS_PER_REQUEST per request)
 *         ─▶ importSealed each (committed seals checked against the validator set, executed,
 *            roots compared, committed atomically) ─▶ until no peer is ahead
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
  /** Verifies and commits a decided block (RLP [header, txs, uncles, withdrawals?]). */
  importBlock(bytes: Uint8Array): Promise<'imported' | 'known'>
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

  /** The connected peer with the highest head above ours that we still trust, if any. */
  #bestPeer(head: bigint): [string, bigint] | undefined {
    const connected = new Set(this.#o.host.peers())
    let best: [string, bigint] | undefined
    for (const [peer, h] of this.#heads) {
      if (h <= head || !connected.has(peer)) continue
      const bad = this.#distrusted.get(peer)
      if (bad !== undefined && h <= bad) continue
      if (best === undefined || h > best[1]) best = [peer, h]
    }
    return best
  }

  async #loop(): Promise<void> {
    const { store, host, names, log } = this.#o
    for (;;) {
      const head = store.head.header.number
      const best = this.#bestPeer(head)
      if (best === undefined) return
      const [peer, peerHead] = best
      this.#startingBlock ??= head
      const count = Number(
        peerHead - head < BigInt(SYNC_MAX_BLOCKS_PER_REQUEST) ? peerHead - head : BigInt(SYNC_MAX_BLOCKS_PER_REQUEST),
      )
      if (peerHead - head > 1n)
        log.info(`sync: fetching blocks ${head + 1n}…${head + BigInt(count)} of ${peerHead} from ${peer}`)
      let frames: Uint8Array[]
      try {
        frames = await host.request(peer, names.blocks, encodeRangeRequest({ from: head + 1n, count }), count)
      } catch (err) {
        log.debug(`sync: blocks from ${peer}: ${(err as Error).message}`)
        this.#heads.delete(peer)
        continue
      }
      if (frames.length === 0) {
        this.#heads.set(peer, head) // it no longer has what it announced (or lied)
        continue
      }
      for (const frame of frames) {
        try {
          await this.#o.importBlock(frame)
        } catch (err) {
          log.warn(`sync: block from ${peer} rejected: ${(err as Error).message}`)
          this.#distrusted.set(peer, peerHead)
          break
        }
      }
    }
  }
}

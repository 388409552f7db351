/**
 * BlockSync's catch-up loop against fake peers (in-memory chains of numbered blocks, no libp2p):
 * ranges are requested ahead of the import and spread over every peer that is ahead, blocks are
 * imported once each and in order, only a range's last block is committed durably, a short
 * answer or a head moved by consensus leaves no gap, and a peer that served a bad block is not
 * asked again. The real path (libp2p, sealed blocks executed) is src/consensus/blockSync.test.ts.
 */
import { afterEach, describe, expect, it } from 'vitest'

import type { ChainStore } from '../chain/store.js'
import { createLogger } from '../log.js'
import type { P2pHost } from './host.js'
import { decodeRangeRequest, protocolNames, SYNC_MAX_BLOCKS_PER_REQUEST } from './protocol.js'
import { BlockSync, RangeWindow, SYNC_MAX_RANGES_IN_FLIGHT, type SyncStatus } from './sync.js'

const log = createLogger('silent')
const BAD = 0xff

/** A block frame: its number as 8 bytes, then BAD when the peer serves a bad copy of it. */
function frame(n: bigint, bad: boolean): Uint8Array {
  const b = new Uint8Array(bad ? 9 : 8)
  new DataView(b.buffer).setBigUint64(0, n)
  if (bad) b[8] = BAD
  return b
}

interface FakePeer {
  head: bigint
  /** Serves a bad copy of this block. */
  badAt?: bigint
  /** Most blocks it answers per request (a server with a lower limit). */
  maxPerRequest?: number
}

class FakeChain {
  head = 0n
  readonly imported: bigint[] = []
  readonly durable: bigint[] = []
  readonly requests: { peer: string; from: bigint; count: number; afterRejects: number }[] = []
  readonly seen: (SyncStatus | undefined)[] = []
  rejects = 0
  /** After importing this block, 7 more are committed by "consensus" (the head moves without sync). */
  consensusAfter: bigint | undefined
  inFlight = 0
  maxInFlight = 0
  sync: BlockSync | undefined

  constructor(readonly peers: Map<string, FakePeer>) {}

  readonly store = {
    get head() {
      return chain.current()
    },
  } as unknown as ChainStore

  current() {
    return { header: { number: this.head }, hash: new Uint8Array(32) }
  }

  readonly host = {
    serve: async () => {},
    onPeerConnect: () => {},
    peers: () => [...this.peers.keys()],
    request: async (peer: string, _protocol: string, req: Uint8Array, max: number) => {
      const range = decodeRangeRequest(req)
      if (range === undefined) throw new Error('bad request')
      const p = this.peers.get(peer)
      if (p === undefined) throw new Error('not connected')
      this.requests.push({ peer, from: range.from, count: range.count, afterRejects: this.rejects })
      this.inFlight++
      this.maxInFlight = Math.max(this.maxInFlight, this.inFlight)
      await new Promise((r) => setTimeout(r, 2))
      this.inFlight--
      const frames: Uint8Array[] = []
      const count = Math.min(range.count, max, p.maxPerRequest ?? range.count)
      for (let n = range.from; n < range.from + BigInt(count) && n <= p.head; n++) frames.push(frame(n, n === p.badAt))
      return frames
    },
  } as unknown as P2pHost

  importBlock = async (bytes: Uint8Array, durable: boolean): Promise<'imported' | 'known'> => {
    this.seen.push(this.sync?.status())
    const n = new DataView(bytes.buffer, bytes.byteOffset).getBigUint64(0)
    if (n <= this.head) return 'known'
    if (n !== this.head + 1n) throw new Error(`block ${n} is not the next block (head ${this.head})`)
    if (bytes[8] === BAD) {
      this.rejects++
      throw new Error(`block ${n}: committed seals short of a quorum`)
    }
    await new Promise((r) => setImmediate(r))
    this.head = n
    this.imported.push(n)
    if (durable) this.durable.push(n)
    if (n === this.consensusAfter) this.head += 7n
    return 'imported'
  }
}

let chain: FakeChain
const syncs: BlockSync[] = []
afterEach(() => {
  for (const s of syncs.splice(0)) s.stop()
})

async function startSync(peers: Record<string, FakePeer>): Promise<BlockSync> {
  chain = new FakeChain(new Map(Object.entries(peers)))
  const sync = new BlockSync({
    host: chain.host,
    names: protocolNames(new Uint8Array(32)),
    store: chain.store,
    importBlock: chain.importBlock,
    log,
  })
  chain.sync = sync
  syncs.push(sync)
  await sync.start()
  return sync
}

async function until(cond: () => boolean, ms = 10_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 5))
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => BigInt(from + i))

describe('BlockSync catch-up', () => {
  it('requests ranges ahead of the import from every peer ahead, imports each block once in order', async () => {
    const sync = await startSync({ a: { head: 1000n }, b: { head: 1000n } })
    sync.noteHead('a', 1000n)
    sync.noteHead('b', 1000n)
    await until(() => chain.head === 1000n && sync.status() === undefined)
    expect(chain.imported).toEqual(range(1, 1000))
    // pipelined: while one range is imported the next ones are already asked for, from both peers
    expect(chain.maxInFlight).toBeGreaterThan(1)
    expect(chain.maxInFlight).toBeLessThanOrEqual(SYNC_MAX_RANGES_IN_FLIGHT)
    expect(new Set(chain.requests.map((r) => r.peer))).toEqual(new Set(['a', 'b']))
    // no block asked for twice
    const asked = chain.requests.flatMap((r) => range(Number(r.from), Number(r.from) + r.count - 1))
    expect(asked).toEqual(range(1, 1000))
    // eth_syncing while catching up
    expect(chain.seen[0]).toEqual({ startingBlock: 0n, currentBlock: 0n, highestBlock: 1000n })
    expect(chain.seen[999]).toEqual({ startingBlock: 0n, currentBlock: 999n, highestBlock: 1000n })
  })

  it('commits only the last block of each range durably', async () => {
    const sync = await startSync({ a: { head: 200n } })
    sync.noteHead('a', 200n)
    await until(() => chain.head === 200n)
    const per = SYNC_MAX_BLOCKS_PER_REQUEST
    expect(chain.durable).toEqual([...range(1, Math.floor(200 / per)).map((i) => i * BigInt(per)), 200n])
  })

  it('leaves no gap when a peer answers fewer blocks than asked or consensus moves the head meanwhile', async () => {
    const sync = await startSync({ a: { head: 600n, maxPerRequest: 10 }, b: { head: 600n } })
    sync.noteHead('a', 600n)
    sync.noteHead('b', 600n)
    chain.consensusAfter = 300n // then 7 blocks are committed by consensus, not by sync
    await until(() => chain.head === 600n && sync.status() === undefined)
    const all = [...chain.imported]
    expect(all).toEqual([...range(1, 300), ...range(308, 600)])
  })

  it('does not ask a peer that served a bad block again until it announces a newer head; others serve the rest', async () => {
    const sync = await startSync({ bad: { head: 500n, badAt: 70n }, good: { head: 500n } })
    sync.noteHead('bad', 500n)
    await until(() => chain.rejects === 1 && sync.status() === undefined)
    expect(chain.head).toBe(69n)
    sync.noteHead('good', 500n)
    await until(() => chain.head === 500n && sync.status() === undefined)
    expect(chain.requests.filter((r) => r.peer === 'bad' && r.afterRejects > 0)).toEqual([])
    expect(chain.rejects).toBe(1)
    // a newer head makes it a candidate again
    chain.peers.set('bad', { head: 600n })
    sync.noteHead('bad', 600n)
    await until(() => chain.head === 600n)
    expect(chain.requests.some((r) => r.peer === 'bad' && r.afterRejects > 0)).toBe(true)
  })
})

describe('RangeWindow', () => {
  const fetch = (from: bigint, count: number, peer = 'p') => ({ from, count, peer, result: new Promise<never>(() => {}) })

  it('keeps ranges contiguous from the first and counts them per peer', () => {
    const w = new RangeWindow()
    w.keepFrom(1n)
    expect(w.next).toBe(1n)
    w.add(fetch(1n, 64, 'a'))
    w.add(fetch(65n, 64, 'b'))
    w.add(fetch(129n, 64, 'a'))
    expect([w.size, w.next, w.inFlight('a'), w.inFlight('b')]).toEqual([3, 193n, 2, 1])
  })

  it('drops ranges below the import and restarts where the first left does not hold it', () => {
    const w = new RangeWindow()
    w.keepFrom(1n)
    w.add(fetch(1n, 64))
    w.add(fetch(65n, 64))
    w.keepFrom(65n)
    expect([w.size, w.first()?.from, w.next]).toEqual([1, 65n, 129n])
    w.keepFrom(100n) // inside the first: kept (its lower blocks are 'known')
    expect([w.size, w.first()?.from]).toEqual([1, 65n])
    w.keepFrom(300n) // past everything asked: start again there
    expect([w.size, w.next]).toEqual([0, 300n])
    w.add(fetch(300n, 64))
    w.remove(w.first() as ReturnType<typeof fetch>)
    w.keepFrom(200n) // a gap before the first: start again
    expect([w.size, w.next]).toEqual([0, 200n])
  })
})

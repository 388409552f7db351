/**
 * libp2p between in-process hosts on loopback: gossip and request/response, then block sync — a
 * new node catches up with a chain of decided blocks (seals checked, blocks executed), reports
 * the eth_syncing object while it does, and refuses a peer whose blocks lack a quorum of seals.
 */
import { afterAll, describe, expect, it } from 'vitest'

import { bytesToHex } from '@ethereumjs/util'
import { attachSeals, decodeExtra, signCommittedSeal } from './ibft/index.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { decideNext, openIbftTestNode, removeIbftTestNodes, validatorKey } from '../../test/helpers/ibftChain.js'
import { createLogger } from '../log.js'
import { P2pHost } from '../p2p/host.js'
import { newNodeKeySeed } from '../p2p/identity.js'
import { protocolNames } from '../p2p/protocol.js'
import { BlockSync, type SyncStatus } from '../p2p/sync.js'
import { join } from 'node:path'
import { ChainStore } from '../chain/store.js'
import { openDatabase } from '../db/db.js'
import { IbftBlockImporter } from './ibftBlockImporter.js'

const log = createLogger('silent')
const hosts: P2pHost[] = []
afterAll(async () => {
  await Promise.all(hosts.map((h) => h.stop()))
  removeIbftTestNodes()
})

async function host(bootnodes: string[] = []): Promise<P2pHost> {
  const { generateKeyPairFromSeed } = await import('@libp2p/crypto/keys')
  const h = await P2pHost.create({
    port: 0,
    bootnodes,
    privateKey: await generateKeyPairFromSeed('Ed25519', newNodeKeySeed()),
    contentTopics: ['/t/content'],
    log,
  })
  hosts.push(h)
  return h
}

const loopback = (h: P2pHost) => h.addresses.find((a) => a.startsWith('/ip4/127.0.0.1/')) as string
const until = async (cond: () => boolean, ms = 10_000) => {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('P2pHost', () => {
  it('dials its bootnode, gossips, and answers length-prefixed requests', async () => {
    const a = await host()
    const b = await host([loopback(a)])
    await until(() => a.peers().length === 1 && b.peers().length === 1)
    expect(a.listening()).toBe(true)
    const got: string[] = []
    b.subscribe('/t/content', (data, from) => got.push(`${new TextDecoder().decode(data)} from ${from === a.peerId}`))
    a.subscribe('/t/content', () => {})
    await a.serve('/t/echo/1', async (req) => [req, Uint8Array.of(1, 2, 3)])
    // a content-addressed message is published once: until b's subscription is known, retry with new content
    let n = 0
    await until(() => {
      a.publish('/t/content', new TextEncoder().encode(`hello ${n++}`))
      return got.length > 0
    })
    expect(got[0]).toMatch(/^hello \d+ from true$/)
    const frames = await b.request(a.peerId, '/t/echo/1', Uint8Array.of(9), 4)
    expect(frames.map((f) => [...f])).toEqual([[9], [1, 2, 3]])
    await expect(b.request(a.peerId, '/t/echo/1', Uint8Array.of(9), 1)).rejects.toThrow(/more than 1 frames/)
  })
})

describe('BlockSync', () => {
  it('a new node fetches decided blocks, verifies and imports them, reporting eth_syncing meanwhile', async () => {
    const source = await openIbftTestNode()
    for (let i = 0; i < 5; i++) await decideNext(source)
    const fresh = await openIbftTestNode()
    const names = protocolNames(source.store.genesisHash)
    const a = await host()
    const b = await host([loopback(a)])
    const seen: (SyncStatus | undefined)[] = []
    const serving = new BlockSync({
      host: a,
      names,
      store: source.store,
      importBlock: source.importer.importSealed.bind(source.importer),
      log,
    })
    let syncing: BlockSync | undefined
    const importBlock = async (bytes: Uint8Array) => {
      seen.push(syncing?.status())
      return fresh.importer.importSealed(bytes)
    }
    syncing = new BlockSync({ host: b, names, store: fresh.store, importBlock, log })
    await serving.start()
    await syncing.start()
    await until(() => fresh.store.head.header.number === 5n)
    expect(bytesToHex(fresh.store.head.hash)).toBe(bytesToHex(source.store.head.hash))
    expect(fresh.committed.map((c) => c.source)).toEqual(['sync', 'sync', 'sync', 'sync', 'sync'])
    expect(seen[0]).toEqual({ startingBlock: 0n, currentBlock: 0n, highestBlock: 5n })
    expect(seen[4]).toEqual({ startingBlock: 0n, currentBlock: 4n, highestBlock: 5n })
    await until(() => syncing?.status() === undefined)
    serving.stop()
    syncing.stop()
  })

  it('a node restarted mid-sync (blocks committed without fsync but the last of each range) resumes from its head, no block lost or repeated', async () => {
    const source = await openIbftTestNode()
    for (let i = 0; i < 150; i++) await decideNext(source)
    const fresh = await openIbftTestNode()
    const names = protocolNames(source.store.genesisHash)
    const serving = new BlockSync({
      host: await host(),
      names,
      store: source.store,
      importBlock: (bytes) => source.importer.importSealed(bytes),
      log,
    })
    await serving.start()
    const server = loopback(hosts.at(-1) as P2pHost)
    const first = await host([server])
    const durable: boolean[] = []
    const syncing = new BlockSync({
      host: first,
      names,
      store: fresh.store,
      importBlock: async (bytes, d) => {
        durable.push(d)
        await new Promise((r) => setTimeout(r, 5)) // slow enough to be stopped mid-way
        return fresh.importer.importSealed(bytes, { durable: d })
      },
      log,
    })
    await syncing.start()
    await until(() => fresh.store.head.header.number >= 40n)
    await first.stop() // the process goes away mid-sync
    await until(() => syncing.status() === undefined)
    syncing.stop()
    expect(durable.filter((d) => d).length).toBeLessThan(durable.length)
    const reached = fresh.store.head.header.number
    expect(reached).toBeGreaterThanOrEqual(40n)
    expect(reached).toBeLessThan(150n)
    await fresh.db.close()

    // restart: the same datadir opened again, a new host and sync
    const db = await openDatabase(join(fresh.dir, 'chaindata'))
    const store = new ChainStore(db, fresh.common)
    expect(store.head.header.number).toBe(reached)
    const sources: string[] = []
    const importer = new IbftBlockImporter({
      store,
      common: fresh.common,
      baseFeeRecipient: undefined,
      syncWrites: true,
      onCommitted: (c) => sources.push(c.source),
    })
    const again = new BlockSync({
      host: await host([server]),
      names,
      store,
      importBlock: (bytes, d) => importer.importSealed(bytes, { durable: d }),
      log,
    })
    await again.start()
    await until(() => store.head.header.number === 150n)
    for (let n = 1n; n <= 150n; n++)
      expect(bytesToHex(store.getBlockByNumber(n)?.hash ?? new Uint8Array(0))).toBe(
        bytesToHex(source.store.getBlockByNumber(n)?.hash ?? new Uint8Array(1)),
      )
    expect(sources.length).toBe(Number(150n - reached))
    again.stop()
    serving.stop()
    await db.close()
  }, 60_000)

  it('does not import a block whose committed seals are short of a quorum', async () => {
    const source = await openIbftTestNode()
    const { block } = await decideNext(source)
    const weak = attachSeals(block.headerRaw, {
      proposerSeal: decodeExtra(block.header.extraData).proposerSeal,
      committedSeals: [0, 1].map((i) => signCommittedSeal(block.hash, 0n, validatorKey(i))),
      round: 0n,
    })
    const fresh = await openIbftTestNode()
    await expect(fresh.importer.importSealed(encodeWireBlock({ ...block, headerRaw: weak }))).rejects.toThrow(
      /insufficient-committed-seals/,
    )
    expect(fresh.store.head.header.number).toBe(0n)
  })
})

/**
 * Transaction gossip between two in-process ChainNetworks on loopback, announcements off: the
 * pool's new pending transactions of one node reach the other's pool, several of them in one
 * gossip message (src/p2p/txGossip.ts); a single-transaction message of an older node is taken.
 */
import { afterAll, describe, expect, it } from 'vitest'

import { bytesToHex } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { openIbftTestNode, removeIbftTestNodes } from '../../test/helpers/ibftChain.js'
import { createLogger } from '../log.js'
import { P2pHost } from '../p2p/host.js'
import { newNodeKeySeed } from '../p2p/identity.js'
import { ChainNetwork } from '../p2p/network.js'
import { decodeTxBatch } from '../p2p/txGossip.js'
import type { NewTxListener, PoolTx, TxPool } from '../txpool/index.js'

const log = createLogger('silent')
/** Announcements (txSync.ts) never run during the test: only gossip can carry a transaction. */
const NO_ANNOUNCE_MS = 3_600_000
const stops: (() => Promise<void>)[] = []
afterAll(async () => {
  await Promise.all(stops.map((s) => s()))
  removeIbftTestNodes()
})

/** A pool that records what is submitted and lets the test announce new pending transactions. */
function fakePool() {
  const listeners: NewTxListener[] = []
  const submitted: Uint8Array[] = []
  const pool = {
    size: 0,
    has: () => false,
    get: () => undefined,
    submit: async (raw: Uint8Array) => {
      submitted.push(raw)
      return {} as PoolTx
    },
    nextNonce: (_s: string, n: bigint) => n,
    candidates: () => [],
    onBlock: async () => {},
    onNewTx: (l: NewTxListener) => listeners.push(l),
    stats: () => ({ pending: 0, queued: 0 }),
    content: () => ({ pending: new Map(), queued: new Map() }),
    contentFrom: () => ({ pending: [], queued: [] }),
  } satisfies TxPool
  const pending = (raw: Uint8Array) => {
    const ptx = { hashHex: bytesToHex(keccak256(raw)), tx: { serialize: () => raw } } as unknown as PoolTx
    for (const l of listeners) l(ptx)
  }
  return { pool, submitted, pending }
}

async function network(bootnodes: string[]) {
  const node = await openIbftTestNode()
  const { pool, submitted, pending } = fakePool()
  const net = await ChainNetwork.start({
    config: { port: 0, bootnodes, txAnnounceIntervalMs: NO_ANNOUNCE_MS },
    datadir: node.dir,
    store: node.store,
    pool,
    importBlock: async () => 'known',
    log,
  })
  stops.push(() => net.stop())
  return { net, submitted, pending }
}

const hex = (b: Uint8Array) => bytesToHex(b)
const loopback = (addresses: string[]) => addresses.find((a) => a.startsWith('/ip4/127.0.0.1/')) as string
const until = async (cond: () => boolean, ms = 15_000) => {
  const end = Date.now() + ms
  while (!cond()) {
    if (Date.now() > end) throw new Error('timed out')
    await new Promise((r) => setTimeout(r, 20))
  }
}

describe('transaction gossip', () => {
  it('carries a window of new pending transactions to a peer in one message', async () => {
    const a = await network([])
    const b = await network([loopback(a.net.host.addresses)])
    // a third listener counts the batch messages on the wire
    const { generateKeyPairFromSeed } = await import('@libp2p/crypto/keys')
    const spy = await P2pHost.create({
      port: 0,
      bootnodes: [loopback(a.net.host.addresses)],
      privateKey: await generateKeyPairFromSeed('Ed25519', newNodeKeySeed()),
      contentTopics: [a.net.names.txBatchTopic],
      log,
    })
    stops.push(() => spy.stop())
    const batches: Uint8Array[][] = []
    spy.subscribe(a.net.names.txBatchTopic, (data) => batches.push(decodeTxBatch(data) ?? []))
    await until(() => a.net.host.subscriberCount(a.net.names.txBatchTopic) >= 2)

    const raws = [1, 2, 3].map((i) => Uint8Array.of(2, 0xc0 + i, i))
    for (const raw of raws) a.pending(raw)
    await until(() => b.submitted.length === 3)
    expect(b.submitted.map(hex)).toEqual(raws.map(hex))
    await until(() => batches.length > 0)
    expect(batches.map((b) => b.map(hex))).toEqual([raws.map(hex)])

    // what b took from gossip is not sent back
    for (const raw of raws) b.pending(raw)
    await new Promise((r) => setTimeout(r, 200))
    expect(a.submitted).toEqual([])

    // a node before batching publishes one transaction per message on the old topic: still taken
    const single = Uint8Array.of(2, 0xc9, 9)
    await until(() => spy.subscriberCount(a.net.names.txTopic) >= 1)
    spy.publish(a.net.names.txTopic, single)
    await until(() => a.submitted.length === 1)
    expect(a.submitted.map(hex)).toEqual([hex(single)])
  })
})

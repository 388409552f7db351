/**
 * Transactions a full node accepted while every validator was down reach a block once the
 * validators are back (issue 18, item 1). Real processes on loopback: `ibex genesis --validators 4
 * --full-nodes 1`, validators kill -9'd, transfers (several nonces per sender) sent to the full
 * node, validators restarted — every transfer must have a receipt within DELIVERY_MAX_BLOCKS
 * blocks of the restart. The second case also kill -9s the full node while the validators are down,
 * so its transactions come back from its pool journal rather than from the RPC.
 *
 * Before announcements and fetch by hash (src/p2p/txSync.ts) a transaction was gossiped once, when
 * it entered the full node's pool: sent to no validator, it was never sent again.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS, randomAddress } from '../helpers/dev.js'
import { rpc, waitFor } from '../helpers/node.js'
import { Cluster, headOf } from './cluster.js'
import { kill9, poolStatus, signTransfer, withoutReceipt } from './transfers.js'

const CHAIN_ID = 7861
const VALIDATORS = [1, 2, 3, 4]
const FULL_NODE = 5
const SENDERS = DEV_ACCOUNTS.slice(0, 3)
/** Nonces each sender sends while the validators are down. */
const NONCES_PER_SENDER = 6
/** Every transfer must be mined within this many blocks after the validators are back. */
const DELIVERY_MAX_BLOCKS = 15
/** Generous bound on the wall-clock wait for those blocks (five processes on two loaded cores). */
const DELIVERY_TIMEOUT_MS = 120_000

let net: Cluster

beforeAll(async () => {
  net = await Cluster.create({
    validators: 4,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: SENDERS.map((s) => `${s.address}=1000ether`),
  })
  await Promise.all(net.nodes.map((n) => net.start(n.index)))
  await waitFor(async () => (await Promise.all(net.nodes.map((n) => headOf(n.url)))).every((h) => h >= 2), {
    timeoutMs: 90_000,
    intervalMs: 200,
    what: `all nodes at block 2\n${net.logs()}`,
  })
}, 180_000)

afterAll(async () => {
  await net?.cleanup()
}, 60_000)

/** Sends NONCES_PER_SENDER transfers per sender to the full node; returns their hashes. */
async function sendBatch(): Promise<string[]> {
  const full = net.node(FULL_NODE).url
  const hashes: string[] = []
  for (const s of SENDERS) {
    const first = Number(BigInt(await rpc<string>(full, 'eth_getTransactionCount', [s.address, 'pending'])))
    for (let k = 0; k < NONCES_PER_SENDER; k++) {
      const raw = await signTransfer(CHAIN_ID, s, first + k, randomAddress(), 1_000n + BigInt(k))
      hashes.push(await rpc<string>(full, 'eth_sendRawTransaction', [raw]))
    }
  }
  return hashes
}

/** Waits for receipts of `hashes` on the full node, at most DELIVERY_MAX_BLOCKS blocks past `from`. */
async function expectMinedWithin(hashes: string[], from: number): Promise<void> {
  const full = net.node(FULL_NODE).url
  let missing = hashes
  await waitFor(
    async () => {
      missing = await withoutReceipt(full, missing)
      return missing.length === 0 || (await headOf(full)) >= from + DELIVERY_MAX_BLOCKS
    },
    { timeoutMs: DELIVERY_TIMEOUT_MS, intervalMs: 500, what: `receipts or block ${from + DELIVERY_MAX_BLOCKS}` },
  )
  missing = await withoutReceipt(full, missing)
  const pools = await Promise.all(net.nodes.map((n) => poolStatus(n.url)))
  expect(missing, `not mined by block ${from + DELIVERY_MAX_BLOCKS}; pools ${JSON.stringify(pools)}`).toEqual([])
}

describe('transactions accepted by a full node while all validators are down', () => {
  it('are mined after the validators are kill -9d and restarted', async () => {
    await Promise.all(VALIDATORS.map((i) => kill9(net, i)))
    const hashes = await sendBatch()
    expect(await poolStatus(net.node(FULL_NODE).url)).toEqual({ pending: hashes.length, queued: 0 })
    await Promise.all(VALIDATORS.map((i) => net.start(i)))
    await expectMinedWithin(hashes, await headOf(net.node(FULL_NODE).url))
  }, 300_000)

  it('are mined when the full node was kill -9d too and reloaded them from its journal', async () => {
    await Promise.all(VALIDATORS.map((i) => kill9(net, i)))
    const hashes = await sendBatch()
    await kill9(net, FULL_NODE)
    await net.start(FULL_NODE)
    expect(await poolStatus(net.node(FULL_NODE).url)).toEqual({ pending: hashes.length, queued: 0 })
    await Promise.all(VALIDATORS.map((i) => net.start(i)))
    await expectMinedWithin(hashes, await headOf(net.node(FULL_NODE).url))
  }, 300_000)
})

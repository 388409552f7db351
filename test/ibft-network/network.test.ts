/**
 * IBFT across real processes on loopback: `ibex genesis --validators 4 --full-nodes 1 --chain-id
 * 7860 --block-time 1s`, each node its own `ibex start --config …`. Seals are checked with the
 * independent decoder of test/helpers/header.ts. The scenarios run in order on one network:
 * agreement and seals → a transfer through the full node → one validator down (round change past
 * it) → two down (no block, no fork) → both back (blocks resume, everyone on one head).
 * Round timeouts are short (1 s base) so the whole file takes about a minute.
 */
import { privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS, randomAddress } from '../helpers/dev.js'
import {
  bytesToHex,
  committedSealDigest,
  decodeIbftExtra,
  hexToBytes,
  proposerSealDigest,
  type RpcBlock,
  recoverSigner,
  sealFreeHash,
} from '../helpers/header.js'
import { rpc, waitFor, waitForReceipt } from '../helpers/node.js'
import { Cluster, headOf } from './cluster.js'

const CHAIN_ID = 7860
const QUORUM = 3
/** Node numbers: validators 1-4 (validator i-1), full node 5. */
const FULL_NODE = 5
const FUNDED = DEV_ACCOUNTS[0]
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

let net: Cluster

beforeAll(async () => {
  net = await Cluster.create({
    validators: 4,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [`${FUNDED.address}=1000ether`],
  })
  await Promise.all(net.nodes.map((n) => net.start(n.index)))
}, 120_000)

afterAll(async () => {
  await net?.cleanup()
}, 60_000)

async function block(url: string, n: number): Promise<RpcBlock> {
  return rpc<RpcBlock>(url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])
}

/** Waits until every listed node has at least block `n`. */
async function allReach(nodes: number[], n: number, timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      for (const i of nodes) if ((await headOf(net.node(i).url)) < n) return false
      return true
    },
    { timeoutMs, intervalMs: 200, what: `nodes ${nodes.join(',')} to reach block ${n}\n${net.logs()}` },
  )
}

/** Every listed node returns the same hash for blocks 1..n; returns the blocks of the first. */
async function sameChain(nodes: number[], n: number): Promise<RpcBlock[]> {
  const out: RpcBlock[] = []
  for (let k = 1; k <= n; k++) {
    const blocks = await Promise.all(nodes.map((i) => block(net.node(i).url, k)))
    const hashes = new Set(blocks.map((b) => b?.hash))
    expect(hashes.size, `block ${k} differs between nodes ${nodes.join(',')}`).toBe(1)
    out.push(blocks[0] as RpcBlock)
  }
  return out
}

/** The committers of a block, from its committed seals over (hash, round); checks the proposer seal too. */
function committersOf(b: RpcBlock): string[] {
  const extra = decodeIbftExtra(b.extraData)
  const hash = hexToBytes(b.hash)
  expect(sealFreeHash(b), `block ${b.number} hash`).toBe(b.hash)
  expect(net.validators).toContain(recoverSigner(proposerSealDigest(hash), extra.proposerSeal))
  expect(extra.validators.map((v) => bytesToHex(v))).toEqual(net.validators)
  return extra.committedSeals.map((s) => recoverSigner(committedSealDigest(hash, extra.round), s))
}

describe('IBFT network: 4 validators + 1 full node, one process each', () => {
  it('all five return the same hash for every block; each carries ≥ 3 valid committed seals', async () => {
    await allReach([1, 2, 3, 4, 5], 4, 90_000)
    const head = Math.min(...(await Promise.all(net.nodes.map((n) => headOf(n.url)))))
    const blocks = await sameChain([1, 2, 3, 4, 5], head)
    for (const b of blocks) {
      const committers = committersOf(b)
      expect(new Set(committers).size, `block ${b.number}: ${committers}`).toBe(committers.length)
      expect(committers.length).toBeGreaterThanOrEqual(QUORUM)
      for (const c of committers) expect(net.validators).toContain(c)
    }
    const full = net.node(FULL_NODE).url
    expect(Number(BigInt(await rpc<string>(full, 'net_peerCount')))).toBeGreaterThanOrEqual(4)
    expect(await rpc(full, 'net_listening')).toBe(true)
    expect(await rpc(full, 'eth_chainId')).toBe(`0x${CHAIN_ID.toString(16)}`)
  }, 120_000)

  it('a transfer sent to the full node is gossiped to the validators and mined', async () => {
    const full = net.node(FULL_NODE).url
    const to = randomAddress()
    const account = privateKeyToAccount(FUNDED.privateKey)
    const nonce = Number(BigInt(await rpc<string>(full, 'eth_getTransactionCount', [FUNDED.address, 'pending'])))
    const raw = await account.signTransaction({
      chainId: CHAIN_ID,
      type: 'eip1559',
      to,
      value: 12_345n,
      gas: 21_000n,
      nonce,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    })
    const hash = await rpc<string>(full, 'eth_sendRawTransaction', [raw])
    const receipt = await waitForReceipt(full, hash, 30_000)
    expect(receipt.status).toBe('0x1')
    const onValidator = await waitForReceipt(net.node(1).url, hash, 10_000)
    expect(onValidator.blockHash).toBe(receipt.blockHash)
    expect(BigInt(await rpc<string>(net.node(2).url, 'eth_getBalance', [to, receipt.blockNumber]))).toBe(12_345n)
  }, 60_000)

  it('one validator stopped: blocks keep coming, with a round change past it', async () => {
    await net.stop(2)
    const from = await headOf(net.node(1).url)
    await allReach([1, 3, 4, 5], from + 6, 60_000)
    const blocks = await sameChain([1, 3, 4, 5], from + 6)
    const after = blocks.slice(from)
    const rounds = after.map((b) => decodeIbftExtra(b.extraData).round)
    expect(
      rounds.some((r) => r > 0n),
      `rounds after the stop: ${rounds}`,
    ).toBe(true)
    for (const b of after) {
      const committers = committersOf(b)
      expect(committers.length).toBeGreaterThanOrEqual(QUORUM)
      expect(committers).not.toContain(net.validators[1])
    }
  }, 90_000)

  it('two of four stopped: no new block and no fork', async () => {
    await net.stop(3)
    await sleep(2_000) // a decision already under way when it stopped may still land
    const heads = await Promise.all([1, 4, 5].map((i) => headOf(net.node(i).url)))
    const stalled = Math.max(...heads)
    await allReach([1, 4, 5], stalled, 15_000)
    await sleep(8_000)
    for (const i of [1, 4, 5]) expect(await headOf(net.node(i).url), `node ${i}`).toBe(stalled)
    await sameChain([1, 4, 5], stalled)
  }, 60_000)

  it('both restarted: blocks resume and the restarted nodes catch up to the same head', async () => {
    const stalled = await headOf(net.node(1).url)
    await Promise.all([net.start(2), net.start(3)])
    await allReach([1, 2, 3, 4, 5], stalled + 3, 90_000)
    const head = Math.min(...(await Promise.all(net.nodes.map((n) => headOf(n.url)))))
    const blocks = await sameChain([1, 2, 3, 4, 5], head)
    for (const b of blocks.slice(stalled)) expect(committersOf(b).length).toBeGreaterThanOrEqual(QUORUM)
  }, 120_000)
})

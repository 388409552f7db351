/**
 * Chaos test (issue 18's must-show): 4 validators + 1 full node, real processes on loopback. A
 * sender streams transfers to the full node while validators are kill -9'd, one at a time and all
 * at once, for CHAOS_DURATION_MS (IBEX_CHAOS_MS overrides it for longer local runs). It must show:
 * - the chain grows whenever at least 3 validators are up (each such phase must see new blocks);
 * - every transaction the full node accepted is mined, within CATCH_UP_MAX_BLOCKS of the end
 *   (one that is not would have to be explicitly dropped: absent from every pool, null from
 *   eth_getTransactionByHash, its reason in the full node's log — the failure message lists them);
 * - no fork: every node returns the same hash at every height they all have.
 * The figures (transactions, blocks, kill rounds, duration) are printed at the end.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { prng } from '../../src/util/prng.js'
import { DEV_ACCOUNTS, randomAddress } from '../helpers/dev.js'
import { rpc, waitFor } from '../helpers/node.js'
import { Cluster, headOf } from './cluster.js'
import { kill9, poolStatus, signTransfer, withoutReceipt } from './transfers.js'

const CHAIN_ID = 7862
const VALIDATORS = [1, 2, 3, 4]
const FULL_NODE = 5
const SENDERS = DEV_ACCOUNTS.slice(0, 4)
/** How long validators are killed and restarted (default sized for the CI suite; IBEX_CHAOS_MS for longer runs). */
const CHAOS_DURATION_MS = Number(process.env.IBEX_CHAOS_MS ?? 150_000)
/** Pause between two transfers of the stream (about 10 per second, over all senders). */
const SEND_INTERVAL_MS = 100
/** With 3 or 4 validators up, the head must grow by this many blocks… */
const LIVENESS_BLOCKS = 2
/** …within this long (generous: restarted processes load on two busy cores and rounds back off). */
const LIVENESS_TIMEOUT_MS = 90_000
/** How long all validators stay down in an all-at-once round (transfers pile up on the full node meanwhile). */
const ALL_DOWN_MS = 4_000
/** Every accepted transfer must be mined within this many blocks after the chaos ends. */
const CATCH_UP_MAX_BLOCKS = 30
const CATCH_UP_TIMEOUT_MS = 180_000
/** Seed of the kill schedule, so that a failing run can be repeated (IBEX_CHAOS_SEED). */
const SEED = Number(process.env.IBEX_CHAOS_SEED ?? 18)

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
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

/** Transfers streamed to the full node until stopped: what it accepted and what it refused. */
class Stream {
  readonly accepted: string[] = []
  readonly refused: string[] = []
  #stop = false
  #done: Promise<void> | undefined

  start(): void {
    this.#done = this.#run()
  }

  async stop(): Promise<void> {
    this.#stop = true
    await this.#done
  }

  async #run(): Promise<void> {
    const full = net.node(FULL_NODE).url
    const nonces = await Promise.all(
      SENDERS.map(async (s) =>
        Number(BigInt(await rpc<string>(full, 'eth_getTransactionCount', [s.address, 'pending']))),
      ),
    )
    for (let i = 0; !this.#stop; i++) {
      const k = i % SENDERS.length
      const raw = await signTransfer(CHAIN_ID, SENDERS[k], nonces[k], randomAddress(), 1_000n + BigInt(i))
      try {
        this.accepted.push(await rpc<string>(full, 'eth_sendRawTransaction', [raw]))
        nonces[k]++
      } catch (err) {
        this.refused.push(String(err))
      }
      await sleep(SEND_INTERVAL_MS)
    }
  }
}

/** Waits until the full node's head is LIVENESS_BLOCKS past where it is now (`what` names the phase). */
async function expectGrowth(what: string): Promise<void> {
  const full = net.node(FULL_NODE).url
  const from = await headOf(full)
  await waitFor(async () => (await headOf(full)) >= from + LIVENESS_BLOCKS, {
    timeoutMs: LIVENESS_TIMEOUT_MS,
    intervalMs: 250,
    what: `the chain to grow from ${from} (${what})\n${net.logs()}`,
  })
}

describe('chaos: validators kill -9d singly and all at once under a stream of transfers', () => {
  it(
    'no fork, every accepted transfer mined, blocks whenever 3 validators are up',
    async () => {
      const random = prng(SEED)
      const stream = new Stream()
      const started = performance.now()
      const startHead = await headOf(net.node(FULL_NODE).url)
      let single = 0
      let all = 0
      stream.start()
      try {
        while (performance.now() - started < CHAOS_DURATION_MS) {
          if (random() < 0.6) {
            const victim = VALIDATORS[Math.floor(random() * VALIDATORS.length)] as number
            await kill9(net, victim)
            single++
            await expectGrowth(`validator ${victim} down`)
            await net.start(victim)
          } else {
            await Promise.all(VALIDATORS.map((i) => kill9(net, i)))
            all++
            await sleep(ALL_DOWN_MS)
            await Promise.all(VALIDATORS.map((i) => net.start(i)))
          }
          await expectGrowth('all validators up')
        }
      } finally {
        await stream.stop()
      }
      const chaosMs = performance.now() - started
      const full = net.node(FULL_NODE).url
      const endHead = await headOf(full)

      let missing = stream.accepted
      await waitFor(
        async () => {
          missing = await withoutReceipt(full, missing)
          return missing.length === 0 || (await headOf(full)) >= endHead + CATCH_UP_MAX_BLOCKS
        },
        { timeoutMs: CATCH_UP_TIMEOUT_MS, intervalMs: 500, what: `receipts or block ${endHead + CATCH_UP_MAX_BLOCKS}` },
      )
      missing = await withoutReceipt(full, missing)
      const minedBy = await headOf(full)
      const explain = await Promise.all(
        missing.slice(0, 20).map(async (h) => {
          const tx = await rpc<{ blockHash: string | null } | null>(full, 'eth_getTransactionByHash', [h])
          const said = net
            .node(FULL_NODE)
            .output.split('\n')
            .filter((l) => l.includes(h))
          return `${h}: ${tx === null ? 'unknown to the full node' : 'still pooled'}; log: ${said.join(' | ') || '-'}`
        }),
      )
      const pools = await Promise.all(net.nodes.map((n) => poolStatus(n.url)))
      expect(
        missing,
        `${missing.length} accepted transfers not mined; pools ${JSON.stringify(pools)}\n${explain.join('\n')}`,
      ).toEqual([])

      // no fork: the same hash at every height all five have
      const heads = await Promise.all(net.nodes.map((n) => headOf(n.url)))
      const common = Math.min(...heads)
      for (let n = 1; n <= common; n++) {
        const tag = `0x${n.toString(16)}`
        const hashes = await Promise.all(
          net.nodes.map(
            async (node) => (await rpc<{ hash: string }>(node.url, 'eth_getBlockByNumber', [tag, false])).hash,
          ),
        )
        expect(new Set(hashes).size, `block ${n}: ${hashes.join(' ')}`).toBe(1)
      }

      console.log(
        `chaos: ${(chaosMs / 1000).toFixed(0)} s, kill rounds ${single + all} (${single} single, ${all} all four), ` +
          `transfers accepted ${stream.accepted.length} refused ${stream.refused.length}, all mined by block ${minedBy}; ` +
          `blocks ${startHead}→${endHead} during, ${common} checked on 5 nodes, seed ${SEED}`,
      )
    },
    CHAOS_DURATION_MS + 600_000,
  )
})

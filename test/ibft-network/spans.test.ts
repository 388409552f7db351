/**
 * Span committees on a live network (issue 19), real processes on loopback: `ibex genesis
 * --validators 6 --full-nodes 1` (the six seated in the DAO with their node keys as signers), each
 * node's [ibft] span_blocks = 8 and producers = 4, 1 s blocks. The validators draw, sign and gossip
 * each span's consent; the last block of every span carries the next committee; the full node,
 * started late, syncs through at least three switches and verifies them. Every block is checked on
 * every node, and the committees and seals by the independent script test/spans/committeeCheck.ts.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { rpc, waitFor } from '../helpers/node.js'
import { checkCommittees } from '../spans/committeeCheck.js'
import { Cluster, headOf } from './cluster.js'

const CHAIN_ID = 7861
const SPAN_BLOCKS = 8
const PRODUCERS = 4
const VALIDATORS = 6
const FULL_NODE = 7
/** Span switches the late full node must sync through. */
const SWITCHES = 3
/** Blocks the validators make before the full node starts: the end of span SWITCHES + 1 (its record included). */
const LATE_START_AT = SPAN_BLOCKS * (SWITCHES + 1) + 1

let net: Cluster

beforeAll(async () => {
  net = await Cluster.create({
    validators: VALIDATORS,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [`${DEV_ACCOUNTS[0].address}=1000ether`],
  })
  // as an operator would: the span settings in each node's [ibft] section
  for (const n of net.nodes) {
    const text = readFileSync(n.config, 'utf8')
      .replace(/^span_blocks = \d+$/m, `span_blocks = ${SPAN_BLOCKS}`)
      .replace(/^producers = \d+$/m, `producers = ${PRODUCERS}`)
    expect(text).toContain(`span_blocks = ${SPAN_BLOCKS}`)
    writeFileSync(n.config, text)
  }
  await Promise.all(net.nodes.slice(0, VALIDATORS).map((n) => net.start(n.index)))
}, 180_000)

afterAll(async () => {
  await net?.cleanup()
}, 60_000)

async function allReach(nodes: number[], n: number, timeoutMs: number): Promise<void> {
  await waitFor(
    async () => {
      for (const i of nodes) if ((await headOf(net.node(i).url)) < n) return false
      return true
    },
    { timeoutMs, intervalMs: 500, what: `nodes ${nodes.join(',')} to reach block ${n}\n${net.logs()}` },
  )
}

describe('span committees: 6 validators, committees of 4, spans of 8 blocks', () => {
  it('the committee switches at span boundaries with consent carried in the chain; a late full node syncs through the switches; all agree', async () => {
    const validators = Array.from({ length: VALIDATORS }, (_, i) => i + 1)
    await allReach(validators, LATE_START_AT, 240_000)
    await net.start(FULL_NODE)
    const all = [...validators, FULL_NODE]
    await allReach(all, LATE_START_AT + 2, 120_000)
    const head = BigInt(Math.min(...(await Promise.all(all.map((i) => headOf(net.node(i).url))))))

    // every node returns the same block for every height
    for (let k = 1n; k <= head; k++) {
      const hashes = await Promise.all(
        all.map(async (i) => (await rpc<{ hash: string }>(net.node(i).url, 'eth_getBlockByNumber', [`0x${k.toString(16)}`, false])).hash),
      )
      expect(new Set(hashes).size, `block ${k}: ${hashes.join(' ')}`).toBe(1)
    }

    // the independent script, against the full node and a validator: committees and seals as the draw says
    for (const i of [FULL_NODE, 1]) {
      const result = await checkCommittees(net.node(i).url, SPAN_BLOCKS, PRODUCERS, head)
      expect(result.problems, `node ${i}`).toEqual([])
      const switched = result.spans.filter((s) => s.switched)
      expect(switched.length, `switches seen by node ${i}\n${net.logs()}`).toBeGreaterThanOrEqual(SWITCHES)
      for (const s of switched) expect(s.committee.reduce((p, m) => p + m.power, 0n)).toBe(BigInt(PRODUCERS))
      // the drawn committees are not the genesis six (power 1 each): the switch took effect
      expect(switched.some((s) => s.committee.length < VALIDATORS)).toBe(true)
    }
    expect(net.node(FULL_NODE).output).toMatch(/synced block/)
  }, 420_000)
})

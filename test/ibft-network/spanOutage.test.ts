/**
 * Committee members down with spans on (issue 19), real processes on loopback: `ibex genesis
 * --validators 4`, every node with [ibft] span_blocks = 4, producers = 0 (each span's committee is
 * the DAO's whole set, power 1 each: four members) and the bor and validators namespaces served.
 * The members to stop are read from bor_getCurrentValidators. One down: blocks go on across a span
 * switch. Two down (half the power): no block, and the two left agree on their last one. Back:
 * blocks resume and every node has the same chain, checked by the independent
 * test/spans/committeeCheck.ts, whose recomputed committee equals bor_getCurrentValidators.
 * Then `ibex export` of a validator's chain imports into a fresh datadir with the span check on,
 * and the same file with one span record's consent cut is refused at that block.
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { REPO_ROOT } from '../helpers/compile.js'
import { bytesToHex, decodeIbftExtra, encodeIbftExtra, RLP, sealFreeHash } from '../helpers/header.js'
import { IBEX_BIN, rpc, waitFor } from '../helpers/node.js'
import { checkCommittees } from '../spans/committeeCheck.js'
import { Cluster, headOf } from './cluster.js'

const CHAIN_ID = 7863
const SPAN_BLOCKS = 4
const PRODUCERS = 0
const VALIDATORS = 4
/** How long two of four members down must leave the chain still: several round timeouts (1 s · 2^r + 1 s). */
const STALL_WATCH_MS = 10_000
/** Time for a block in flight when the second member stops to reach every running node. */
const SETTLE_MS = 3_000
const APIS = '["eth", "net", "web3", "txpool", "bor", "validators"]'

interface BorValidator {
  ID: number
  signer: string
  power: number
  accum: number
}

let net: Cluster
const work = mkdtempSync(join(tmpdir(), 'ibex-span-outage-'))

beforeAll(async () => {
  net = await Cluster.create({
    validators: VALIDATORS,
    fullNodes: 0,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [],
  })
  for (const n of net.nodes) {
    const text = readFileSync(n.config, 'utf8')
      .replace(/^span_blocks = \d+$/m, `span_blocks = ${SPAN_BLOCKS}`)
      .replace(/^producers = \d+$/m, `producers = ${PRODUCERS}`)
      .replace(/^\[jsonrpc\]$/m, `[jsonrpc]\napi = ${APIS}`)
    expect(text).toContain(`api = ${APIS}`)
    writeFileSync(n.config, text)
  }
  await Promise.all(net.nodes.map((n) => net.start(n.index)))
}, 180_000)

afterAll(async () => {
  await net?.cleanup()
  rmSync(work, { recursive: true, force: true })
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

async function hashAt(i: number, n: number): Promise<string> {
  return (await rpc<{ hash: string }>(net.node(i).url, 'eth_getBlockByNumber', [`0x${n.toString(16)}`, false])).hash
}

async function sameChain(nodes: number[], upTo: number): Promise<void> {
  for (let k = 1; k <= upTo; k++) {
    const hashes = await Promise.all(nodes.map((i) => hashAt(i, k)))
    expect(new Set(hashes).size, `block ${k}: ${hashes.join(' ')}`).toBe(1)
  }
}

/** bor_getCurrentValidators and the committee the independent script recomputes for the span of head + 1, read at one head. */
async function committeeBothWays(
  i: number,
): Promise<{ rpc: BorValidator[]; script: { signer: string; power: bigint }[] }> {
  const url = net.node(i).url
  for (;;) {
    const before = await headOf(url)
    const validators = await rpc<BorValidator[]>(url, 'bor_getCurrentValidators')
    const after = await headOf(url)
    if (before !== after) continue // the head moved between the reads: try again
    const result = await checkCommittees(url, SPAN_BLOCKS, PRODUCERS, BigInt(after))
    expect(result.problems).toEqual([])
    const span = BigInt(Math.floor(after / SPAN_BLOCKS)) // span of block after + 1
    const report = result.spans.find((s) => s.spanId === span)
    if (report === undefined) throw new Error(`the script saw no span ${span}`)
    return { rpc: validators, script: report.committee }
  }
}

function ibex(args: string[]): { status: number | null; out: string; err: string } {
  const r = spawnSync(process.execPath, [IBEX_BIN, ...args], { cwd: REPO_ROOT, encoding: 'utf8' })
  return { status: r.status, out: r.stdout, err: r.stderr }
}

describe('committee members down with spans on (4 members, spans of 4 blocks)', () => {
  const all = Array.from({ length: VALIDATORS }, (_, i) => i + 1)

  it('one down: blocks go on; two down: no block and no fork; back: they resume on one chain', async () => {
    await allReach(all, 2 * SPAN_BLOCKS + 2, 120_000)
    const { rpc: committee, script } = await committeeBothWays(1)
    expect(committee.map((v) => ({ signer: v.signer, power: BigInt(v.power) }))).toEqual(script)
    expect(committee.map((v) => v.power)).toEqual([1, 1, 1, 1])
    // the members to stop, by their signers (never node 1, which the test reads)
    const nodeOf = (signer: string) => net.nodes.find((n) => n.validator === signer.toLowerCase())?.index
    const members = committee.map((v) => nodeOf(v.signer)).filter((i): i is number => i !== undefined && i !== 1)
    expect(members.length).toBe(3)
    const [first, second] = members as [number, number]

    await net.stop(first)
    const up = all.filter((i) => i !== first)
    const stoppedAt = await headOf(net.node(1).url)
    // across a span switch, decided by three of four
    const past = (Math.floor(stoppedAt / SPAN_BLOCKS) + 1) * SPAN_BLOCKS + 2
    await allReach(up, past, 120_000)

    await net.stop(second)
    const left = up.filter((i) => i !== second)
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    const stalled = Math.max(...(await Promise.all(left.map((i) => headOf(net.node(i).url)))))
    await allReach(left, stalled, 30_000)
    await new Promise((r) => setTimeout(r, STALL_WATCH_MS))
    for (const i of left)
      expect(await headOf(net.node(i).url), `node ${i} made a block with half the power`).toBe(stalled)
    await sameChain(left, stalled)

    await Promise.all([net.start(first), net.start(second)])
    await allReach(all, stalled + SPAN_BLOCKS + 2, 180_000)
    const end = Math.min(...(await Promise.all(all.map((i) => headOf(net.node(i).url)))))
    await sameChain(all, end)
    const again = await committeeBothWays(first)
    expect(again.rpc.map((v) => ({ signer: v.signer, power: BigInt(v.power) }))).toEqual(again.script)
  }, 480_000)

  it('ibex import verifies the span records of an exported chain and refuses a cut consent', async () => {
    const exporter = VALIDATORS
    await net.stop(exporter)
    const file = join(work, 'chain.rlp')
    const exported = ibex(['export', '--datadir', join(net.dir, `node${exporter}`), file])
    expect(exported.status, exported.err).toBe(0)
    const head = BigInt(Number(exported.out.match(/\(0\.\.(\d+)\)/)?.[1]))
    expect(head).toBeGreaterThan(BigInt(2 * SPAN_BLOCKS))
    const spanArgs = ['--span-blocks', String(SPAN_BLOCKS), '--producers', String(PRODUCERS)]
    const genesis = join(net.dir, 'genesis.json')

    const fresh = ibex(['import', '--genesis', genesis, '--datadir', join(work, 'fresh'), ...spanArgs, file])
    expect(fresh.status, fresh.err).toBe(0)
    expect(fresh.out).toContain(`head ${head} ${await hashAt(1, Number(head))}`)

    // cut the consent of the first span record to one signature: short of 2/3 of the power
    const blocks = splitBlocks(readFileSync(file))
    const carrier = blocks.findIndex(
      (b) => decodeIbftExtra(bytesToHex(headerOf(b)[12] as Uint8Array)).span !== undefined,
    )
    expect(carrier).toBeGreaterThan(0)
    const block = await rpc<Record<string, string>>(net.node(1).url, 'eth_getBlockByNumber', [
      `0x${carrier.toString(16)}`,
      false,
    ])
    expect(sealFreeHash(block), 'the helper hashes a block carrying a span record').toBe(block.hash)
    const header = headerOf(blocks[carrier] as Uint8Array)
    const extra = decodeIbftExtra(bytesToHex(header[12] as Uint8Array))
    const span = extra.span as unknown[]
    header[12] = encodeIbftExtra({ ...extra, span: [...span.slice(0, 5), (span[5] as unknown[]).slice(0, 1)] })
    const decoded = RLP.decode(blocks[carrier] as Uint8Array) as unknown[]
    blocks[carrier] = RLP.encode([header, ...decoded.slice(1)] as never)
    const tampered = join(work, 'tampered.rlp')
    writeFileSync(tampered, Buffer.concat(blocks))
    const refused = ibex(['import', '--genesis', genesis, '--datadir', join(work, 'tampered'), ...spanArgs, tampered])
    expect(refused.status).not.toBe(0)
    expect(refused.err).toMatch(
      new RegExp(`block ${carrier} \\(0x[0-9a-f]{64}\\): span consent refused \\(insufficient-power\\)`),
    )
  }, 180_000)
})

function headerOf(block: Uint8Array): Uint8Array[] {
  return (RLP.decode(block) as unknown[])[0] as Uint8Array[]
}

/** The consecutive RLP blocks of an export file. */
function splitBlocks(bytes: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = []
  let at = 0
  while (at < bytes.length) {
    const rest = bytes.subarray(at)
    const { remainder } = RLP.decode(rest, true) as { remainder: Uint8Array }
    const size = rest.length - remainder.length
    out.push(rest.subarray(0, size))
    at += size
  }
  return out
}

/**
 * Span committees on a live network (issue 19), real processes on loopback: `ibex genesis
 * --network dev --validators 6 --full-nodes 1` (the six seated in the DAO with their node keys as signers), each
 * node's [ibft] span_blocks = 8 and producers = 4, 1 s blocks. The validators draw, sign and gossip
 * each span's consent; the last block of every span carries the next committee; the full node,
 * started late, syncs through at least three switches and verifies them. Then a validator's key
 * tops its seat up through ValidatorDAO.topUp: the next span drawn after it is the draw from the new
 * stakes (not the old ones at the same seed). A new seat — KYC by the Ops Safe, application, approval,
 * signer — enters the set; the spans drawn after it are the draws over the set that holds it, and
 * the full node, given the new seat's key, seals when drawn. And a validator offline across a switch (restarted
 * mid-span) catches up on the same chain. Every block is checked on every node, and the
 * committees, consents and seals by the independent script test/spans/committeeCheck.ts.
 */
import { randomBytes } from 'node:crypto'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { concat, getBytes, keccak256, SigningKey, toBeHex, toUtf8Bytes, ZeroAddress } from 'ethers'
import type { Hex } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Chain } from '../../scripts/dao/client.js'
import { DAO_ADDRESSES, devWallet } from '../../scripts/dao/plan.js'
import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { rpc, waitFor } from '../helpers/node.js'
import { checkCommittees, draw, type Member } from '../spans/committeeCheck.js'
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
const COIN = 10n ** 18n
/**
 * The top-up: 75× the six seats' total stake (6 × 222,222 coins), so the topped-up validator
 * holds > 98% of the power. Its committee power is then ≥ 3 of 4 unless two or more of four
 * draws miss it (about 0.1%), and any one other validator may be down without stopping blocks.
 */
const TOP_UP = 100_000_000n * COIN
const FUNDER = DEV_ACCOUNTS[0]
/** Key file of the validator seated during the test (its node is the cluster's full node). */
const NEW_VALIDATOR_KEY = 'validator-new.key'
/** Spans after the new seat whose committees are checked against the draw over the set that holds it. */
const NEW_SEAT_SPANS = 2n

let net: Cluster

beforeAll(async () => {
  net = await Cluster.create({
    validators: VALIDATORS,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [`${FUNDER.address}=200000000ether`],
    // the dev preset's DAO: its Ops Safe (KYC attestor, membership) is owned by dev accounts, so the
    // test can seat a new validator as the Safe's owners would
    genesisArgs: ['--network', 'dev'],
  })
  // as an operator would: the span settings in each node's [ibft] section
  for (const n of net.nodes) {
    const text = readFileSync(n.config, 'utf8')
      .replace(/^span_blocks = \d+$/m, `span_blocks = ${SPAN_BLOCKS}`)
      .replace(/^producers = \d+$/m, `producers = ${PRODUCERS}`)
      .replace(/^\[jsonrpc\]$/m, '[jsonrpc]\napi = ["eth", "net", "web3", "txpool", "bor", "validators"]')
    expect(text).toContain(`span_blocks = ${SPAN_BLOCKS}`)
    writeFileSync(n.config, text)
  }
  await Promise.all(net.nodes.slice(0, VALIDATORS).map((n) => net.start(n.index)))
}, 180_000)

afterAll(async () => {
  await net?.cleanup()
}, 60_000)

/** Every listed node returns the same hash for blocks 1..n. */
async function sameChain(nodes: number[], n: bigint): Promise<void> {
  for (let k = 1n; k <= n; k++) {
    const hashes = await Promise.all(
      nodes.map(async (i) => (await rpc<{ hash: string }>(net.node(i).url, 'eth_getBlockByNumber', [`0x${k.toString(16)}`, false])).hash),
    )
    expect(new Set(hashes).size, `block ${k}: ${hashes.join(' ')}`).toBe(1)
  }
}

async function minHead(nodes: number[]): Promise<bigint> {
  return BigInt(Math.min(...(await Promise.all(nodes.map((i) => headOf(net.node(i).url))))))
}

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
    const head = await minHead(all)
    // every node returns the same block for every height
    await sameChain(all, head)

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

    // bor_getCurrentValidators answers the committee the independent script recomputes (span of head + 1)
    for (const i of [FULL_NODE, 1]) {
      const url = net.node(i).url
      let at = -1
      let validators: { ID: number; signer: string; power: number; accum: number }[] = []
      while (at !== (await headOf(url))) {
        at = await headOf(url)
        validators = await rpc(url, 'bor_getCurrentValidators')
      }
      const recomputed = await checkCommittees(url, SPAN_BLOCKS, PRODUCERS, BigInt(at))
      expect(recomputed.problems).toEqual([])
      const span = recomputed.spans.find((s) => s.spanId === BigInt(Math.floor(at / SPAN_BLOCKS)))
      expect(
        validators.map((v) => ({ signer: v.signer, power: BigInt(v.power) })),
        `node ${i} at block ${at}`,
      ).toEqual(span?.committee)
      // ID is the member's DAO seat (ibex genesis seats validators from 51 on)
      for (const v of validators) expect(v.ID).toBeGreaterThanOrEqual(51)
    }
  }, 420_000)

  it('a new seat through the DAO (KYC by the Ops Safe, application, approval, signer) joins the set and the drawn committees; its node seals when drawn', async () => {
    const chain = new Chain(net.node(1).url)
    // the full node becomes the new validator's node: its own key, named in its config, then a restart
    const key = `0x${randomBytes(32).toString('hex')}`
    const holder = chain.signer(key)
    writeFileSync(join(net.dir, NEW_VALIDATOR_KEY), `${key.slice(2)}\n`, { mode: 0o600 })
    await net.stop(FULL_NODE)
    const config = readFileSync(net.node(FULL_NODE).config, 'utf8')
    expect(config).not.toContain('validator_key')
    writeFileSync(
      net.node(FULL_NODE).config,
      config.replace(/^(log_level = .*)$/m, `$1\nvalidator_key = "../${NEW_VALIDATOR_KEY}"`),
    )
    await net.start(FULL_NODE)

    const dao = chain.contract('ValidatorDAO', DAO_ADDRESSES.ValidatorDAO)
    const kyc = chain.contract('KycRegistry', DAO_ADDRESSES.KycRegistry)
    const signers = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
    const stake = (await dao.read('minStake', [3])) as bigint
    const funder = chain.signer(FUNDER.privateKey)
    await chain.receipt(await chain.sendTx(funder, { to: holder.address, value: stake + 10n * COIN, gas: 21_000n }))
    const expiry = (await chain.timestamp()) + 365 * 86_400
    const identity = keccak256(toUtf8Bytes(`identity of ${holder.address}`))
    await opsSafe(chain, DAO_ADDRESSES.KycRegistry, kyc.encode('attest', [holder.address, identity, 1, expiry, keccak256('0x0e')]))
    const documents = await Promise.all(
      ['disclaimerHash', 'riskWarningHash', 'informationMemorandumHash'].map((fn) => dao.read(fn)),
    )
    const applied = await dao.write(holder, 'applyForSeat', [3, ...documents, keccak256(toUtf8Bytes('form'))], {
      value: stake,
    })
    const id = dao.events(applied).find((e) => e.name === 'ApplicationSubmitted')?.args.id as bigint
    const approved = await opsSafe(chain, DAO_ADDRESSES.ValidatorDAO, dao.encode('approveApplication', [id]))
    const seat = dao.events(approved).find((e) => e.name === 'ApplicationApproved')?.args.seat as bigint
    expect(seat).toBeGreaterThan(0n)
    const named = await signers.write(holder, 'setSigner', [seat, holder.address])
    const joinedAt = BigInt(named.blockNumber)
    const me = holder.address.toLowerCase() as Hex
    const before = await validatorSetAt(chain, joinedAt - 1n)
    expect(before.some((v) => v.signer === me)).toBe(false)

    // the spans drawn at reference blocks after the seat: drawn over the set that holds it
    const S = BigInt(SPAN_BLOCKS)
    const firstDrawn = (joinedAt - 1n) / S + 2n
    const all = Array.from({ length: VALIDATORS + 1 }, (_, i) => i + 1)
    await allReach(all, Number((firstDrawn + NEW_SEAT_SPANS) * S + 2n), 180_000)
    const head = await minHead(all)
    const result = await checkCommittees(net.node(1).url, SPAN_BLOCKS, PRODUCERS, head)
    expect(result.problems).toEqual([])
    let changed = 0
    for (let k = firstDrawn; k <= firstDrawn + NEW_SEAT_SPANS; k++) {
      const ref = (k - 1n) * S + 1n
      const refBlock = await rpc<{ hash: Hex }>(net.node(1).url, 'eth_getBlockByNumber', [`0x${ref.toString(16)}`, false])
      const set = await validatorSetAt(chain, ref)
      expect(set.find((v) => v.signer === me)?.power, `span ${k}: the new seat in the set at its reference block`).toBe(stake)
      const span = result.spans.find((x) => x.spanId === k)
      expect(span?.switched, `span ${k} switched\n${net.logs()}`).toBe(true)
      expect(span?.committee).toEqual(draw(set, refBlock.hash, PRODUCERS))
      if (committeeKey(span?.committee ?? []) !== committeeKey(draw(before, refBlock.hash, PRODUCERS))) changed++
    }
    expect(changed, 'committees that differ from the draw without the new seat').toBeGreaterThan(0)
    // wherever the new validator was drawn, blocks went on: its node sealed them (checkCommittees checked the seals)
    await sameChain(all, head)
  }, 420_000)

  it('a stake top-up through ValidatorDAO changes the next drawn committee; a validator offline across a switch catches up', async () => {
    const all = Array.from({ length: VALIDATORS + 1 }, (_, i) => i + 1)
    const chain = new Chain(net.node(FULL_NODE).url)
    const key = `0x${readFileSync(join(net.dir, 'validator-0.key'), 'utf8').trim().replace(/^0x/, '')}`
    const holder = chain.signer(key)
    const funder = chain.signer(FUNDER.privateKey)
    await chain.receipt(await chain.sendTx(funder, { to: holder.address, value: TOP_UP + 10n * COIN, gas: 21_000n }))
    const signers = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
    const seat = (await signers.read('seatOf', [holder.address])) as bigint
    const dao = chain.contract('ValidatorDAO', DAO_ADDRESSES.ValidatorDAO)
    const receipt = await dao.write(holder, 'topUp', [seat], { value: TOP_UP })
    const toppedAt = BigInt(receipt.blockNumber)
    // the first reference block after the top-up, and the span it draws
    const S = BigInt(SPAN_BLOCKS)
    const k = (toppedAt - 1n) / S + 1n
    const ref = k * S + 1n
    const drawn = k + 1n
    await allReach(all, Number((k + 1n) * S + 2n), 120_000)

    const head = await minHead(all)
    const result = await checkCommittees(net.node(FULL_NODE).url, SPAN_BLOCKS, PRODUCERS, head)
    expect(result.problems).toEqual([])
    const span = result.spans.find((x) => x.spanId === drawn)
    expect(span?.switched, `span ${drawn} switched\n${net.logs()}`).toBe(true)
    // the same seed over the stakes before the top-up draws another committee
    const refBlock = await rpc<{ hash: Hex }>(net.node(FULL_NODE).url, 'eth_getBlockByNumber', [`0x${ref.toString(16)}`, false])
    const before = await validatorSetAt(chain, toppedAt - 1n)
    const after = await validatorSetAt(chain, ref)
    expect(after.find((v) => v.signer === holder.address.toLowerCase())?.power).toBe(
      (before.find((v) => v.signer === holder.address.toLowerCase())?.power ?? 0n) + TOP_UP,
    )
    const old = draw(before, refBlock.hash, PRODUCERS)
    expect(span?.committee).toEqual(draw(after, refBlock.hash, PRODUCERS))
    const facts = JSON.stringify({ toppedAt, ref, drawn, seed: refBlock.hash, before, after, old }, (_, v) =>
      typeof v === 'bigint' ? v.toString() : v,
    )
    expect(span?.committee, `the draw over the stakes before the top-up: ${facts}`).not.toEqual(old)
    const heavy = span?.committee.find((m) => m.signer === holder.address.toLowerCase())
    expect(heavy?.power, 'the topped-up validator holds most of the committee').toBeGreaterThanOrEqual(3n)

    // a light validator goes down mid-span, stays down across a switch, comes back
    const down = 6
    await net.stop(down)
    const stoppedAt = await headOf(net.node(1).url)
    const up = all.filter((i) => i !== down)
    const pastSwitch = (Math.floor(stoppedAt / SPAN_BLOCKS) + 1) * SPAN_BLOCKS + 2
    await allReach(up, pastSwitch, 120_000)
    await net.start(down)
    const target = await headOf(net.node(1).url)
    await allReach(all, target, 120_000)
    const end = await minHead(all)
    await sameChain(all, end)
    const final = await checkCommittees(net.node(down).url, SPAN_BLOCKS, PRODUCERS, end)
    expect(final.problems).toEqual([])
    // the switch it missed was made (record in block j·S, decided while it was down)
    const missed = BigInt(Math.floor(stoppedAt / SPAN_BLOCKS) + 1)
    expect(final.spans.find((x) => x.spanId === missed)?.switched, `span ${missed}`).toBe(true)
  }, 420_000)
})

async function validatorSetAt(chain: Chain, block: bigint): Promise<Member[]> {
  const c = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
  const [, signers, powers] = (await c.read('validatorSet', [], { block: `0x${block.toString(16)}` })) as [
    bigint[],
    string[],
    bigint[],
  ]
  return signers.map((s, i) => ({ signer: s.toLowerCase() as Hex, power: powers[i] as bigint }))
}

/** committeeKey: a committee as text (signer:power, in order), to compare two draws. */
function committeeKey(committee: Member[]): string {
  return committee.map((m) => `${m.signer}:${m.power}`).join(',')
}

/**
 * opsSafe runs a call as the Ops Safe (the KYC attestor and membership role of the genesis DAO):
 * execTransaction signed by two of its owners (dev accounts of the genesis), sent by the funder.
 */
async function opsSafe(chain: Chain, to: string, data: string) {
  const safe = chain.contract('SafeL2', DAO_ADDRESSES.OpsSafe)
  const owners = new Set(((await safe.read('getOwners')) as string[]).map((o) => o.toLowerCase()))
  const keys = Array.from({ length: 10 }, (_, i) => devWallet(i))
    .filter((w) => owners.has(w.address.toLowerCase()))
    .slice(0, Number(await safe.read('getThreshold')))
    .sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1))
  const args = [to, 0, data, 0, 0, 0, 0, ZeroAddress, ZeroAddress]
  const hash = await safe.read('getTransactionHash', [...args, await safe.read('nonce')])
  const signatures = concat(
    keys.map((w) => {
      const sig = new SigningKey(w.privateKey).sign(getBytes(hash))
      return concat([sig.r, sig.s, toBeHex(sig.v, 1)])
    }),
  )
  const receipt = await safe.write(chain.signer(FUNDER.privateKey), 'execTransaction', [...args, signatures])
  expect(safe.events(receipt).map((e) => e.name)).toContain('ExecutionSuccess')
  return receipt
}

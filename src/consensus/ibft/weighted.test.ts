/**
 * IBFT with voting power (a span committee, issue 19): quorum is more than 2/3 of the committee's
 * power, the proposer rotation gives each member `power` consecutive slots, the f+1 round-jump
 * counts power, seals are checked by power. With every power 1 the rules are the unweighted ones
 * (spans off) exactly.
 */
import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { checkPreparedCertificate, HeightContext } from './certificates.js'
import { type PrePrepare, signPrepare, signPrePrepare, signRoundChange } from './messages.js'
import { quorumSize, selectProposer } from './proposer.js'
import { HeightRounds } from './roundState.js'
import { signCommittedSeal, verifyCommittedSeals } from './seal.js'
import { FakeBackend, fakeBlock, makeEngine, ManualTimers, SIGNERS, settle, TEST_BLOCK_MS, VALIDATORS } from './testing.js'

const hex = (a: Uint8Array) => bytesToHex(a)
const POWERS = [3n, 1n, 1n, 1n] // P = 6: quorum 5, weak quorum 2

describe('HeightContext rules', () => {
  it('with unit powers is the unweighted rule for every n (quorum, weak quorum)', () => {
    for (let n = 1; n <= 13; n++) {
      const vs = Array.from({ length: n }, (_, i) => new Uint8Array(20).fill(i + 1))
      const ctx = new HeightContext(5n, vs, null, vs.map(() => 1n))
      expect(ctx.quorumPower).toBe(BigInt(quorumSize(n)))
      expect(ctx.weakQuorumPower).toBe(BigInt(Math.floor((n - 1) / 3) + 1))
      const plain = new HeightContext(5n, vs, null)
      expect(plain.quorumPower).toBe(ctx.quorumPower)
      const keys = vs.map(hex)
      expect(plain.hasQuorum(keys.slice(0, quorumSize(n)))).toBe(true)
      expect(plain.hasQuorum(keys.slice(0, quorumSize(n) - 1))).toBe(false)
    }
  })

  it('spans off: the proposer is the last-proposer rotation of before', () => {
    const ctx = new HeightContext(9n, VALIDATORS, VALIDATORS[2] as Uint8Array)
    for (let r = 0n; r < 8n; r++) expect(ctx.proposer(r)).toBe(hex(selectProposer(VALIDATORS, VALIDATORS[2], r)))
  })

  it('weighted: quorum is more than 2/3 of the power, not of the heads', () => {
    const ctx = new HeightContext(7n, VALIDATORS, null, POWERS)
    const [a, b, c, d] = VALIDATORS.map(hex) as [string, string, string, string]
    expect(ctx.totalPower).toBe(6n)
    expect(ctx.quorumPower).toBe(5n)
    expect(ctx.hasQuorum([a, b, c])).toBe(true) // 5 of 6
    expect(ctx.hasQuorum([a, b])).toBe(false) // 4 of 6 = 2/3 exactly: not more
    expect(ctx.hasQuorum([b, c, d])).toBe(false) // three of four heads, 3 of 6
    expect(ctx.hasQuorum([a, a, a, b])).toBe(false) // duplicates count once
    expect(ctx.hasQuorum([a, b, '0x00000000000000000000000000000000000000ff'])).toBe(false)
    expect(ctx.weakQuorumPower).toBe(2n)
  })

  it('weighted: each member proposes `power` consecutive slots, slot = (height + round) mod P', () => {
    const seq = (h: bigint) => [0n, 1n, 2n, 3n, 4n, 5n, 6n].map((r) => new HeightContext(h, VALIDATORS, null, POWERS).proposer(r))
    const [a, b, c, d] = VALIDATORS.map(hex)
    expect(seq(0n)).toEqual([a, a, a, b, c, d, a])
    expect(seq(7n)).toEqual([a, a, b, c, d, a, a]) // 7 mod 6 = slot 1
    // over P consecutive heights at round 0 the heavy member proposes 3 times
    const round0 = [12n, 13n, 14n, 15n, 16n, 17n].map((h) => new HeightContext(h, VALIDATORS, null, POWERS).proposer(0n))
    expect(round0.filter((p) => p === a)).toHaveLength(3)
  })

  it('refuses mismatched or non-positive powers', () => {
    expect(() => new HeightContext(1n, VALIDATORS, null, [1n])).toThrow(RangeError)
    expect(() => new HeightContext(1n, VALIDATORS, null, [1n, 0n, 1n, 1n])).toThrow(RangeError)
  })
})

describe('weighted certificates, round jump and seals', () => {
  const H = 7n
  const ctx = new HeightContext(H, VALIDATORS, null, POWERS)
  const block = fakeBlock(H, 'w')
  const proposer = SIGNERS.findIndex((s) => hex(s.address) === ctx.proposer(0n))
  const pp = signPrePrepare(SIGNERS[proposer] as (typeof SIGNERS)[number], H, 0n, block, [])
  const stripped: PrePrepare = { ...pp, proposal: new Uint8Array(0) }
  const prepare = (i: number) => signPrepare(SIGNERS[i] as (typeof SIGNERS)[number], H, 0n, pp.digest)

  it('a PC needs PREPAREs holding > 2/3 of the power', () => {
    expect(() => checkPreparedCertificate(ctx, { proposal: stripped, prepares: [0, 1, 2].map(prepare) })).not.toThrow()
    expect(() => checkPreparedCertificate(ctx, { proposal: stripped, prepares: [1, 2, 3].map(prepare) })).toThrow(/power 3/)
    // unweighted, three of four heads are a quorum
    const plain = new HeightContext(H, VALIDATORS, null)
    const pp2 = signPrePrepare(SIGNERS.find((s) => hex(s.address) === plain.proposer(0n)) as (typeof SIGNERS)[number], H, 0n, block, [])
    expect(() =>
      checkPreparedCertificate(plain, { proposal: { ...pp2, proposal: new Uint8Array(0) }, prepares: [1, 2, 3].map(prepare) }),
    ).not.toThrow()
  })

  it('the f+1 round jump counts power: the heavy member alone is enough (3 ≥ 2), one light member is not', () => {
    const rounds = new HeightRounds(32)
    const rc = (i: number, r: bigint) => signRoundChange(SIGNERS[i] as (typeof SIGNERS)[number], H, r, undefined)
    rounds.at(4n).roundChanges.set(hex(VALIDATORS[1] as Uint8Array), rc(1, 4n))
    expect(rounds.jumpTarget(0n, ctx.weakQuorumPower, (s) => ctx.powerOf(s))).toBeUndefined()
    expect(rounds.jumpTarget(0n, 2n)).toBeUndefined() // unweighted: one head of f+1 = 2
    rounds.at(2n).roundChanges.set(hex(VALIDATORS[0] as Uint8Array), rc(0, 2n))
    expect(rounds.jumpTarget(0n, ctx.weakQuorumPower, (s) => ctx.powerOf(s))).toBe(2n)
    expect(rounds.jumpTarget(0n, 2n)).toBe(2n)
    const heavyOnly = new HeightRounds(32)
    heavyOnly.at(3n).roundChanges.set(hex(VALIDATORS[0] as Uint8Array), rc(0, 3n))
    expect(heavyOnly.jumpTarget(0n, ctx.weakQuorumPower, (s) => ctx.powerOf(s))).toBe(3n)
    expect(heavyOnly.jumpTarget(0n, 2n)).toBeUndefined()
  })

  it('committed seals are counted by power', () => {
    const seals = (ids: number[]) => ids.map((i) => signCommittedSeal(pp.digest, 0n, SIGNERS[i]?.key as Uint8Array))
    expect(verifyCommittedSeals(pp.digest, 0n, seals([0, 3, 1]), VALIDATORS, POWERS)).toHaveLength(3)
    expect(() => verifyCommittedSeals(pp.digest, 0n, seals([1, 2, 3]), VALIDATORS, POWERS)).toThrow(/power 3 of 6/)
    expect(() => verifyCommittedSeals(pp.digest, 0n, seals([0, 1]), VALIDATORS, POWERS)).toThrow(/power 4 of 6/)
    expect(verifyCommittedSeals(pp.digest, 0n, seals([1, 2, 3]), VALIDATORS)).toHaveLength(3)
  })
})

describe('weighted engines in a simulated network', () => {
  class WeightedBackend extends FakeBackend {
    override context(height: bigint): HeightContext {
      return new HeightContext(height, VALIDATORS, null, POWERS)
    }
  }
  function run(live: number[]) {
    const timers = new ManualTimers()
    const nodes = live.map((i) => {
      const backend = new WeightedBackend()
      backend.tag = `by-${i}`
      return { i, ...makeEngine(i, timers, backend) }
    })
    const queue: { from: number; wire: Uint8Array }[] = []
    for (const n of nodes) n.backend.broadcast = (wire) => queue.push({ from: n.i, wire })
    const pump = async () => {
      for (let guard = 0; guard < 5000; guard++) {
        await settle()
        const next = queue.shift()
        if (next === undefined) return
        for (const n of nodes) if (n.i !== next.from) n.engine.receive(next.wire)
      }
    }
    return { timers, nodes, pump }
  }

  it('the heavy member and two light ones decide; the three light ones alone never do', async () => {
    const ok = run([0, 1, 2])
    for (const n of ok.nodes) n.engine.start(7n)
    ok.timers.advance(TEST_BLOCK_MS)
    await ok.pump()
    // height 7's round-0 proposer is slot 7 mod 6 = 1 → the heavy member (slots 0-2)
    const decided = ok.nodes.flatMap((n) => n.backend.finalized)
    expect(decided.length).toBe(3)
    expect(new Set(decided.map((f) => hex(f.digest))).size).toBe(1)

    const stuck = run([1, 2, 3])
    for (const n of stuck.nodes) n.engine.start(7n)
    for (let k = 0; k < 6; k++) {
      stuck.timers.advance(20_000)
      await stuck.pump()
    }
    expect(stuck.nodes.flatMap((n) => n.backend.finalized)).toEqual([])
  })
})

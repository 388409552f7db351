/**
 * The IBFT engine driven by scripted messages: one engine under test, the other three
 * validators played by the script (SIGNERS[i] signs what validator i would send).
 */
import { describe, expect, it } from 'vitest'

import { checkPreparedCertificate, HeightContext } from './certificates.js'
import {
  decodeMessage,
  encodeMessage,
  type IbftMessage,
  MessageCode,
  type PrePrepare,
  signCommit,
  signPrepare,
  signPrePrepare,
  signRoundChange,
} from './messages.js'
import { recoverCommittedSeal, signCommittedSeal } from './seal.js'
import { fakeBlock, hex, makeEngine, SIGNERS, settle, TEST_BASE_MS, TEST_BLOCK_MS, VALIDATORS } from './testing.js'

const [v0, v1, v2, v3] = SIGNERS as [(typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0]]
const H = 1n
const ctx = new HeightContext(H, VALIDATORS, null)

function sentBy(backend: { sent: Uint8Array[] }): IbftMessage[] {
  return backend.sent.map(decodeMessage)
}
function ofCode<C extends MessageCode>(msgs: IbftMessage[], code: C): Extract<IbftMessage, { code: C }>[] {
  return msgs.filter((m) => m.code === code) as Extract<IbftMessage, { code: C }>[]
}
const wire = (m: IbftMessage) => encodeMessage(m)
const commitOf = (s: typeof v0, round: bigint, digest: Uint8Array) =>
  signCommit(s, H, round, digest, signCommittedSeal(digest, round, s.key))

describe('IbftEngine, one height', () => {
  it('validator: PREPREPARE ─▶ PREPARE ─▶ quorum ─▶ COMMIT ─▶ quorum ─▶ final with ≥ q seals', async () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    expect(engine.state).toBe('new-round')
    const pp = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    engine.receive(wire(pp))
    await settle()
    expect(backend.verified).toEqual([hex(v0.address)])
    expect(engine.state).toBe('prepare')
    expect(ofCode(sentBy(backend), MessageCode.PREPARE).map((p) => hex(p.digest))).toEqual([hex(pp.digest)])

    engine.receive(wire(signPrepare(v0, H, 0n, pp.digest)))
    expect(engine.state).toBe('prepare') // own + v0 = 2 < 3
    engine.receive(wire(signPrepare(v2, H, 0n, pp.digest)))
    expect(engine.state).toBe('commit')
    const [commit] = ofCode(sentBy(backend), MessageCode.COMMIT)
    expect(hex(recoverCommittedSeal(pp.digest, 0n, commit?.seal as Uint8Array))).toBe(hex(v1.address))

    engine.receive(wire(commitOf(v3, 0n, pp.digest)))
    expect(backend.finalized).toHaveLength(0)
    engine.receive(wire(commitOf(v0, 0n, pp.digest)))
    expect(engine.state).toBe('final')
    const [final] = backend.finalized
    expect(final?.round).toBe(0n)
    expect(hex(final?.digest as Uint8Array)).toBe(hex(pp.digest))
    // in validator order: v0, v1 (own), v3
    expect(final?.committedSeals.map((s) => hex(recoverCommittedSeal(pp.digest, 0n, s)))).toEqual(
      [v0, v1, v3].map((s) => hex(s.address)),
    )
  })

  it('proposer: builds at parent time + block time and proposes; its own PREPARE counts', async () => {
    const { engine, backend, timers } = makeEngine(0)
    engine.start(H)
    timers.advance(0)
    await settle()
    const [pp] = ofCode(sentBy(backend), MessageCode.PREPREPARE)
    expect(pp?.round).toBe(0n)
    expect(pp?.rcc).toEqual([])
    expect(engine.state).toBe('prepare')
    expect(backend.verified).toEqual([]) // its own block is not re-verified
    engine.receive(wire(signPrepare(v1, H, 0n, (pp as PrePrepare).digest)))
    engine.receive(wire(signPrepare(v2, H, 0n, (pp as PrePrepare).digest)))
    expect(engine.state).toBe('commit')
  })

  it('resend() repeats what it said at this height (for a validator that joins late), nothing after a new height', async () => {
    const { engine, backend, timers } = makeEngine(0)
    engine.start(H)
    timers.advance(0)
    await settle()
    const said = backend.sent.length // PREPREPARE + PREPARE
    expect(said).toBe(2)
    engine.resend()
    expect(backend.sent.slice(said)).toEqual(backend.sent.slice(0, said))
    engine.onNewHead(H)
    const before = backend.sent.length
    engine.resend()
    expect(backend.sent.length).toBe(before)
  })

  it('ignores a PREPREPARE from a validator that is not the round proposer, and an invalid block', async () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    engine.receive(wire(signPrePrepare(v2, H, 0n, fakeBlock(H, 'A'), [])))
    await settle()
    expect(backend.verified).toEqual([])
    backend.accept = () => false
    engine.receive(wire(signPrePrepare(v0, H, 0n, fakeBlock(H, 'B'), [])))
    await settle()
    expect(engine.state).toBe('new-round')
    expect(ofCode(sentBy(backend), MessageCode.PREPARE)).toEqual([])
  })

  it('round timeout: ROUND_CHANGE to round 1 after base + block time; the round-1 proposer needs a quorum of them', async () => {
    const { engine, backend, timers } = makeEngine(1)
    engine.start(H)
    timers.advance(TEST_BASE_MS + TEST_BLOCK_MS - 1)
    expect(engine.round).toBe(0n)
    timers.advance(1)
    expect(engine.round).toBe(1n)
    const [rc] = ofCode(sentBy(backend), MessageCode.ROUND_CHANGE)
    expect(rc?.round).toBe(1n)
    expect(rc?.certificate).toBeUndefined()
    // v1 proposes round 1 (validators[(−1 + 1 + 1) mod 4])
    engine.receive(wire(signRoundChange(v2, H, 1n, undefined)))
    await settle()
    expect(ofCode(sentBy(backend), MessageCode.PREPREPARE)).toEqual([])
    engine.receive(wire(signRoundChange(v3, H, 1n, undefined)))
    await settle()
    const [pp] = ofCode(sentBy(backend), MessageCode.PREPREPARE)
    expect(pp?.round).toBe(1n)
    expect(new Set(pp?.rcc.map((r) => r.senderHex))).toEqual(new Set([v1, v2, v3].map((s) => hex(s.address))))
    // the next timeout doubles: base·2 + block time
    timers.advance(2 * TEST_BASE_MS + TEST_BLOCK_MS)
    expect(engine.round).toBe(2n)
  })

  it('re-proposes the block of the highest prepared certificate, and carries its PC in ROUND_CHANGE', async () => {
    const { engine, backend, timers } = makeEngine(1)
    engine.start(H)
    const ppA = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    engine.receive(wire(ppA))
    await settle()
    engine.receive(wire(signPrepare(v0, H, 0n, ppA.digest)))
    engine.receive(wire(signPrepare(v3, H, 0n, ppA.digest)))
    expect(engine.state).toBe('commit') // prepared A, but the commits never come
    timers.advance(TEST_BASE_MS + TEST_BLOCK_MS)
    const [rc] = ofCode(sentBy(backend), MessageCode.ROUND_CHANGE)
    expect(rc?.preparedRound).toBe(0n)
    expect(hex(rc?.preparedDigest as Uint8Array)).toBe(hex(ppA.digest))
    expect(() => checkPreparedCertificate(ctx, rc?.certificate as never)).not.toThrow()
    backend.tag = 'B' // a fresh build would make another block
    engine.receive(wire(signRoundChange(v2, H, 1n, undefined)))
    engine.receive(wire(signRoundChange(v3, H, 1n, undefined)))
    await settle()
    const [pp] = ofCode(sentBy(backend), MessageCode.PREPREPARE)
    expect(hex(pp?.digest as Uint8Array)).toBe(hex(ppA.digest))
  })

  it('rejects a round-1 PREPREPARE that ignores the prepared block in its certificate', async () => {
    const { engine, backend, timers } = makeEngine(3)
    engine.start(H)
    timers.advance(TEST_BASE_MS + TEST_BLOCK_MS) // v3 moves to round 1 too
    const ppA = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    const pc = {
      certificate: {
        proposal: { ...ppA, proposal: new Uint8Array(0), rcc: [] },
        prepares: [v0, v1, v2].map((s) => signPrepare(s, H, 0n, ppA.digest)),
      },
      proposal: ppA.proposal,
    }
    const rcc = [
      signRoundChange(v0, H, 1n, pc),
      signRoundChange(v1, H, 1n, undefined),
      signRoundChange(v2, H, 1n, undefined),
    ]
    engine.receive(wire(signPrePrepare(v1, H, 1n, fakeBlock(H, 'B'), rcc)))
    await settle()
    expect(backend.verified).toEqual([])
    engine.receive(wire(signPrePrepare(v1, H, 1n, ppA.proposal, rcc)))
    await settle()
    expect(backend.verified).toEqual(['reproposal'])
    expect(engine.state).toBe('prepare')
  })

  it('buffers messages of the next height and drops those of past heights', async () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    engine.receive(wire(signPrePrepare(v0, H + 1n, 0n, fakeBlock(H + 1n, 'next'), [])))
    await settle()
    expect(backend.verified).toEqual([])
    engine.onNewHead(H) // block H arrived by sync: the sequence of H is cancelled
    expect(engine.height).toBe(H + 1n)
    await settle()
    expect(backend.verified).toEqual([hex(v0.address)]) // v0 is the block-H+1 round-0 proposer here (no last proposer)
    expect(engine.state).toBe('prepare')
    engine.receive(wire(signPrePrepare(v0, H, 0n, fakeBlock(H, 'old'), [])))
    await settle()
    expect(backend.verified).toHaveLength(1)
  })

  it('keeps PREPAREs of a future round: they count once the round’s proposal arrives', async () => {
    const { engine, backend } = makeEngine(3)
    engine.start(H)
    const block = fakeBlock(H, 'R1')
    const rcc = [v0, v1, v2].map((s) => signRoundChange(s, H, 1n, undefined))
    const pp = signPrePrepare(v1, H, 1n, block, rcc)
    for (const s of [v0, v2]) engine.receive(wire(signPrepare(s, H, 1n, pp.digest)))
    expect(engine.round).toBe(0n)
    engine.receive(wire(pp)) // a valid RCC for round 1: follow it
    await settle()
    expect(engine.round).toBe(1n)
    expect(engine.state).toBe('commit') // own PREPARE + the two kept ones
    expect(ofCode(sentBy(backend), MessageCode.COMMIT).map((c) => c.round)).toEqual([1n])
  })

  it('f+1 ROUND_CHANGEs for higher rounds pull a validator up to the lowest of them', () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    engine.receive(wire(signRoundChange(v2, H, 3n, undefined)))
    expect(engine.round).toBe(0n)
    engine.receive(wire(signRoundChange(v3, H, 5n, undefined)))
    expect(engine.round).toBe(3n)
    expect(ofCode(sentBy(backend), MessageCode.ROUND_CHANGE).map((r) => r.round)).toEqual([3n])
  })

  it('an equivocating proposer: only the first of two proposals is prepared, the second never gets this vote', async () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    const ppA = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    const ppB = signPrePrepare(v0, H, 0n, fakeBlock(H, 'B'), [])
    engine.receive(wire(ppA))
    engine.receive(wire(ppB))
    await settle()
    expect(backend.verified).toHaveLength(1)
    for (const s of [v0, v2, v3]) engine.receive(wire(signPrepare(s, H, 0n, ppB.digest)))
    for (const s of [v0, v2, v3]) engine.receive(wire(commitOf(s, 0n, ppB.digest)))
    engine.receive(wire(signPrepare(v0, H, 0n, ppA.digest)))
    await settle()
    const sent = sentBy(backend)
    expect(ofCode(sent, MessageCode.PREPARE).map((p) => hex(p.digest))).toEqual([hex(ppA.digest)])
    expect(ofCode(sent, MessageCode.COMMIT)).toEqual([]) // A has 2 prepares, B was never accepted here
    expect(backend.finalized).toEqual([])
  })

  it('drops COMMITs whose seal is not the sender’s, and messages from outside the validator set', async () => {
    const { engine, backend } = makeEngine(1)
    engine.start(H)
    const pp = signPrePrepare(v0, H, 0n, fakeBlock(H, 'A'), [])
    engine.receive(wire(pp))
    await settle()
    for (const s of [v0, v2]) engine.receive(wire(signPrepare(s, H, 0n, pp.digest)))
    const forged = signCommit(v2, H, 0n, pp.digest, signCommittedSeal(pp.digest, 0n, v3.key))
    engine.receive(wire(forged))
    const outsider = { key: new Uint8Array(32).fill(7), address: new Uint8Array(20) }
    outsider.address = (await import('./seal.js')).privateKeyToAddress(outsider.key)
    engine.receive(wire(commitOf(outsider, 0n, pp.digest)))
    engine.receive(wire(commitOf(v0, 0n, pp.digest)))
    expect(backend.finalized).toEqual([]) // own + v0 only
    engine.receive(wire(commitOf(v2, 0n, pp.digest)))
    expect(backend.finalized).toHaveLength(1)
  })
})

/**
 * The IBFT message wire format: round trips, authentication, and what a relay cannot change.
 */
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'

import { checkRoundChangeCertificate, HeightContext } from './certificates.js'
import { IbftMessageError } from './errors.js'
import {
  decodeMessage,
  encodeMessage,
  IBFT_MAX_MESSAGE_BYTES,
  type PrePrepare,
  proposalDigest,
  type RoundChange,
  signCommit,
  signPrepare,
  signPrePrepare,
  signRoundChange,
} from './messages.js'
import { signCommittedSeal } from './seal.js'
import { fakeBlock, hex, SIGNERS, VALIDATORS } from './testing.js'

const [v0, v1, v2, v3] = SIGNERS as [(typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0], (typeof SIGNERS)[0]]
const ctx = new HeightContext(7n, VALIDATORS, null)

function reasonOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    if (err instanceof IbftMessageError) return err.reason
    throw err
  }
  return undefined
}

/** A ROUND_CHANGE to `round` from `s` carrying a PC of block A prepared in round 0 by v0, v1, v2. */
function preparedRoundChange(s: typeof v0, round: bigint): { rc: RoundChange; pp: PrePrepare } {
  const pp = signPrePrepare(v0, 7n, 0n, fakeBlock(7n, 'A'), [])
  const certificate = {
    proposal: { ...pp, proposal: new Uint8Array(0), rcc: [] },
    prepares: [v0, v1, v2].map((p) => signPrepare(p, 7n, 0n, pp.digest)),
  }
  return { rc: signRoundChange(s, 7n, round, { certificate, proposal: pp.proposal }), pp }
}

describe('IBFT messages', () => {
  it('every kind round-trips with its sender recovered', () => {
    const pp = signPrePrepare(v0, 7n, 0n, fakeBlock(7n, 'A'), [])
    const msgs = [
      pp,
      signPrepare(v1, 7n, 0n, pp.digest),
      signCommit(v2, 7n, 3n, pp.digest, signCommittedSeal(pp.digest, 3n, v2.key)),
      signRoundChange(v3, 7n, 1n, undefined),
      preparedRoundChange(v3, 2n).rc,
    ]
    for (const m of msgs) {
      const back = decodeMessage(encodeMessage(m))
      expect(back.code).toBe(m.code)
      expect([back.height, back.round]).toEqual([m.height, m.round])
      expect(back.senderHex).toBe(m.senderHex)
      expect(encodeMessage(back)).toEqual(encodeMessage(m))
    }
    expect(hex((decodeMessage(encodeMessage(pp)) as PrePrepare).digest)).toBe(hex(proposalDigest(pp.proposal)))
  })

  it('a PREPREPARE whose block does not hash to its digest is rejected', () => {
    const pp = signPrePrepare(v0, 7n, 0n, fakeBlock(7n, 'A'), [])
    const swapped = { ...pp, proposal: fakeBlock(7n, 'B') }
    expect(reasonOf(() => decodeMessage(encodeMessage(swapped)))).toBe('bad-proposal')
  })

  it('a changed body no longer recovers to the sender; garbage is bad-rlp; oversize is refused', () => {
    const p = signPrepare(v1, 7n, 0n, new Uint8Array(32).fill(1))
    const item = RLP.decode(encodeMessage(p)) as unknown as [Uint8Array[], Uint8Array, Uint8Array, unknown[]]
    item[0][2] = Uint8Array.of(5) // round 0 → 5
    const tampered = decodeMessage(RLP.encode(item as never))
    expect(tampered.senderHex).not.toBe(hex(v1.address))
    expect(reasonOf(() => decodeMessage(Uint8Array.of(0xc0)))).toBe('bad-rlp')
    expect(reasonOf(() => decodeMessage(new Uint8Array(IBFT_MAX_MESSAGE_BYTES + 1)))).toBe('too-large')
  })

  it('a relay cannot strip the prepared certificate off a ROUND_CHANGE', () => {
    const { rc } = preparedRoundChange(v3, 1n)
    const item = RLP.decode(encodeMessage(rc)) as unknown as unknown[]
    item[3] = []
    item[2] = new Uint8Array(0)
    expect(reasonOf(() => decodeMessage(RLP.encode(item as never)))).toBe('bad-certificate')
  })

  it('a round-change certificate needs a quorum of distinct validators and names the highest PC', () => {
    const plain = [v1, v2].map((s) => signRoundChange(s, 7n, 1n, undefined))
    expect(reasonOf(() => checkRoundChangeCertificate(ctx, 1n, plain))).toBe('bad-certificate')
    expect(reasonOf(() => checkRoundChangeCertificate(ctx, 1n, [...plain, plain[0] as RoundChange]))).toBe(
      'bad-certificate',
    )
    const { rc, pp } = preparedRoundChange(v3, 1n)
    const highest = checkRoundChangeCertificate(ctx, 1n, [...plain, rc])
    expect(hex(highest?.preparedDigest as Uint8Array)).toBe(hex(pp.digest))
  })

  it('a prepared certificate with too few PREPAREs, or from the wrong proposer, proves nothing', () => {
    const pp = signPrePrepare(v0, 7n, 0n, fakeBlock(7n, 'A'), [])
    const weak = {
      certificate: {
        proposal: { ...pp, proposal: new Uint8Array(0), rcc: [] },
        prepares: [v0, v1].map((s) => signPrepare(s, 7n, 0n, pp.digest)),
      },
      proposal: pp.proposal,
    }
    const rcc = [
      signRoundChange(v1, 7n, 1n, undefined),
      signRoundChange(v2, 7n, 1n, undefined),
      signRoundChange(v3, 7n, 1n, weak),
    ]
    expect(reasonOf(() => checkRoundChangeCertificate(ctx, 1n, rcc))).toBe('bad-certificate')
    const byV1 = signPrePrepare(v1, 7n, 0n, fakeBlock(7n, 'A'), [])
    const wrong = {
      certificate: {
        proposal: { ...byV1, proposal: new Uint8Array(0), rcc: [] },
        prepares: [v0, v1, v2].map((s) => signPrepare(s, 7n, 0n, byV1.digest)),
      },
      proposal: byV1.proposal,
    }
    const rcc2 = [
      signRoundChange(v1, 7n, 1n, undefined),
      signRoundChange(v2, 7n, 1n, undefined),
      signRoundChange(v3, 7n, 1n, wrong),
    ]
    expect(reasonOf(() => checkRoundChangeCertificate(ctx, 1n, rcc2))).toBe('bad-certificate')
  })
})

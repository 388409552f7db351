/**
 * Span records: a switch signed by validators holding > 2/3 of the power at the reference block is
 * accepted; short of it, signed by an outsider, out of order, for another span id, range or
 * reference hash, or with another committee than the draw, it is refused with its reason. And the
 * committee of every height follows the chain's span records alone.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { encodeExtra, type IbftExtra } from '../chain/ibft/extra.js'
import type { SpanRecord } from '../chain/ibft/span.js'
import { privateKeyToAddressBytes } from '../util/crypto.js'
import { committeeSigners, SpanCommittees, spanProposal, verifySpanRecord } from './committees.js'
import { consentDigest, signConsent, type SpanProposal } from './consent.js'
import { SpanConsentError } from './errors.js'
import type { ValidatorSet } from './set.js'
import { spanEnd, spanOf, spanStart, isSpanStart, referenceBlock } from './spans.js'

const KEYS = [1, 2, 3, 4, 5].map((i) => hexToBytes(`0x${i.toString(16).padStart(64, '0')}`))
const signerOf = (k: Uint8Array) => privateKeyToAddressBytes(k)
// powers 4, 3, 2, 1 over the first four keys, ascending by signer (the fifth key is an outsider)
const byAddr = KEYS.slice(0, 4).sort((x, y) => (bytesToHex(signerOf(x)) < bytesToHex(signerOf(y)) ? -1 : 1))
const SET: ValidatorSet = byAddr.map((k, i) => ({ seat: BigInt(51 + i), signer: signerOf(k), power: BigInt(4 - i) }))
const OUTSIDER = KEYS[4] as Uint8Array
const PARAMS = { spanBlocks: 10n, producers: 3 }
const CHAIN_ID = 7860n
const REF = new Uint8Array(32).fill(0x5a)
const HEIGHT = 20n // last block of span 1 carries span 2's record; R = block 11

function recordOf(p: SpanProposal, keys: Uint8Array[]): SpanRecord {
  const sorted = [...keys].sort((x, y) => (bytesToHex(signerOf(x)) < bytesToHex(signerOf(y)) ? -1 : 1))
  return {
    spanId: p.spanId,
    start: p.start,
    end: p.end,
    committee: p.committee,
    refBlockHash: p.refBlockHash,
    signatures: sorted.map((k) => signConsent(p, k)),
  }
}

const proposal = () => spanProposal(CHAIN_ID, PARAMS, 2n, REF, SET) as SpanProposal
const check = (record: SpanRecord, over: Partial<Parameters<typeof verifySpanRecord>[0]> = {}) =>
  verifySpanRecord({ chainId: CHAIN_ID, params: PARAMS, height: HEIGHT, record, refBlockHash: REF, set: SET, ...over })

function refused(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(SpanConsentError)
    return (err as SpanConsentError).reason
  }
  throw new Error('expected SpanConsentError')
}

describe('span arithmetic', () => {
  it('cuts blocks after genesis into spans of S', () => {
    expect([0n, 1n, 10n, 11n, 20n, 21n].map((h) => spanOf(h, 10n))).toEqual([0n, 0n, 0n, 1n, 1n, 2n])
    expect([spanStart(2n, 10n), spanEnd(2n, 10n), referenceBlock(2n, 10n), referenceBlock(1n, 10n)]).toEqual([21n, 30n, 11n, 1n])
    expect([1n, 11n, 12n, 21n].map((h) => isSpanStart(h, 10n))).toEqual([false, true, false, true])
    expect(() => referenceBlock(0n, 10n)).toThrow(RangeError)
  })
})

describe('verifySpanRecord', () => {
  it('accepts signers holding more than 2/3 of the power (4 + 3 of 10)', () => {
    const p = proposal()
    expect(p.start).toBe(21n)
    expect(p.end).toBe(30n)
    expect(() => check(recordOf(p, byAddr.slice(0, 2)))).not.toThrow()
    expect(() => check(recordOf(p, byAddr))).not.toThrow()
  })

  it('refuses consent of exactly 2/3 or less (4 + 2 of 10; 3 + 2 + 1 of 10)', () => {
    const p = proposal()
    expect(refused(() => check(recordOf(p, [byAddr[0] as Uint8Array, byAddr[2] as Uint8Array])))).toBe('insufficient-power')
    expect(refused(() => check(recordOf(p, byAddr.slice(1))))).toBe('insufficient-power')
    expect(refused(() => check(recordOf(p, [])))).toBe('insufficient-power')
  })

  it('refuses a signature by a non-validator, even beside a supermajority', () => {
    const p = proposal()
    expect(refused(() => check(recordOf(p, [...byAddr, OUTSIDER])))).toBe('not-a-validator')
  })

  it('refuses duplicated or unordered signatures and malformed ones', () => {
    const p = proposal()
    const r = recordOf(p, byAddr.slice(0, 2))
    expect(refused(() => check({ ...r, signatures: [...r.signatures].reverse() }))).toBe('unordered-signatures')
    expect(refused(() => check({ ...r, signatures: [r.signatures[0] as Uint8Array, r.signatures[0] as Uint8Array] }))).toBe(
      'unordered-signatures',
    )
    const bad = (r.signatures[0] as Uint8Array).slice()
    bad[64] = 5
    expect(refused(() => check({ ...r, signatures: [bad] }))).toBe('bad-signature')
  })

  it('refuses another span id, range or reference hash, and a committee that is not the draw', () => {
    const p = proposal()
    const r = recordOf(p, byAddr)
    expect(refused(() => check({ ...r, spanId: 3n }))).toBe('wrong-span')
    expect(refused(() => check({ ...r, end: 31n }))).toBe('wrong-span')
    expect(refused(() => check(r, { height: 21n }))).toBe('wrong-span')
    expect(refused(() => check(r, { height: 30n }))).toBe('wrong-span')
    expect(refused(() => check(r, { refBlockHash: new Uint8Array(32) }))).toBe('wrong-reference')
    // signatures over a different committee do not count for the drawn one
    const forged: SpanProposal = { ...p, committee: [{ signer: SET[3]?.signer as Uint8Array, power: 3n }] }
    expect(refused(() => check(recordOf(forged, byAddr)))).toBe('wrong-committee')
    // consent signed for another chain id does not verify here
    expect(refused(() => check(recordOf({ ...p, chainId: 1n }, byAddr)))).toBe('not-a-validator')
    expect(refused(() => check(r, { set: [] }))).toBe('empty-set')
  })

  it('signs keccak256(0x02 ‖ RLP(…)): the digest changes with every field', () => {
    const p = proposal()
    const d = bytesToHex(consentDigest(p))
    for (const q of [
      { ...p, chainId: 1n },
      { ...p, spanId: 3n },
      { ...p, start: 22n },
      { ...p, end: 31n },
      { ...p, refBlockHash: new Uint8Array(32) },
      { ...p, committee: p.committee.slice(1) },
    ])
      expect(bytesToHex(consentDigest(q))).not.toBe(d)
  })
})

describe('SpanCommittees', () => {
  const extraOf = (validators: Uint8Array[], span?: SpanRecord): Uint8Array => {
    const e: IbftExtra = {
      vanity: new Uint8Array(32),
      validators,
      proposerSeal: new Uint8Array(0),
      committedSeals: [],
      parentCommittedSeals: [],
      round: 0n,
    }
    if (span !== undefined) e.span = span
    return encodeExtra(e)
  }
  const genesis = [SET[0]?.signer, SET[1]?.signer] as Uint8Array[]

  it('span 0 is the genesis validators; a span without a record carries the committee on', () => {
    const p = proposal()
    const record = recordOf(p, byAddr)
    const headers = new Map<bigint, Uint8Array>([
      [0n, extraOf(genesis)],
      [10n, extraOf(genesis)], // last of span 0, no record: span 1 carries on
      [20n, extraOf(genesis, record)], // last of span 1 carries span 2's committee
      [30n, extraOf(committeeSigners(p.committee))], // no record: span 3 carries span 2's on
    ])
    const book = new SpanCommittees(PARAMS, { extraDataAt: (n) => headers.get(n) })
    expect(book.committeeAt(5n)).toEqual(genesis.map((signer) => ({ signer, power: 1n })))
    expect(book.committeeAt(15n)).toEqual(book.committeeAt(5n))
    expect(book.committeeAt(21n)).toEqual(p.committee)
    expect(book.committeeAt(40n)).toEqual(p.committee)
    expect(book.committeeAt(41n)).toBeUndefined()
    expect(book.committeeAt(20n)).toEqual(book.committeeAt(5n))
  })
})

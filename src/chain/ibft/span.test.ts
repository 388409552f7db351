/**
 * The span record in extraData: exact bytes, round trips, the block hash covering it, and the
 * refusals of malformed records. A header without one hashes exactly as before spans existed.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, concatBytes, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { IbftExtraError } from './errors.js'
import { blankedExtra, decodeExtra, encodeExtra, type IbftExtra } from './extra.js'
import { hashWithExtra } from './hash.js'
import { type SpanRecord, spanItem } from './span.js'

const fill = (len: number, byte: number) => new Uint8Array(len).fill(byte)
const vanity = fill(32, 0)

const span = (): SpanRecord => ({
  spanId: 3n,
  start: 31n,
  end: 40n,
  committee: [
    { signer: fill(20, 0x11), power: 2n },
    { signer: fill(20, 0x22), power: 1n },
  ],
  refBlockHash: fill(32, 0xab),
  signatures: [fill(65, 1), fill(65, 2)],
})

const base = (): IbftExtra => ({
  vanity,
  validators: [fill(20, 0x11), fill(20, 0x22)],
  proposerSeal: fill(65, 7),
  committedSeals: [fill(65, 8)],
  parentCommittedSeals: [fill(65, 9)],
  round: 1n,
})

function spanReason(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(IbftExtraError)
    expect((err as IbftExtraError).reason).toBe('bad-span')
    return (err as Error).message
  }
  throw new Error('expected bad-span')
}

describe('span record in extraData', () => {
  it('round-trips as the sixth field and is absent otherwise', () => {
    const withSpan = { ...base(), span: span() }
    const bytes = encodeExtra(withSpan)
    expect(decodeExtra(bytes)).toEqual(withSpan)
    expect('span' in decodeExtra(encodeExtra(base()))).toBe(false)
    expect((RLP.decode(bytes.subarray(32)) as unknown[]).length).toBe(6)
    expect((RLP.decode(encodeExtra(base()).subarray(32)) as unknown[]).length).toBe(5)
  })

  it('encodes the exact bytes RLP([spanId, start, end, [[signer, power]…], refBlockHash, [sig…]])', () => {
    const s: SpanRecord = {
      spanId: 0n,
      start: 1n,
      end: 0x100n,
      committee: [{ signer: fill(20, 0x11), power: 1n }],
      refBlockHash: fill(32, 0xab),
      signatures: [],
    }
    const expected = concatBytes(
      hexToBytes('0xf8'), // list, one length byte
      Uint8Array.of(1 + 1 + 3 + 24 + 33 + 1),
      hexToBytes('0x80'), // spanId 0 = empty string
      hexToBytes('0x01'), // start 1
      hexToBytes('0x820100'), // end 256
      hexToBytes('0xd7d694'), // [[0x94 ‖ signer, power]]: 22-byte pair in a 23-byte list
      fill(20, 0x11),
      hexToBytes('0x01'),
      hexToBytes('0xa0'),
      fill(32, 0xab),
      hexToBytes('0xc0'), // no signatures
    )
    expect(bytesToHex(RLP.encode(spanItem(s) as Parameters<typeof RLP.encode>[0]))).toBe(bytesToHex(expected))
  })

  it('is kept in the blanked form, so the block hash covers it (signatures included)', () => {
    const header = Array.from({ length: 16 }, (_, i) => fill(i === 12 ? 0 : 1, i))
    const withSpan = { ...base(), span: span() }
    const h = (e: IbftExtra) => bytesToHex(hashWithExtra(header, e))
    expect(h(withSpan)).not.toBe(h(base()))
    const otherSig = { ...base(), span: { ...span(), signatures: [fill(65, 1)] } }
    expect(h(otherSig)).not.toBe(h(withSpan))
    // seals and round still do not change it
    expect(h({ ...withSpan, committedSeals: [], round: 0n, proposerSeal: new Uint8Array(0) })).toBe(h(withSpan))
    expect(bytesToHex(blankedExtra(base()))).toBe(
      bytesToHex(concatBytes(vanity, RLP.encode([base().validators, new Uint8Array(0), [], base().parentCommittedSeals, new Uint8Array(0)]))),
    )
  })

  it('refuses malformed records with bad-span', () => {
    const enc = (item: unknown) =>
      concatBytes(
        vanity,
        RLP.encode([[], new Uint8Array(0), [], [], new Uint8Array(0), item] as Parameters<typeof RLP.encode>[0]),
      )
    const good = spanItem(span())
    const withField = (i: number, v: unknown) => good.map((f, j) => (j === i ? v : f))
    expect(spanReason(() => decodeExtra(enc(good.slice(0, 5))))).toContain('5 fields')
    expect(spanReason(() => decodeExtra(enc(withField(0, Uint8Array.of(0, 1)))))).toContain('leading zero')
    expect(spanReason(() => decodeExtra(enc(withField(1, fill(9, 1)))))).toContain('at most 8')
    expect(spanReason(() => decodeExtra(enc(withField(2, Uint8Array.of(1)))))).toContain('before its start')
    expect(spanReason(() => decodeExtra(enc(withField(3, []))))).toContain('empty')
    const unsorted = [
      [fill(20, 0x22), Uint8Array.of(1)],
      [fill(20, 0x11), Uint8Array.of(1)],
    ]
    expect(spanReason(() => decodeExtra(enc(withField(3, unsorted))))).toContain('ascending')
    const dup = [
      [fill(20, 0x11), Uint8Array.of(1)],
      [fill(20, 0x11), Uint8Array.of(1)],
    ]
    expect(spanReason(() => decodeExtra(enc(withField(3, dup))))).toContain('ascending')
    expect(spanReason(() => decodeExtra(enc(withField(3, [[fill(20, 0x11), new Uint8Array(0)]]))))).toContain('power 0')
    expect(spanReason(() => decodeExtra(enc(withField(3, [[fill(19, 0x11), Uint8Array.of(1)]]))))).toContain('19 bytes')
    expect(spanReason(() => decodeExtra(enc(withField(4, fill(31, 1)))))).toContain('refBlockHash')
    expect(spanReason(() => decodeExtra(enc(withField(5, [fill(64, 1)]))))).toContain('64 bytes')
    expect(() => encodeExtra({ ...base(), span: { ...span(), committee: [] } })).toThrow(IbftExtraError)
  })
})

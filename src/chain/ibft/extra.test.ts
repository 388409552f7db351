import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, bytesToUtf8, concatBytes, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { IbftError, IbftExtraError, type IbftExtraErrorReason } from './errors.js'
import {
  IBFT_MIX_HASH,
  type IbftExtra,
  MAX_ROUND,
  VANITY_BYTES,
  blankedExtra,
  decodeExtra,
  encodeExtra,
} from './extra.js'

const fill = (len: number, byte: number) => new Uint8Array(len).fill(byte)
const vanity = fill(32, 0xee)
const addr = (i: number) => fill(20, 0x10 + i)
const seal = (i: number) => fill(65, 0xa0 + i)

const sample = (): IbftExtra => ({
  vanity,
  validators: [addr(1), addr(2), addr(3), addr(4)],
  proposerSeal: seal(0),
  committedSeals: [seal(1), seal(2), seal(3)],
  parentCommittedSeals: [seal(4), seal(5)],
  round: 5n,
})

/** extraData whose RLP part is `items` encoded as is, to build malformed inputs. */
const rawExtra = (items: Parameters<typeof RLP.encode>[0]) => concatBytes(vanity, RLP.encode(items))

function expectReason(fn: () => unknown, reason: IbftExtraErrorReason): IbftExtraError {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(IbftExtraError)
    expect(err).toBeInstanceOf(IbftError)
    expect((err as IbftExtraError).reason).toBe(reason)
    return err as IbftExtraError
  }
  throw new Error(`expected IbftExtraError(${reason})`)
}

describe('encodeExtra / decodeExtra', () => {
  it('round-trips a sealed extraData byte for byte', () => {
    const bytes = encodeExtra(sample())
    const decoded = decodeExtra(bytes)
    expect(decoded).toEqual(sample())
    expect(bytesToHex(encodeExtra(decoded))).toBe(bytesToHex(bytes))
  })

  it('writes the round as 8 bytes big-endian, last in the list', () => {
    const bytes = encodeExtra({ ...sample(), round: 0x0102n })
    expect(bytesToHex(bytes.subarray(-9))).toBe('0x880000000000000102')
    expect(bytesToHex(encodeExtra({ ...sample(), round: 0n }).subarray(-9))).toBe('0x880000000000000000')
  })

  it('round-trips the extreme rounds and empty lists', () => {
    for (const round of [0n, 1n, MAX_ROUND]) {
      const extra: IbftExtra = {
        vanity,
        validators: [],
        proposerSeal: new Uint8Array(0),
        committedSeals: [],
        parentCommittedSeals: [],
        round,
      }
      expect(decodeExtra(encodeExtra(extra))).toEqual(extra)
    }
  })

  it('decodes the unsealed / blanked form with an empty seal and round 0', () => {
    const decoded = decodeExtra(blankedExtra(sample()))
    expect(decoded.proposerSeal.length).toBe(0)
    expect(decoded.committedSeals).toEqual([])
    expect(decoded.round).toBe(0n)
    expect(decoded.validators).toEqual(sample().validators)
    expect(decoded.parentCommittedSeals).toEqual(sample().parentCommittedSeals)
    expect(decoded.vanity).toEqual(vanity)
  })

  it('rejects a wrong vanity, a bad round or wrong lengths when encoding', () => {
    expectReason(() => encodeExtra({ ...sample(), vanity: fill(31, 0) }), 'bad-vanity')
    expectReason(() => encodeExtra({ ...sample(), round: -1n }), 'bad-round')
    expectReason(() => encodeExtra({ ...sample(), round: MAX_ROUND + 1n }), 'bad-round')
    expectReason(() => encodeExtra({ ...sample(), validators: [fill(21, 1)] }), 'bad-validator')
    expectReason(() => encodeExtra({ ...sample(), proposerSeal: fill(64, 1) }), 'bad-proposer-seal')
    expectReason(() => encodeExtra({ ...sample(), committedSeals: [fill(66, 1)] }), 'bad-committed-seal')
    expectReason(() => encodeExtra({ ...sample(), parentCommittedSeals: [fill(1, 1)] }), 'bad-parent-committed-seal')
  })
})

describe('decodeExtra rejects malformed input', () => {
  const ok = [[addr(1)], seal(0), [seal(1)], [seal(2)], fill(8, 0)]

  it('names a short extraData', () => {
    const err = expectReason(() => decodeExtra(fill(31, 0)), 'short-extra')
    expect(err.message).toContain('31 bytes')
  })

  it('rejects bad RLP: truncated, trailing bytes, non-canonical', () => {
    const good = rawExtra(ok)
    expectReason(() => decodeExtra(good.subarray(0, good.length - 1)), 'bad-rlp')
    expectReason(() => decodeExtra(concatBytes(good, Uint8Array.of(0x80))), 'bad-rlp')
    // 0x81 0x05: a single byte < 0x80 must not carry a prefix
    expectReason(() => decodeExtra(concatBytes(vanity, hexToBytes('0xc58105808080'))), 'bad-rlp')
  })

  it('rejects a byte string where a list is expected', () => {
    expectReason(() => decodeExtra(vanity), 'not-a-list')
    expectReason(() => decodeExtra(rawExtra(fill(10, 1))), 'not-a-list')
    expectReason(() => decodeExtra(rawExtra([addr(1), seal(0), [], [], fill(8, 0)])), 'not-a-list')
    expectReason(() => decodeExtra(rawExtra([[], seal(0), seal(1), [], fill(8, 0)])), 'not-a-list')
    expectReason(() => decodeExtra(rawExtra([[], seal(0), [], seal(1), fill(8, 0)])), 'not-a-list')
  })

  it('rejects a wrong field count', () => {
    const err = expectReason(() => decodeExtra(rawExtra(ok.slice(0, 4))), 'field-count')
    expect(err.message).toContain('4 fields')
    expectReason(() => decodeExtra(rawExtra([...ok, [], []])), 'field-count')
    // a sixth field is the span record, which must be a well-formed list
    expectReason(() => decodeExtra(rawExtra([...ok, fill(1, 0x80)])), 'bad-span')
  })

  it('rejects wrong sizes in each field', () => {
    const withField = (i: number, v: Parameters<typeof RLP.encode>[0]) => {
      const items = ok.slice()
      items[i] = v as never
      return rawExtra(items)
    }
    const err = expectReason(() => decodeExtra(withField(0, [addr(1), fill(19, 1)])), 'bad-validator')
    expect(err.message).toContain('validators[1] is 19 bytes')
    expectReason(() => decodeExtra(withField(0, [[addr(1)]])), 'bad-validator')
    expectReason(() => decodeExtra(withField(1, fill(64, 1))), 'bad-proposer-seal')
    expectReason(() => decodeExtra(withField(1, [seal(0)])), 'bad-proposer-seal')
    expectReason(() => decodeExtra(withField(2, [seal(1), fill(66, 1)])), 'bad-committed-seal')
    expectReason(() => decodeExtra(withField(3, [[seal(1)]])), 'bad-parent-committed-seal')
    expectReason(() => decodeExtra(withField(4, fill(7, 1))), 'bad-round')
    expectReason(() => decodeExtra(withField(4, fill(9, 1))), 'bad-round')
    expectReason(() => decodeExtra(withField(4, [])), 'bad-round')
  })
})

describe('blankedExtra', () => {
  it('writes proposerSeal and round as 0x80, committedSeals as 0xc0 (exact bytes)', () => {
    const a = addr(1)
    const bytes = blankedExtra({ ...sample(), validators: [a], parentCommittedSeals: [] })
    // list(26): [list(21): [0x94 ‖ addr], 0x80, 0xc0, 0xc0, 0x80]
    const expected = concatBytes(vanity, hexToBytes('0xdad594'), a, hexToBytes('0x80c0c080'))
    expect(bytesToHex(bytes)).toBe(bytesToHex(expected))
  })

  it('keeps parentCommittedSeals (exact bytes)', () => {
    const s = seal(9)
    const bytes = blankedExtra({ ...sample(), validators: [], parentCommittedSeals: [s] })
    // list(73): [0xc0, 0x80, 0xc0, list(67): [0xb841 ‖ seal], 0x80]
    const expected = concatBytes(vanity, hexToBytes('0xf849c080c0f843b841'), s, hexToBytes('0x80'))
    expect(bytesToHex(bytes)).toBe(bytesToHex(expected))
  })

  it('is the same before and after sealing', () => {
    const unsealed: IbftExtra = { ...sample(), proposerSeal: new Uint8Array(0), committedSeals: [], round: 0n }
    expect(blankedExtra(sample())).toEqual(blankedExtra(unsealed))
    expect(blankedExtra({ ...sample(), round: 9n })).toEqual(blankedExtra(unsealed))
    expect(blankedExtra(sample()).subarray(0, VANITY_BYTES)).toEqual(vanity)
  })
})

describe('IBFT_MIX_HASH', () => {
  it('is the 32-byte IBFT digest', () => {
    expect(IBFT_MIX_HASH.length).toBe(32)
    expect(bytesToHex(IBFT_MIX_HASH)).toBe('0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365')
    expect(bytesToUtf8(IBFT_MIX_HASH)).toBe('ctical byzantine fault tolerance')
  })
})

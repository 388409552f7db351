import { describe, expect, it } from 'vitest'
import { hexToBytes } from '../../util/hex.js'
import { optional } from './decoder.js'
import {
  Address,
  Bool,
  Data,
  FilterId,
  FloatArray,
  Hash,
  HexOrDecimal64,
  Quantity,
  StorageKey,
  stringParam,
  Uint,
  Uint64,
} from './scalars.js'
import { failure } from './testing.js'

const P = -32602

describe('Quantity (hexutil.Big)', () => {
  it('decodes', () => {
    expect(Quantity.decode('0x0')).toBe(0n)
    expect(Quantity.decode('0x1F')).toBe(31n)
    expect(Quantity.decode('0X10')).toBe(16n)
    expect(Quantity.decode('')).toBe(0n)
    expect(Quantity.decode(`0x${'f'.repeat(64)}`)).toBe((1n << 256n) - 1n)
  })

  it('fails with geth wording', () => {
    const t = 'into Go value of type *hexutil.Big'
    expect(failure(Quantity, '1')).toBe(`${P} json: cannot unmarshal hex string without 0x prefix ${t}`)
    expect(failure(Quantity, '0x')).toBe(`${P} json: cannot unmarshal hex string "0x" ${t}`)
    expect(failure(Quantity, '0x01')).toBe(`${P} json: cannot unmarshal hex number with leading zero digits ${t}`)
    expect(failure(Quantity, '0x00')).toBe(`${P} json: cannot unmarshal hex number with leading zero digits ${t}`)
    expect(failure(Quantity, '0xg')).toBe(`${P} json: cannot unmarshal invalid hex string ${t}`)
    expect(failure(Quantity, `0x1${'0'.repeat(64)}`)).toBe(`${P} json: cannot unmarshal hex number > 256 bits ${t}`)
    // length is checked before syntax
    expect(failure(Quantity, `0x${'z'.repeat(65)}`)).toBe(`${P} json: cannot unmarshal hex number > 256 bits ${t}`)
    expect(failure(Quantity, 1)).toBe(`${P} json: cannot unmarshal non-string ${t}`)
    expect(failure(Quantity, null)).toBe(`${P} json: cannot unmarshal non-string ${t}`)
    expect(failure(Quantity, {})).toBe(`${P} json: cannot unmarshal non-string ${t}`)
  })
})

describe('Uint64 / Uint', () => {
  it('decodes up to 64 bits', () => {
    expect(Uint64.decode('0x0')).toBe(0n)
    expect(Uint64.decode('0xffffffffffffffff')).toBe(2n ** 64n - 1n)
    expect(Uint64.decode('')).toBe(0n)
    expect(Uint.decode('0x2')).toBe(2n)
  })

  it('fails with geth wording', () => {
    const t = 'into Go value of type hexutil.Uint64'
    expect(failure(Uint64, '0x10000000000000000')).toBe(`${P} json: cannot unmarshal hex number > 64 bits ${t}`)
    expect(failure(Uint64, '12')).toBe(`${P} json: cannot unmarshal hex string without 0x prefix ${t}`)
    expect(failure(Uint64, '0x0g')).toBe(`${P} json: cannot unmarshal hex number with leading zero digits ${t}`)
    expect(failure(Uint64, '0xg')).toBe(`${P} json: cannot unmarshal invalid hex string ${t}`)
    expect(failure(Uint64, 12)).toBe(`${P} json: cannot unmarshal non-string ${t}`)
    expect(failure(Uint, 12)).toBe(`${P} json: cannot unmarshal non-string into Go value of type hexutil.Uint`)
  })
})

describe('Data (hexutil.Bytes)', () => {
  it('decodes', () => {
    expect(Data.decode('0x')).toEqual(new Uint8Array())
    expect(Data.decode('')).toEqual(new Uint8Array())
    expect(Data.decode('0xC0FFee')).toEqual(Uint8Array.of(0xc0, 0xff, 0xee))
  })

  it('fails with geth wording', () => {
    const t = 'into Go value of type hexutil.Bytes'
    expect(failure(Data, 'c0ffee')).toBe(`${P} json: cannot unmarshal hex string without 0x prefix ${t}`)
    expect(failure(Data, '0xabc')).toBe(`${P} json: cannot unmarshal hex string of odd length ${t}`)
    expect(failure(Data, '0xabcz')).toBe(`${P} json: cannot unmarshal invalid hex string ${t}`)
    expect(failure(Data, '0xabz')).toBe(`${P} json: cannot unmarshal hex string of odd length ${t}`)
    expect(failure(Data, null)).toBe(`${P} json: cannot unmarshal non-string ${t}`)
    expect(failure(Data, [])).toBe(`${P} json: cannot unmarshal non-string ${t}`)
  })
})

describe('Hash / Address', () => {
  const hash = `0x${'ab'.repeat(32)}`
  it('decodes', () => {
    expect(Hash.decode(hash)).toEqual(hexToBytes(hash))
    expect(Address.decode('0x52908400098527886E0F7030069857D2E4169EE7')).toBe(
      '0x52908400098527886e0f7030069857d2e4169ee7',
    )
  })

  it('fails with geth wording', () => {
    expect(failure(Address, '0x123')).toBe(
      `${P} json: cannot unmarshal hex string of odd length into Go value of type common.Address`,
    )
    expect(failure(Address, '0x1234')).toBe(`${P} hex string has length 4, want 40 for common.Address`)
    expect(failure(Address, '0x')).toBe(`${P} hex string has length 0, want 40 for common.Address`)
    expect(failure(Address, '')).toBe(`${P} hex string has length 0, want 40 for common.Address`)
    expect(failure(Address, '52908400098527886E0F7030069857D2E4169EE7')).toBe(
      `${P} json: cannot unmarshal hex string without 0x prefix into Go value of type common.Address`,
    )
    expect(failure(Address, `0x${'zz'.repeat(20)}`)).toBe(
      `${P} json: cannot unmarshal invalid hex string into Go value of type common.Address`,
    )
    expect(failure(Address, 5)).toBe(`${P} json: cannot unmarshal non-string into Go value of type common.Address`)
    expect(failure(Hash, '0xab')).toBe(`${P} hex string has length 2, want 64 for common.Hash`)
    expect(failure(Hash, null)).toBe(`${P} json: cannot unmarshal non-string into Go value of type common.Hash`)
  })
})

describe('Bool and strings', () => {
  it('decodes', () => {
    expect(Bool.decode(true)).toBe(true)
    expect(Bool.decode(false)).toBe(false)
    expect(Bool.decode(null)).toBe(false)
    expect(FilterId.decode('0x1')).toBe('0x1')
    expect(FilterId.decode(null)).toBe('')
  })

  it('fails with Go type errors', () => {
    expect(failure(Bool, 'true')).toBe(`${P} json: cannot unmarshal string into Go value of type bool`)
    expect(failure(Bool, 1)).toBe(`${P} json: cannot unmarshal number into Go value of type bool`)
    expect(failure(Bool, {})).toBe(`${P} json: cannot unmarshal object into Go value of type bool`)
    expect(failure(Bool, [])).toBe(`${P} json: cannot unmarshal array into Go value of type bool`)
    expect(failure(FilterId, 1)).toBe(`${P} json: cannot unmarshal number into Go value of type rpc.ID`)
    expect(failure(stringParam('string'), true)).toBe(`${P} json: cannot unmarshal bool into Go value of type string`)
  })
})

describe('StorageKey', () => {
  it('left-pads up to 32 bytes, prefix and even length optional', () => {
    const key = (n: number): Uint8Array => {
      const out = new Uint8Array(32)
      out[31] = n
      return out
    }
    expect(StorageKey.decode('0x0')).toEqual(key(0))
    expect(StorageKey.decode('0x1')).toEqual(key(1))
    expect(StorageKey.decode('2')).toEqual(key(2))
    expect(StorageKey.decode('0x0000000000000000000000000000000000000000000000000000000000000003')).toEqual(key(3))
    expect(StorageKey.decode(null)).toEqual(key(0))
  })

  it('fails as geth does inside the handler (-32602, quoted input, no argument prefix)', () => {
    // execution-apis eth_getStorageAt/get-storage-invalid-key
    expect(failure(StorageKey, '0xasdf')).toBe('-32602 invalid hex in storage key: "0xasdf"')
    expect(failure(StorageKey, `0x${'00'.repeat(33)}`)).toBe(
      `-32602 storage key too long (want at most 32 bytes): "0x${'00'.repeat(33)}"`,
    )
    expect(failure(StorageKey, 1)).toBe(`${P} json: cannot unmarshal number into Go value of type string`)
  })
})

describe('HexOrDecimal64 / FloatArray', () => {
  it('decodes', () => {
    expect(HexOrDecimal64.decode('0x10')).toBe(16n)
    expect(HexOrDecimal64.decode('10')).toBe(10n)
    expect(HexOrDecimal64.decode(10)).toBe(10n)
    expect(HexOrDecimal64.decode('')).toBe(0n)
    expect(FloatArray.decode([25, 50.5, null])).toEqual([25, 50.5, 0])
    expect(FloatArray.decode(null)).toEqual([])
  })

  it('fails with geth wording', () => {
    expect(failure(HexOrDecimal64, 'abc')).toBe(`${P} invalid hex or decimal integer "abc"`)
    expect(failure(HexOrDecimal64, '0x')).toBe(`${P} invalid hex or decimal integer "0x"`)
    expect(failure(HexOrDecimal64, -1)).toBe(`${P} invalid hex or decimal integer "-1"`)
    expect(failure(HexOrDecimal64, null)).toBe(`${P} invalid hex or decimal integer "null"`)
    expect(failure(HexOrDecimal64, '18446744073709551616')).toBe(
      `${P} invalid hex or decimal integer "18446744073709551616"`,
    )
    expect(failure(FloatArray, '25')).toBe(`${P} json: cannot unmarshal string into Go value of type []float64`)
    expect(failure(FloatArray, [1, '2', true])).toBe(`${P} json: cannot unmarshal string into Go value of type float64`)
  })
})

describe('optional', () => {
  it('marks the decoder optional with its default, decoding present values the same', () => {
    const d = optional(Quantity, 7n)
    expect(d.optional).toBe(true)
    expect(d.defaultValue).toBe(7n)
    expect(d.decode('0x1')).toBe(1n)
    expect(failure(d, 'x')).toBe(
      `${P} json: cannot unmarshal hex string without 0x prefix into Go value of type *hexutil.Big`,
    )
    expect(Quantity.optional).toBe(false)
  })
})

import { describe, expect, it } from 'vitest'
import { hexToBytes } from '../../util/hex.js'
import { BLOCK_TAG } from './block.js'
import { FilterOptions, MAX_FILTER_ADDRESSES } from './filter.js'
import { failure } from './testing.js'

const P = -32602
const addr = '0x52908400098527886E0F7030069857D2E4169EE7'
const t1 = `0x${'11'.repeat(32)}`
const t2 = `0x${'22'.repeat(32)}`
const hash = `0x${'aa'.repeat(32)}`

describe('FilterOptions (filters.FilterCriteria)', () => {
  it('decodes a range filter', () => {
    expect(
      FilterOptions.decode({ fromBlock: '0x1', toBlock: 'latest', address: addr, topics: [t1, null, [t1, t2]] }),
    ).toEqual({
      blockHash: undefined,
      fromBlock: { kind: 'number', number: 1n },
      toBlock: BLOCK_TAG.latest,
      addresses: [addr.toLowerCase()],
      topics: [[hexToBytes(t1)], null, [hexToBytes(t1), hexToBytes(t2)]],
    })
  })

  it('decodes blockHash, also spelled blockhash', () => {
    expect(FilterOptions.decode({ blockHash: hash }).blockHash).toEqual(hexToBytes(hash))
    expect(FilterOptions.decode({ blockhash: hash }).blockHash).toEqual(hexToBytes(hash))
  })

  it('reads null and {} as the empty filter; address arrays; wildcards', () => {
    const empty = { blockHash: undefined, fromBlock: undefined, toBlock: undefined, addresses: [], topics: [] }
    expect(FilterOptions.decode(null)).toEqual(empty)
    expect(FilterOptions.decode({})).toEqual(empty)
    expect(FilterOptions.decode({ address: null, topics: null, fromBlock: null })).toEqual(empty)
    expect(FilterOptions.decode({ address: [addr, addr] }).addresses).toEqual([addr.toLowerCase(), addr.toLowerCase()])
    expect(FilterOptions.decode({ address: [] }).addresses).toEqual([])
    expect(FilterOptions.decode({ topics: [] }).topics).toEqual([])
    // an empty OR-array, and a null inside one (later entries unchecked), match anything
    expect(FilterOptions.decode({ topics: [[], [t1, null, 'junk']] }).topics).toEqual([null, null])
  })

  it('fails with geth wording', () => {
    expect(failure(FilterOptions, { blockHash: hash, fromBlock: '0x1' })).toBe(
      `${P} cannot specify both BlockHash and FromBlock/ToBlock, choose one or the other`,
    )
    expect(failure(FilterOptions, { fromBlock: 1 })).toBe(`${P} hex string without 0x prefix`)
    expect(failure(FilterOptions, { toBlock: '0x01' })).toBe(`${P} hex number with leading zero digits`)
    expect(failure(FilterOptions, { blockHash: '0x12' })).toBe(`${P} hex string has length 2, want 64 for common.Hash`)
    expect(failure(FilterOptions, { blockHash: 12 })).toBe(
      `${P} json: cannot unmarshal non-string into Go struct field input.blockHash of type common.Hash`,
    )
    expect(failure(FilterOptions, 'x')).toBe(`${P} json: cannot unmarshal string into Go value of type filters.input`)
    expect(failure(FilterOptions, [])).toBe(`${P} json: cannot unmarshal array into Go value of type filters.input`)
    expect(failure(FilterOptions, { topics: t1 })).toBe(
      `${P} json: cannot unmarshal string into Go struct field input.topics of type []interface {}`,
    )
    expect(failure(FilterOptions, { address: 1 })).toBe(`${P} invalid addresses in query`)
    expect(failure(FilterOptions, { address: {} })).toBe(`${P} invalid addresses in query`)
    expect(failure(FilterOptions, { address: '0x12' })).toBe(
      `${P} invalid address: hex has invalid length 1 after decoding; expected 20 for address`,
    )
    expect(failure(FilterOptions, { address: '' })).toBe(`${P} invalid address: empty hex string`)
    expect(failure(FilterOptions, { address: [addr, 'abc'] })).toBe(
      `${P} invalid address at index 1: hex string without 0x prefix`,
    )
    expect(failure(FilterOptions, { address: [addr, '0x1'] })).toBe(
      `${P} invalid address at index 1: hex string of odd length`,
    )
    expect(failure(FilterOptions, { address: [1] })).toBe(`${P} non-string address at index 0`)
    expect(failure(FilterOptions, { topics: [1] })).toBe(`${P} invalid topic(s)`)
    expect(failure(FilterOptions, { topics: [[t1, 1]] })).toBe(`${P} invalid topic(s)`)
    expect(failure(FilterOptions, { topics: ['0x12'] })).toBe(
      `${P} hex has invalid length 1 after decoding; expected 32 for topic`,
    )
    expect(failure(FilterOptions, { topics: ['0xzz1'] })).toBe(`${P} invalid hex string`)
    expect(failure(FilterOptions, { topics: [null, null, null, null, null] })).toBe(`${P} exceed max topics`)
    expect(failure(FilterOptions, { topics: [new Array(1001).fill(t1)] })).toBe(`${P} exceed max topics`)
  })

  it('limits addresses as geth handlers do (-32000)', () => {
    const many = new Array(MAX_FILTER_ADDRESSES + 1).fill(addr)
    expect(failure(FilterOptions, { address: many })).toBe('-32000 exceed max addresses')
    expect(FilterOptions.decode({ address: many.slice(1) }).addresses).toHaveLength(MAX_FILTER_ADDRESSES)
  })
})

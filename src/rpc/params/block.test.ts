import { describe, expect, it } from 'vitest'
import { hexToBytes } from '../../util/hex.js'
import { BLOCK_TAG, BlockNumber, BlockTag, LATEST } from './block.js'
import { optional } from './decoder.js'
import { failure } from './testing.js'

const P = -32602
const hash = `0x${'1f'.repeat(32)}`

describe('BlockNumber (rpc.BlockNumber)', () => {
  it('decodes tags and numbers', () => {
    for (const tag of ['latest', 'earliest', 'pending', 'safe', 'finalized'] as const) {
      expect(BlockNumber.decode(tag)).toBe(BLOCK_TAG[tag])
    }
    expect(LATEST).toEqual({ kind: 'tag', tag: 'latest' })
    expect(BlockNumber.decode('0x0')).toEqual({ kind: 'number', number: 0n })
    expect(BlockNumber.decode('0x1b4')).toEqual({ kind: 'number', number: 0x1b4n })
    expect(BlockNumber.decode('0x7fffffffffffffff')).toEqual({ kind: 'number', number: 2n ** 63n - 1n })
  })

  it('fails with the bare hexutil messages', () => {
    expect(failure(BlockNumber, 'Latest')).toBe(`${P} hex string without 0x prefix`)
    expect(failure(BlockNumber, '1')).toBe(`${P} hex string without 0x prefix`)
    expect(failure(BlockNumber, 1)).toBe(`${P} hex string without 0x prefix`)
    expect(failure(BlockNumber, null)).toBe(`${P} hex string without 0x prefix`)
    expect(failure(BlockNumber, '')).toBe(`${P} empty hex string`)
    expect(failure(BlockNumber, '0x')).toBe(`${P} hex string "0x"`)
    expect(failure(BlockNumber, '0x01')).toBe(`${P} hex number with leading zero digits`)
    expect(failure(BlockNumber, '0xg')).toBe(`${P} invalid hex string`)
    expect(failure(BlockNumber, '0x10000000000000000')).toBe(`${P} hex number > 64 bits`)
    // strconv order: a bad digit before the 17th is a syntax error, the 17th digit a range error
    expect(failure(BlockNumber, '0x1000000000000000g')).toBe(`${P} invalid hex string`)
    expect(failure(BlockNumber, '0x10000000000000000g')).toBe(`${P} hex number > 64 bits`)
    expect(failure(BlockNumber, '0x8000000000000000')).toBe(`${P} block number larger than int64`)
  })
})

describe('BlockTag (rpc.BlockNumberOrHash)', () => {
  it('decodes tags, numbers and hashes', () => {
    expect(BlockTag.decode('latest')).toBe(BLOCK_TAG.latest)
    expect(BlockTag.decode('safe')).toBe(BLOCK_TAG.safe)
    expect(BlockTag.decode('0x10')).toEqual({ kind: 'number', number: 16n })
    expect(BlockTag.decode(hash)).toEqual({ kind: 'hash', hash: hexToBytes(hash), requireCanonical: false })
  })

  it('decodes EIP-1898 objects, keys case-insensitively', () => {
    expect(BlockTag.decode({ blockNumber: '0x5' })).toEqual({ kind: 'number', number: 5n })
    expect(BlockTag.decode({ blockNumber: 'pending' })).toBe(BLOCK_TAG.pending)
    expect(BlockTag.decode({ blockHash: hash })).toEqual({
      kind: 'hash',
      hash: hexToBytes(hash),
      requireCanonical: false,
    })
    expect(BlockTag.decode({ blockHash: hash, requireCanonical: true })).toEqual({
      kind: 'hash',
      hash: hexToBytes(hash),
      requireCanonical: true,
    })
    expect(BlockTag.decode({ blockhash: hash, RequireCanonical: true, extra: 1 })).toEqual({
      kind: 'hash',
      hash: hexToBytes(hash),
      requireCanonical: true,
    })
    expect(BlockTag.decode({ blockNumber: '0x1', blockHash: null })).toEqual({ kind: 'number', number: 1n })
  })

  it('fails with geth wording', () => {
    expect(failure(BlockTag, { blockNumber: '0x1', blockHash: hash })).toBe(
      `${P} cannot specify both BlockHash and BlockNumber, choose one or the other`,
    )
    // any failure inside the object form reads as geth's string fallback
    const objectForm = `${P} json: cannot unmarshal object into Go value of type string`
    expect(failure(BlockTag, { blockHash: '0x12' })).toBe(objectForm)
    expect(failure(BlockTag, { blockNumber: 1 })).toBe(objectForm)
    expect(failure(BlockTag, { blockHash: hash, requireCanonical: 'yes' })).toBe(objectForm)
    expect(failure(BlockTag, 1)).toBe(`${P} json: cannot unmarshal number into Go value of type string`)
    expect(failure(BlockTag, true)).toBe(`${P} json: cannot unmarshal bool into Go value of type string`)
    expect(failure(BlockTag, ['latest'])).toBe(`${P} json: cannot unmarshal array into Go value of type string`)
    expect(failure(BlockTag, 'Latest')).toBe(`${P} hex string without 0x prefix`)
    expect(failure(BlockTag, '')).toBe(`${P} empty hex string`)
    expect(failure(BlockTag, '0x8000000000000000')).toBe(`${P} blocknumber too high`)
    expect(failure(BlockTag, `0x${'zz'.repeat(32)}`)).toBe(`${P} invalid hex string`)
    expect(failure(BlockTag, `00${'11'.repeat(32)}`)).toBe(`${P} hex string without 0x prefix`)
  })

  it('refuses null, {} and objects naming no block (geth v1.17.5, go-ethereum #35271)', () => {
    const neither = `${P} must specify either BlockHash or BlockNumber`
    expect(failure(BlockTag, null)).toBe(neither)
    expect(failure(BlockTag, {})).toBe(neither)
    expect(failure(BlockTag, { requireCanonical: true })).toBe(neither)
    expect(failure(BlockTag, { blockNumber: null, blockHash: null })).toBe(neither)
    // a pointer param (eth_call's block; the dispatcher gives null its default): {} still names nothing
    expect(failure(optional(BlockTag, LATEST), {})).toBe(neither)
  })
})

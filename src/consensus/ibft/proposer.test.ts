import { describe, expect, it } from 'vitest'

import { MAX_ROUND } from '../../chain/ibft/extra.js'
import { MAX_ROUND_TIMEOUT_MS, proposerIndex, quorumSize, roundTimeoutMs, selectProposer } from './proposer.js'

const v: Uint8Array[] = [1, 2, 3, 4].map((i) => new Uint8Array(20).fill(i))

describe('quorumSize', () => {
  it('is floor(2n/3)+1 for n = 1..10', () => {
    const sizes = Array.from({ length: 10 }, (_, i) => quorumSize(i + 1))
    expect(sizes).toEqual([1, 2, 3, 3, 4, 5, 5, 6, 7, 7])
  })

  it('tolerates f = n - quorum faults with 3f < n', () => {
    for (let n = 1; n <= 100; n++) {
      const f = n - quorumSize(n)
      expect(3 * f).toBeLessThan(n)
      // two quorums always share an honest validator
      expect(2 * quorumSize(n) - n).toBeGreaterThan(Math.floor((n - 1) / 3))
    }
  })

  it('refuses a non-positive or fractional count', () => {
    for (const n of [0, -1, 1.5, Number.NaN]) expect(() => quorumSize(n)).toThrow(RangeError)
  })
})

describe('selectProposer', () => {
  it('rotates from the last proposer: (index + round + 1) mod n', () => {
    expect(selectProposer(v, v[1], 0n)).toBe(v[2])
    expect(selectProposer(v, v[1], 1n)).toBe(v[3])
    expect(selectProposer(v, v[1], 2n)).toBe(v[0])
    expect(selectProposer(v, v[1], 5n)).toBe(v[3])
    expect(selectProposer(v, v[3], 0n)).toBe(v[0])
  })

  it('matches the last proposer by value, not identity', () => {
    expect(selectProposer(v, new Uint8Array(20).fill(3), 0n)).toBe(v[3])
  })

  it('with no last proposer (block 1) starts at validators[round mod n]', () => {
    expect(selectProposer(v, null, 0n)).toBe(v[0])
    expect(selectProposer(v, undefined, 1n)).toBe(v[1])
    expect(selectProposer(v, null, 4n)).toBe(v[0])
    expect(selectProposer(v, null, 7n)).toBe(v[3])
  })

  it('treats a last proposer outside the set like no last proposer', () => {
    const gone = new Uint8Array(20).fill(0xff)
    for (const r of [0n, 1n, 2n, 3n]) expect(selectProposer(v, gone, r)).toBe(selectProposer(v, null, r))
  })

  it('gives every validator a turn over n blocks decided at round 0', () => {
    let last: Uint8Array | null = null
    const seen: number[] = []
    for (let block = 1; block <= 8; block++) {
      last = selectProposer(v, last, 0n)
      seen.push(v.indexOf(last))
    }
    expect(seen).toEqual([0, 1, 2, 3, 0, 1, 2, 3])
  })

  it('handles the largest round and refuses an empty set or negative round', () => {
    // (1 + 2^64 - 1 + 1) mod 4 = 1
    expect(proposerIndex(v, v[1], MAX_ROUND)).toBe(1)
    expect(selectProposer([v[0]], v[0], 12345n)).toBe(v[0])
    expect(() => selectProposer([], null, 0n)).toThrow(RangeError)
    expect(() => selectProposer(v, null, -1n)).toThrow(RangeError)
  })
})

describe('roundTimeoutMs', () => {
  it('is base * 2^round + block time', () => {
    expect(roundTimeoutMs(0n, 10_000, 2_000)).toBe(12_000)
    expect(roundTimeoutMs(1n, 10_000, 2_000)).toBe(22_000)
    expect(roundTimeoutMs(3n, 10_000, 2_000)).toBe(82_000)
    expect(roundTimeoutMs(2n, 500, 0)).toBe(2_000)
    expect(roundTimeoutMs(5n, 0, 1_000)).toBe(1_000)
  })

  it('clamps to what setTimeout can wait', () => {
    expect(roundTimeoutMs(20n, 10_000, 2_000)).toBe(MAX_ROUND_TIMEOUT_MS)
    expect(roundTimeoutMs(MAX_ROUND, 1, 0)).toBe(MAX_ROUND_TIMEOUT_MS)
    expect(roundTimeoutMs(40n, 0.5, 0)).toBe(MAX_ROUND_TIMEOUT_MS)
  })

  it('refuses negative inputs', () => {
    expect(() => roundTimeoutMs(-1n, 1_000, 0)).toThrow(RangeError)
    expect(() => roundTimeoutMs(0n, -1, 0)).toThrow(RangeError)
    expect(() => roundTimeoutMs(0n, 1_000, Number.NaN)).toThrow(RangeError)
  })
})

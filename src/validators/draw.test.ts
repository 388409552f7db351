/**
 * The committee draw: fixed vectors (an independent implementation in test/ must reproduce them),
 * agreement with a straight transcription of the rule written with viem's keccak and ABI packing,
 * and the edge cases the issue names (producers larger than the set, an empty set, producers = 0).
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { encodePacked, keccak256 as viemKeccak } from 'viem'
import { describe, expect, it } from 'vitest'

import { drawCommittee, drawValue } from './draw.js'
import type { ValidatorSet } from './set.js'

const a = (n: number) => hexToBytes(`0x${n.toString(16).padStart(40, '0')}`)
const ETH = 10n ** 18n
const SET: ValidatorSet = [
  { seat: 1n, signer: a(0x11), power: ETH },
  { seat: 2n, signer: a(0x22), power: 3n * ETH },
  { seat: 3n, signer: a(0x33), power: 2n * ETH },
  { seat: 4n, signer: a(0x44), power: ETH / 2n },
  { seat: 5n, signer: a(0x55), power: 4n * ETH },
  { seat: 6n, signer: a(0x66), power: ETH },
]
const SEED = hexToBytes(`0x${'ab'.repeat(32)}`)
const show = (c: { signer: Uint8Array; power: bigint }[]) =>
  c.map((m) => `${bytesToHex(m.signer).slice(-2)}:${m.power}`).join(' ')

/** The rule as the issue states it, written again with viem (no code shared with draw.ts). */
function reference(set: ValidatorSet, seed: `0x${string}`, producers: number): string {
  const total = set.reduce((s, v) => s + v.power, 0n)
  const limit = ((1n << 256n) / total) * total
  const times = new Map<string, bigint>()
  for (let i = 0; i < producers; i++) {
    let x = 0n
    for (let j = 0; ; j++) {
      x = BigInt(viemKeccak(encodePacked(['bytes32', 'uint256', 'uint256'], [seed, BigInt(i), BigInt(j)])))
      if (x < limit) break
    }
    let pick = x % total
    for (const v of set) {
      if (pick < v.power) {
        const k = bytesToHex(v.signer)
        times.set(k, (times.get(k) ?? 0n) + 1n)
        break
      }
      pick -= v.power
    }
  }
  return [...times.entries()]
    .sort(([x], [y]) => (x < y ? -1 : 1))
    .map(([s, n]) => `${s.slice(-2)}:${n}`)
    .join(' ')
}

describe('drawCommittee', () => {
  it('draws the fixed vectors', () => {
    const out = [1, 4, 7, 20].map((p) => show(drawCommittee(SET, SEED, p)))
    expect(out).toMatchInlineSnapshot(`
      [
        "55:1",
        "22:2 55:1 66:1",
        "22:2 55:3 66:2",
        "11:2 22:3 33:1 44:1 55:9 66:4",
      ]
    `)
    expect(show(drawCommittee(SET, hexToBytes(`0x${'00'.repeat(31)}01`), 4))).toMatchInlineSnapshot(`"33:1 55:3"`)
  })

  it('x(i, j) is keccak256(seed ‖ uint256(i) ‖ uint256(j))', () => {
    const x = drawValue(SEED, 3, 1)
    const want = BigInt(viemKeccak(encodePacked(['bytes32', 'uint256', 'uint256'], [bytesToHex(SEED), 3n, 1n])))
    expect(x).toBe(want)
  })

  it('agrees with a transcription of the rule over many seeds and sizes', () => {
    for (let s = 0; s < 40; s++) {
      const seed = viemKeccak(encodePacked(['uint256'], [BigInt(s)]))
      const producers = 1 + (s % 9)
      expect(show(drawCommittee(SET, hexToBytes(seed), producers))).toBe(reference(SET, seed, producers))
    }
  })

  it('sorts by signer, sums to producers, and may have fewer members than producers', () => {
    const c = drawCommittee(SET, SEED, 50)
    expect(c.reduce((s, m) => s + m.power, 0n)).toBe(50n)
    for (let i = 1; i < c.length; i++) expect(bytesToHex(c[i - 1]?.signer as Uint8Array) < bytesToHex(c[i]?.signer as Uint8Array)).toBe(true)
    // a committee larger than the set: one validator of power 1 drawn 10 times
    const solo = drawCommittee([{ seat: 9n, signer: a(9), power: 1n }], SEED, 10)
    expect(solo).toEqual([{ signer: a(9), power: 10n }])
  })

  it('producers = 0 is the whole set with power 1; an empty set draws nobody', () => {
    expect(drawCommittee(SET, SEED, 0)).toEqual(SET.map((v) => ({ signer: v.signer, power: 1n })))
    expect(drawCommittee([], SEED, 4)).toEqual([])
    expect(() => drawCommittee(SET, SEED, -1)).toThrow(RangeError)
  })

  it('a heavier validator is drawn more often (power-weighted)', () => {
    const c = drawCommittee(SET, SEED, 2000)
    const of = (n: number) => c.find((m) => bytesToHex(m.signer) === bytesToHex(a(n)))?.power ?? 0n
    expect(of(0x55)).toBeGreaterThan(of(0x11) * 2n)
    expect(of(0x44)).toBeLessThan(of(0x11))
  })
})

/**
 * The byte → word conversions of the fast interpreter (world.ts bytesToWord, frame.ts bytes32ToWord)
 * against BigInt of the hex digits: every length 0–33, values with zero and non-zero high limbs,
 * views at an offset into a larger buffer, and the scratch buffer not leaking one value into the next.
 */
import { describe, expect, it } from 'vitest'
import { prng } from '../../util/prng.js'
import { bytes32ToWord } from './frame.js'
import { bytesToWord } from './world.js'

const viaHex = (b: Uint8Array) => (b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`))

describe('bytesToWord', () => {
  const rand = prng(0x3a7)
  const bytes = (n: number) => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256))

  it('equals the hex digits read as a number, for every length 0–33', () => {
    for (let n = 0; n <= 33; n++) {
      for (let k = 0; k < 20; k++) {
        const b = bytes(n)
        // some values with leading zero bytes, so the zero-limb shortcut is taken
        if (k % 3 === 0) b.fill(0, 0, Math.floor(n / 2))
        expect(bytesToWord(b)).toBe(viaHex(b))
      }
    }
  })

  it('takes all-zero, all-0xff and single-bit words exactly', () => {
    expect(bytesToWord(new Uint8Array(32))).toBe(0n)
    expect(bytesToWord(new Uint8Array(32).fill(0xff))).toBe((1n << 256n) - 1n)
    for (const bit of [0, 63, 64, 127, 128, 191, 192, 255]) {
      const b = new Uint8Array(32)
      b[31 - (bit >> 3)] = 1 << (bit & 7)
      expect(bytesToWord(b)).toBe(1n << BigInt(bit))
    }
  })

  it('reads a view at an offset, and a short value after a long one is not padded with the old bytes', () => {
    const big = bytes(100)
    expect(bytesToWord(big.subarray(13, 45))).toBe(viaHex(big.subarray(13, 45)))
    expect(bytesToWord(new Uint8Array(32).fill(0xee))).toBe(
      (1n << 256n) - 1n - 0x1111111111111111111111111111111111111111111111111111111111111111n,
    )
    expect(bytesToWord(Uint8Array.of(1, 2, 3, 4, 5, 6, 7, 8))).toBe(0x0102030405060708n)
    expect(bytesToWord(big.subarray(50, 60))).toBe(viaHex(big.subarray(50, 60)))
  })

  it('bytes32ToWord reads the first 32 bytes', () => {
    const b = bytes(40)
    expect(bytes32ToWord(b.subarray(0, 32))).toBe(viaHex(b.subarray(0, 32)))
    expect(bytes32ToWord(b)).toBe(viaHex(b.subarray(0, 32)))
  })
})

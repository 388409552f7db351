import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { keccak256 } from '../../util/keccak.js'
import { CheckpointRangeError } from './errors.js'
import {
  blockProof,
  CHECKPOINT_MAX_BLOCKS,
  checkpointRoot,
  HASH_BYTES,
  MAX_PROOF_DEPTH,
  nextPowerOfTwo,
  proofDepth,
  ROOT_RANGE_MAX_BLOCKS,
  rootFromProof,
  verifyBlockProof,
  ZERO_HASH,
} from './root.js'

/** Distinct fake block hashes. */
const leaves = (n: number) => Array.from({ length: n }, (_, i) => keccak256(Uint8Array.of(i >> 8, i & 0xff, 7)))
const k = (a: Uint8Array, b: Uint8Array) => keccak256(Uint8Array.from([...a, ...b]))

/** The definition read literally: pad, then halve recursively (no shared code with root.ts). */
function referenceRoot(hashes: Uint8Array[]): Uint8Array {
  let width = 1
  while (width < hashes.length) width <<= 1
  const padded = [...hashes, ...Array.from({ length: width - hashes.length }, () => new Uint8Array(32))]
  const up = (xs: Uint8Array[]): Uint8Array =>
    xs.length === 1 ? (xs[0] as Uint8Array) : k(up(xs.slice(0, xs.length / 2)), up(xs.slice(xs.length / 2)))
  return up(padded)
}

describe('checkpointRoot', () => {
  it('is the hash itself for one block, k(a‖b) for two, zero-padded for three', () => {
    const [a, b, c] = leaves(3) as [Uint8Array, Uint8Array, Uint8Array]
    expect(bytesToHex(checkpointRoot([a]))).toBe(bytesToHex(a))
    expect(bytesToHex(checkpointRoot([a, b]))).toBe(bytesToHex(k(a, b)))
    expect(bytesToHex(checkpointRoot([a, b, c]))).toBe(bytesToHex(k(k(a, b), k(c, ZERO_HASH))))
    // order matters: no sorting of pairs
    expect(bytesToHex(checkpointRoot([b, a]))).not.toBe(bytesToHex(checkpointRoot([a, b])))
  })

  it('equals the recursive definition for every length up to 70 and at the power-of-two edges', () => {
    for (const n of [...Array.from({ length: 70 }, (_, i) => i + 1), 127, 128, 129, 1000, CHECKPOINT_MAX_BLOCKS]) {
      const hs = leaves(n)
      expect(bytesToHex(checkpointRoot(hs)), `n = ${n}`).toBe(bytesToHex(referenceRoot(hs)))
    }
  })

  it('refuses an empty range, a range over the maximum and a leaf that is not 32 bytes', () => {
    expect(() => checkpointRoot([])).toThrow(CheckpointRangeError)
    const tooMany = Array.from({ length: ROOT_RANGE_MAX_BLOCKS + 1 }, () => ZERO_HASH)
    expect(() => checkpointRoot(tooMany)).toThrow(/over the maximum of 32768/)
    expect(() => checkpointRoot([new Uint8Array(31)])).toThrow(/leaf 0 is 31 bytes/)
  })

  it('builds the widest tree the node serves (2^15 leaves)', () => {
    const hs = Array.from({ length: ROOT_RANGE_MAX_BLOCKS }, (_, i) =>
      i % 2 === 0 ? ZERO_HASH : keccak256(Uint8Array.of(i & 0xff)),
    )
    const root = checkpointRoot(hs)
    expect(root.length).toBe(HASH_BYTES)
    const proof = blockProof(hs, ROOT_RANGE_MAX_BLOCKS - 1)
    expect(proof.length).toBe(MAX_PROOF_DEPTH * HASH_BYTES)
    expect(verifyBlockProof(root, hs[ROOT_RANGE_MAX_BLOCKS - 1] as Uint8Array, ROOT_RANGE_MAX_BLOCKS - 1, proof)).toBe(
      true,
    )
  })
})

describe('blockProof / verifyBlockProof', () => {
  it('proves every leaf of ranges of 1..33 blocks, with log2(width) siblings', () => {
    for (let n = 1; n <= 33; n++) {
      const hs = leaves(n)
      const root = checkpointRoot(hs)
      for (let i = 0; i < n; i++) {
        const proof = blockProof(hs, i)
        expect(proof.length).toBe(proofDepth(n) * HASH_BYTES)
        expect(verifyBlockProof(root, hs[i] as Uint8Array, i, proof), `n=${n} i=${i}`).toBe(true)
      }
    }
  })

  it('gives the siblings leaf level first', () => {
    const [a, b, c] = leaves(3) as [Uint8Array, Uint8Array, Uint8Array]
    expect(bytesToHex(blockProof([a, b, c], 2))).toBe(bytesToHex(Uint8Array.from([...ZERO_HASH, ...k(a, b)])))
    expect(bytesToHex(blockProof([a, b, c], 0))).toBe(bytesToHex(Uint8Array.from([...b, ...k(c, ZERO_HASH)])))
    expect(blockProof([a], 0).length).toBe(0)
  })

  it('refuses a wrong leaf, a wrong index, a flipped sibling, a short or over-deep proof', () => {
    const hs = leaves(11)
    const root = checkpointRoot(hs)
    const proof = blockProof(hs, 5)
    const leaf = hs[5] as Uint8Array
    expect(verifyBlockProof(root, hs[4] as Uint8Array, 5, proof)).toBe(false)
    expect(verifyBlockProof(root, leaf, 4, proof)).toBe(false)
    expect(verifyBlockProof(root, leaf, 5 + 16, proof)).toBe(false) // index beyond the proof's depth
    expect(verifyBlockProof(root, leaf, -1, proof)).toBe(false)
    const flipped = proof.slice()
    flipped[40] ^= 1
    expect(verifyBlockProof(root, leaf, 5, flipped)).toBe(false)
    expect(verifyBlockProof(root, leaf, 5, proof.subarray(0, proof.length - 1))).toBe(false)
    expect(verifyBlockProof(root, leaf, 5, proof.subarray(0, proof.length - HASH_BYTES))).toBe(false)
    expect(rootFromProof(leaf, 0, new Uint8Array((MAX_PROOF_DEPTH + 1) * HASH_BYTES))).toBeUndefined()
    expect(() => blockProof(hs, 11)).toThrow(CheckpointRangeError)
    expect(() => blockProof(hs, -1)).toThrow(CheckpointRangeError)
  })

  it('nextPowerOfTwo and proofDepth follow Bor (0 and 1 give a width of 1)', () => {
    expect([0, 1, 2, 3, 4, 5, 1024, 1025].map(nextPowerOfTwo)).toEqual([1, 1, 2, 4, 4, 8, 1024, 2048])
    expect([1, 2, 3, 1024, 1025].map(proofDepth)).toEqual([0, 1, 2, 10, 11])
    expect(proofDepth(ROOT_RANGE_MAX_BLOCKS)).toBe(MAX_PROOF_DEPTH)
  })
})

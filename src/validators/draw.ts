/**
 * The committee draw: who produces blocks in span k+1, drawn from the validator set at the
 * reference block R of span k (its first block), seeded by R's hash. Every implementation can
 * reproduce it from the set and the seed alone (test/ holds an independent one):
 *
 *   set      = validators at R, ascending by signer, power = locked stake (set.ts)
 *   P        = Σ power                          limit = floor(2^256 / P) · P
 *   for i in 0 … producers-1:
 *     for j in 0, 1, …:                         (rejection sampling: x is uniform below limit)
 *       x = uint256(keccak256(seed ‖ uint256(i) ‖ uint256(j)))     — 32 + 32 + 32 bytes, big-endian
 *       if x < limit: break
 *     pick = x mod P
 *     drawn = the first validator v (in signer order) with pick < Σ power of v and those before it
 *   committee = each drawn signer once, power = times drawn, ascending by signer
 *
 * With replacement, as Heimdall draws: a committee may have fewer distinct members than
 * `producers`, and a heavy validator's voting power is the number of seats it drew.
 * producers = 0 means "no draw": the whole set, each with power 1.
 * An empty set draws the empty committee; the caller keeps the current committee (no switch).
 */
import { bytesToBigInt, concatBytes, setLengthLeft, bigIntToBytes } from '@ethereumjs/util'

import type { CommitteeMember } from '../chain/ibft/span.js'
import { keccak256 } from '../util/keccak.js'
import { totalPower, type ValidatorSet } from './set.js'

/** 2^256: the range of one keccak256 draw. */
const TWO_256 = 1n << 256n
/** Bytes of each integer hashed after the seed (uint256). */
const UINT256_BYTES = 32

/** A span's block-producer committee: members in ascending signer order, power = votes in IBFT. */
export type Committee = CommitteeMember[]

/** drawValue is x(i, j) = uint256(keccak256(seed ‖ uint256(i) ‖ uint256(j))). */
export function drawValue(seed: Uint8Array, i: number, j: number): bigint {
  return bytesToBigInt(keccak256(concatBytes(seed, uint256(BigInt(i)), uint256(BigInt(j)))))
}

function uint256(n: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(n), UINT256_BYTES)
}

/** drawCommittee draws `producers` seats from `set` with the rule above (module doc). */
export function drawCommittee(set: ValidatorSet, seed: Uint8Array, producers: number): Committee {
  if (!Number.isInteger(producers) || producers < 0) throw new RangeError(`producers must be a whole number, got ${producers}`)
  if (set.length === 0) return []
  if (producers === 0) return set.map((v) => ({ signer: v.signer, power: 1n }))
  const total = totalPower(set)
  const limit = (TWO_256 / total) * total
  const cumulative: bigint[] = []
  let sum = 0n
  for (const v of set) {
    sum += v.power
    cumulative.push(sum)
  }
  const times = new Array<bigint>(set.length).fill(0n)
  for (let i = 0; i < producers; i++) {
    let x = drawValue(seed, i, 0)
    // terminates: each try is rejected with probability (2^256 mod P) / 2^256 < P / 2^256
    for (let j = 1; x >= limit; j++) x = drawValue(seed, i, j)
    const pick = x % total
    let k = 0
    while (pick >= (cumulative[k] as bigint)) k++
    times[k] = (times[k] as bigint) + 1n
  }
  const committee: Committee = []
  set.forEach((v, k) => {
    const n = times[k] as bigint
    if (n > 0n) committee.push({ signer: v.signer, power: n })
  })
  return committee
}

/**
 * Proposer rotation, quorum and round timeouts for equal-power validators.
 */
import { bytesToHex } from '@ethereumjs/util'

/** Largest delay setTimeout honours (2^31 - 1 ms, about 24.8 days); longer timeouts are clamped to it. */
export const MAX_ROUND_TIMEOUT_MS = 2 ** 31 - 1

/**
 * quorumSize is the number of votes that is more than 2/3 of n equal-power validators:
 * floor(2n/3) + 1. Throws RangeError unless n is a positive integer.
 */
export function quorumSize(n: number): number {
  if (!Number.isInteger(n) || n < 1) throw new RangeError(`validator count must be a positive integer, got ${n}`)
  return Math.floor((2 * n) / 3) + 1
}

/**
 * proposerIndex is the index in `validators` of the proposer of `round`:
 * (index(lastProposer) + round + 1) mod n.
 *
 * `lastProposer` is the proposer of the parent block (recovered from its proposer seal). When
 * there is none — block 1, whose parent is genesis — or it is not in `validators` (it left the
 * set), its index counts as -1, so round r is proposed by validators[r mod n]: block 1 round 0
 * starts with the first validator.
 */
export function proposerIndex(
  validators: Uint8Array[],
  lastProposer: Uint8Array | null | undefined,
  round: bigint,
): number {
  const n = validators.length
  if (n === 0) throw new RangeError('cannot select a proposer from an empty validator set')
  if (round < 0n) throw new RangeError(`round must not be negative, got ${round}`)
  let last = -1
  if (lastProposer) {
    const hex = bytesToHex(lastProposer)
    last = validators.findIndex((v) => bytesToHex(v) === hex)
  }
  return Number((BigInt(last) + round + 1n) % BigInt(n))
}

/** selectProposer returns the address of the proposer of `round` (see proposerIndex). */
export function selectProposer(
  validators: Uint8Array[],
  lastProposer: Uint8Array | null | undefined,
  round: bigint,
): Uint8Array {
  return validators[proposerIndex(validators, lastProposer, round)]
}

/**
 * roundTimeoutMs is how long a node waits in `round` before asking for a round change:
 * baseMs · 2^round + blockTimeMs, clamped to MAX_ROUND_TIMEOUT_MS.
 */
export function roundTimeoutMs(round: bigint, baseMs: number, blockTimeMs: number): number {
  if (round < 0n) throw new RangeError(`round must not be negative, got ${round}`)
  if (!(baseMs >= 0) || !(blockTimeMs >= 0)) {
    throw new RangeError(`timeouts must be non-negative, got base ${baseMs} ms, block time ${blockTimeMs} ms`)
  }
  // 2 ** 1100 is Infinity, which the clamp absorbs; a zero base stays zero at any round.
  const scaled = baseMs === 0 ? 0 : baseMs * 2 ** Number(round > 1100n ? 1100n : round)
  return Math.min(scaled + blockTimeMs, MAX_ROUND_TIMEOUT_MS)
}

/**
 * Who proposes checkpoint k: Tendermint's proposer-priority rule (as Heimdall rotates checkpoint
 * proposers), made a function of what every validator reads from the base chain — the contract's
 * current set and its checkpoint count — so no node keeps priorities of its own.
 *
 *   powers      = the set's powers reduced by their gcd; when they still sum above
 *                 PROPOSER_POWER_SCALE, scaled to units of total/PROPOSER_POWER_SCALE (at least 1 each)
 *   priorities  start at 0 for every member when the set took effect (step 0)
 *   each step   every priority += power; the proposer is the highest priority (ties: lowest
 *               address); its priority −= Σ power
 *   checkpoint  k (the contract's checkpoint count before it, k ≥ 0) is proposed at step k + 1
 *
 * From all-zero priorities the sum of priorities stays 0 and the rule is periodic with period
 * Σ power (each member proposes exactly `power` times per period), so step k + 1 is step
 * (k mod period) + 1: a bounded loop of at most PROPOSER_POWER_SCALE + n steps, whatever k is.
 * Tendermint also centres the priorities (from all-zero priorities their sum stays 0, so centring
 * changes nothing) and rescales them when their spread passes 2·Σ power; the rescaling is left
 * out: the order here is this rule's, and every node computes the same one.
 *
 * The handover order at step s is the members sorted by priority after the increment (before the
 * proposer's decrement), ties by address: rank 0 is the proposer, rank r takes over after r
 * proposer timeouts.
 */
import { compareBytes } from '../../chain/ibft/span.js'

/** PROPOSER_POWER_SCALE: powers are scaled to at most this many units, so a period is at most ~10,000 steps. */
export const PROPOSER_POWER_SCALE = 10_000n

export interface PowerMember {
  signer: Uint8Array
  power: bigint
}

function gcd(a: bigint, b: bigint): bigint {
  let x = a
  let y = b
  while (y !== 0n) [x, y] = [y, x % y]
  return x
}

/** reducePowers: the powers as the rule uses them (module doc). */
export function reducePowers(powers: readonly bigint[]): bigint[] {
  if (powers.some((p) => p <= 0n)) throw new RangeError('every power must be > 0')
  const g = powers.reduce((acc, p) => gcd(acc, p), 0n)
  const reduced = powers.map((p) => p / g)
  const total = reduced.reduce((a, b) => a + b, 0n)
  if (total <= PROPOSER_POWER_SCALE) return reduced
  return reduced.map((p) => {
    const scaled = (p * PROPOSER_POWER_SCALE) / total
    return scaled > 0n ? scaled : 1n
  })
}

/**
 * proposerOrder returns the members of `set` in handover order for the checkpoint `k` steps after
 * the set took effect: [0] proposes, [r] after r timeouts. `set` in any order; empty in, empty out.
 */
export function proposerOrder(set: readonly PowerMember[], k: bigint): Uint8Array[] {
  if (set.length === 0) return []
  if (k < 0n) throw new RangeError('checkpoint step must be >= 0')
  const members = [...set].sort((a, b) => compareBytes(a.signer, b.signer))
  const powers = reducePowers(members.map((m) => m.power))
  const total = powers.reduce((a, b) => a + b, 0n)
  const steps = Number(k % total) + 1
  const priority = members.map(() => 0n)
  const n = members.length
  for (let step = 1; step < steps; step++) {
    let top = 0
    for (let i = 0; i < n; i++) {
      priority[i] = (priority[i] as bigint) + (powers[i] as bigint)
      // strictly greater: ties go to the lower address (members are in ascending address order)
      if ((priority[i] as bigint) > (priority[top] as bigint)) top = i
    }
    priority[top] = (priority[top] as bigint) - total
  }
  for (let i = 0; i < n; i++) priority[i] = (priority[i] as bigint) + (powers[i] as bigint)
  // sort is stable over ascending addresses: equal priorities keep the lower address first
  const order = members
    .map((_, i) => i)
    .sort((a, b) => {
      const d = (priority[b] as bigint) - (priority[a] as bigint)
      return d > 0n ? 1 : d < 0n ? -1 : 0
    })
  return order.map((i) => (members[i] as PowerMember).signer)
}

/** proposerAt: the member in turn after `timeouts` proposer timeouts (rank timeouts mod n). */
export function proposerAt(order: readonly Uint8Array[], timeouts: number): Uint8Array | undefined {
  if (order.length === 0) return undefined
  return order[timeouts % order.length]
}

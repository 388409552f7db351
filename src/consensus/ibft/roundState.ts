/**
 * What the IBFT engine remembers at its current height: per round the accepted proposal and the
 * PREPARE / COMMIT / ROUND_CHANGE messages by sender; and, bounded, the messages that arrived for
 * heights it has not reached yet.
 */
import { equalsBytes } from '@ethereumjs/util'

import type { Commit, IbftMessage, Prepare, PrePrepare, RoundChange } from './messages.js'

/** Messages of one round at the current height, one per sender and kind (the first one wins). */
export class RoundMessages {
  /** The PREPREPARE this node accepted (its block verified) in this round. */
  accepted: PrePrepare | undefined = undefined
  /** A PREPREPARE is being verified: later ones wait for the outcome (first come, first served). */
  verifying = false
  /** This node, as proposer, has sent (or is building) its PREPREPARE. */
  proposed = false
  readonly prepares = new Map<string, Prepare>()
  readonly commits = new Map<string, Commit>()
  readonly roundChanges = new Map<string, RoundChange>()

  /** A block with IBFT hash `digest` that one of the ROUND_CHANGEs carries (their prepared block). */
  preparedBlock(digest: Uint8Array): Uint8Array | undefined {
    for (const rc of this.roundChanges.values()) {
      if (rc.proposal !== undefined && rc.preparedDigest !== undefined && equalsBytes(rc.preparedDigest, digest))
        return rc.proposal
    }
    return undefined
  }

  /** The PREPAREs (or COMMITs) in `map` that vote for `digest`. */
  static votesFor<T extends Prepare | Commit>(map: Map<string, T>, digest: Uint8Array): T[] {
    const out: T[] = []
    for (const m of map.values()) if (equalsBytes(m.digest, digest)) out.push(m)
    return out
  }
}

/** Rounds of one height, created on demand, with the highest ones kept when there are too many. */
export class HeightRounds {
  readonly #rounds = new Map<bigint, RoundMessages>()
  readonly #maxRounds: number

  constructor(maxRounds: number) {
    this.#maxRounds = maxRounds
  }

  get(round: bigint): RoundMessages | undefined {
    return this.#rounds.get(round)
  }

  /** The round's messages, created if missing (dropping the lowest round beyond the limit). */
  at(round: bigint): RoundMessages {
    let rs = this.#rounds.get(round)
    if (rs === undefined) {
      rs = new RoundMessages()
      this.#rounds.set(round, rs)
      if (this.#rounds.size > this.#maxRounds) {
        let lowest = round
        for (const r of this.#rounds.keys()) if (r < lowest) lowest = r
        this.#rounds.delete(lowest)
      }
    }
    return rs
  }

  /** Every round's ROUND_CHANGE messages, for the f+1 round-jump rule. */
  *roundChanges(): Iterable<RoundChange> {
    for (const rs of this.#rounds.values()) yield* rs.roundChanges.values()
  }

  /**
   * The f+1 rule: when validators holding `weakQuorum` power (powerOf each; 1 when unweighted) have
   * asked (ROUND_CHANGE) for rounds above `current`, the highest round that enough of them, taken
   * from the highest round down, all reach; else undefined.
   */
  jumpTarget(current: bigint, weakQuorum: bigint, powerOf: (senderHex: string) => bigint = () => 1n): bigint | undefined {
    const highest = new Map<string, bigint>()
    for (const rc of this.roundChanges()) {
      if (rc.round > (highest.get(rc.senderHex) ?? -1n)) highest.set(rc.senderHex, rc.round)
    }
    const wanted = [...highest.entries()]
      .filter(([, r]) => r > current)
      .sort(([, a], [, b]) => (a > b ? -1 : a < b ? 1 : 0))
    // the highest round that senders holding the weak quorum's power all want (or exceed)
    let power = 0n
    for (const [sender, round] of wanted) {
      power += powerOf(sender)
      if (power >= weakQuorum) return round
    }
    return undefined
  }

  clear(): void {
    this.#rounds.clear()
  }
}

/** Authenticated messages for heights above the current one, at most `maxMessages` in all. */
export class FutureMessages {
  readonly #byHeight = new Map<bigint, IbftMessage[]>()
  readonly #maxHeightsAhead: bigint
  readonly #maxMessages: number
  #count = 0

  constructor(maxHeightsAhead: number, maxMessages: number) {
    this.#maxHeightsAhead = BigInt(maxHeightsAhead)
    this.#maxMessages = maxMessages
  }

  get size(): number {
    return this.#count
  }

  /** Keeps `msg` unless it is too far ahead of `current` or the buffer is full; says which. */
  add(msg: IbftMessage, current: bigint): boolean {
    if (msg.height > current + this.#maxHeightsAhead || this.#count >= this.#maxMessages) return false
    let list = this.#byHeight.get(msg.height)
    if (list === undefined) {
      list = []
      this.#byHeight.set(msg.height, list)
    }
    list.push(msg)
    this.#count++
    return true
  }

  /** Removes everything at or below `height` and returns the messages of `height`. */
  take(height: bigint): IbftMessage[] {
    let out: IbftMessage[] = []
    for (const [h, list] of this.#byHeight) {
      if (h > height) continue
      if (h === height) out = list
      this.#count -= list.length
      this.#byHeight.delete(h)
    }
    return out
  }
}

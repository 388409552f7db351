/**
 * The rules that tie IBFT messages to the validator set of their height: membership, the
 * proposer of a round, prepared certificates and round-change certificates.
 *
 *   prepared certificate (PC) for (h, r, B):   PREPREPARE(h, r, B) from proposer(r)
 *                                              + PREPARE(h, r, B) from a quorum of distinct validators
 *                                                (a quorum: distinct members holding > 2/3 of the power)
 *   round-change certificate (RCC) for (h, r): ROUND_CHANGE(h, r) from a quorum of distinct
 *                                              validators, each PC valid and from a round < r
 *   a PREPREPARE(h, r > 0) must carry an RCC for (h, r), and if any ROUND_CHANGE in it holds a PC,
 *   its block must be the block of the PC with the highest round.
 *
 * Why this is safe: a block committed in round r was prepared by a quorum, so at least f+1 honest
 * validators hold its PC (and never prepare another block in a later round without a newer PC of
 * the same block); every later RCC is a quorum and meets one of them, so the highest PC it shows is
 * that block, and the next proposer must re-propose it.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { IbftMessageError } from './errors.js'
import { MessageCode, type PreparedCertificate, type RoundChange } from './messages.js'
import { quorumSize, selectProposer } from './proposer.js'

/**
 * What a height's messages are checked against: the committee deciding it and their voting powers.
 *
 * Unweighted (spans off, `powers` absent): every validator has power 1 and the proposer is
 * validators[(index(lastProposer) + round + 1) mod n] — the rule chains had before spans.
 * Weighted (spans on): with P = Σ power, each member occupies `power` consecutive slots of the
 * rotation in committee order, and round r of height h is proposed by slot (h + r) mod P.
 * Either way, in units of power:
 *   quorum      = floor(2P/3) + 1   (more than 2/3; = floor(2n/3) + 1 when all powers are 1)
 *   weak quorum = floor((P-1)/3) + 1 (more than the f = floor((P-1)/3) a quorum tolerates: one honest vote)
 */
export class HeightContext {
  readonly height: bigint
  readonly validators: Uint8Array[]
  readonly lastProposer: Uint8Array | null
  /** Voting power per validator (same order); all 1 when unweighted. */
  readonly powers: bigint[]
  readonly weighted: boolean
  readonly totalPower: bigint
  /** Power that is more than 2/3 of the total: floor(2P/3) + 1. */
  readonly quorumPower: bigint
  /** f + 1 in power, f = floor((P-1)/3): at least one honest validator among them. */
  readonly weakQuorumPower: bigint
  /** floor(2n/3) + 1 (the unweighted count; kept for logs and callers counting heads). */
  readonly quorum: number
  /** f + 1 with f = floor((n-1)/3). */
  readonly weakQuorum: number
  readonly #members: Map<string, number>
  /** Weighted rotation: slot → validator index (each member `power` consecutive slots). */
  readonly #slots: number[] | undefined

  constructor(height: bigint, validators: Uint8Array[], lastProposer: Uint8Array | null, powers?: bigint[]) {
    if (powers !== undefined && powers.length !== validators.length)
      throw new RangeError(`${validators.length} validators but ${powers.length} powers`)
    if (powers?.some((p) => p <= 0n)) throw new RangeError('every voting power must be positive')
    this.height = height
    this.validators = validators
    this.lastProposer = lastProposer
    this.weighted = powers !== undefined
    this.powers = powers ?? validators.map(() => 1n)
    this.totalPower = this.powers.reduce((a, b) => a + b, 0n)
    this.quorumPower = (2n * this.totalPower) / 3n + 1n
    this.weakQuorumPower = this.totalPower === 0n ? 1n : (this.totalPower - 1n) / 3n + 1n
    this.quorum = quorumSize(Math.max(1, validators.length))
    this.weakQuorum = Math.floor((validators.length - 1) / 3) + 1
    this.#members = new Map(validators.map((v, i) => [bytesToHex(v), i]))
    this.#slots = powers === undefined ? undefined : this.powers.flatMap((p, i) => new Array<number>(Number(p)).fill(i))
  }

  /** Index of a validator (lowercase hex address), or -1. */
  indexOf(addressHex: string): number {
    return this.#members.get(addressHex) ?? -1
  }

  isValidator(addressHex: string): boolean {
    return this.#members.has(addressHex)
  }

  /** Voting power of a validator (lowercase hex address); 0 for a non-member. */
  powerOf(addressHex: string): bigint {
    const i = this.#members.get(addressHex)
    return i === undefined ? 0n : (this.powers[i] as bigint)
  }

  /** Σ power of the distinct members among `senders` (lowercase hex addresses). */
  powerOfAll(senders: Iterable<string>): bigint {
    const seen = new Set<string>()
    let sum = 0n
    for (const s of senders) {
      if (seen.has(s)) continue
      seen.add(s)
      sum += this.powerOf(s)
    }
    return sum
  }

  /** The distinct members among `senders` hold more than 2/3 of the power. */
  hasQuorum(senders: Iterable<string>): boolean {
    return this.powerOfAll(senders) >= this.quorumPower
  }

  /** Lowercase hex address of the proposer of `round`. */
  proposer(round: bigint): string {
    const slots = this.#slots
    if (slots === undefined) return bytesToHex(selectProposer(this.validators, this.lastProposer, round))
    const slot = Number((this.height + round) % BigInt(slots.length))
    return bytesToHex(this.validators[slots[slot] as number] as Uint8Array)
  }
}

function fail(details: string): never {
  throw new IbftMessageError('bad-certificate', details)
}

/** checkPreparedCertificate throws IbftMessageError unless `pc` prepares its block at ctx.height. */
export function checkPreparedCertificate(ctx: HeightContext, pc: PreparedCertificate): void {
  const pp = pc.proposal
  if (pp.height !== ctx.height) fail(`PC is for height ${pp.height}, not ${ctx.height}`)
  if (pp.senderHex !== ctx.proposer(pp.round)) fail(`PC's PREPREPARE is not from the proposer of round ${pp.round}`)
  const seen = new Set<string>()
  for (const p of pc.prepares) {
    if (p.code !== MessageCode.PREPARE || p.height !== ctx.height || p.round !== pp.round)
      fail('PC holds a PREPARE of another height or round')
    if (!equalsBytes(p.digest, pp.digest)) fail('PC holds a PREPARE for another block')
    if (!ctx.isValidator(p.senderHex)) fail(`PC holds a PREPARE from non-validator ${p.senderHex}`)
    seen.add(p.senderHex)
  }
  if (!ctx.hasQuorum(seen))
    fail(`PC's ${seen.size} distinct PREPAREs hold power ${ctx.powerOfAll(seen)}, quorum is ${ctx.quorumPower}`)
}

/** checkRoundChange throws IbftMessageError unless `rc` is a well-founded ROUND_CHANGE at ctx.height. */
export function checkRoundChange(ctx: HeightContext, rc: RoundChange): void {
  if (rc.height !== ctx.height) fail(`ROUND_CHANGE is for height ${rc.height}, not ${ctx.height}`)
  if (!ctx.isValidator(rc.senderHex)) fail(`ROUND_CHANGE from non-validator ${rc.senderHex}`)
  if (rc.certificate === undefined) return
  if ((rc.preparedRound as bigint) >= rc.round)
    fail(`PC of round ${rc.preparedRound} in a ROUND_CHANGE to round ${rc.round}`)
  checkPreparedCertificate(ctx, rc.certificate)
}

/** The ROUND_CHANGE holding the PC with the highest round, if any holds one. */
export function highestPrepared(rcs: Iterable<RoundChange>): RoundChange | undefined {
  let best: RoundChange | undefined
  for (const rc of rcs) {
    if (rc.preparedRound === undefined) continue
    if (best === undefined || rc.preparedRound > (best.preparedRound as bigint)) best = rc
  }
  return best
}

/**
 * checkRoundChangeCertificate throws IbftMessageError unless `rcc` is an RCC for (ctx.height,
 * round); returns the ROUND_CHANGE with the highest PC (undefined: any new block may be proposed).
 */
export function checkRoundChangeCertificate(
  ctx: HeightContext,
  round: bigint,
  rcc: RoundChange[],
): RoundChange | undefined {
  const senders = new Set<string>()
  for (const rc of rcc) {
    if (rc.round !== round) fail(`RCC holds a ROUND_CHANGE to round ${rc.round}, not ${round}`)
    checkRoundChange(ctx, rc)
    senders.add(rc.senderHex)
  }
  if (!ctx.hasQuorum(senders))
    fail(`RCC's ${senders.size} distinct ROUND_CHANGEs hold power ${ctx.powerOfAll(senders)}, quorum is ${ctx.quorumPower}`)
  return highestPrepared(rcc)
}

/**
 * The IBFT 2.0 state machine of one validator (see index.ts for the state diagram). It runs on
 * the main thread and never blocks: block building, verification and insertion are the
 * backend's promises, and every continuation first checks that the height and round it was
 * started for are still current (the `epoch`), so a late result never acts on a newer round.
 *
 * The engine owns its timers (round timeout, proposal time, ROUND_CHANGE resend); the backend
 * owns the chain. `start(h)` begins height h; the node calls `onNewHead(n)` after any block
 * insertion (our own finalization, a synced or gossiped block), which cancels the sequence of
 * every height ≤ n and starts n + 1.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import type { Logger } from '../../log.js'
import {
  type EngineOptions,
  type EngineState,
  type EngineTimers,
  type Finalized,
  NO_LOG,
  REAL_TIMERS,
} from './backend.js'
import { checkRoundChange, checkRoundChangeCertificate, type HeightContext, highestPrepared } from './certificates.js'
import { IbftError } from './errors.js'
import {
  type Commit,
  codeName,
  decodeMessage,
  encodeMessage,
  type IbftMessage,
  MessageCode,
  type PreparedCertificate,
  type Prepare,
  type PrePrepare,
  type RoundChange,
  signCommit,
  signPrepare,
  signPrePrepare,
  signRoundChange,
} from './messages.js'
import { roundTimeoutMs } from './proposer.js'
import type { IbftStateStore, PersistedVote } from './persist.js'
import { FutureMessages, HeightRounds, RoundMessages } from './roundState.js'
import { recoverCommittedSeal, signCommittedSeal } from './seal.js'

/** Heights above the current one whose messages are kept (a node further behind syncs instead). */
export const IBFT_MAX_FUTURE_HEIGHTS = 16
/** Messages kept for future heights, in all (a flood cannot grow memory without bound). */
export const IBFT_MAX_FUTURE_MESSAGES = 2048
/** Rounds of the current height kept; with timeouts doubling per round, real rounds stay far below. */
export const IBFT_MAX_ROUNDS_KEPT = 32
/** Own messages of the current height kept for resend() (a round needs at most four of them). */
export const IBFT_OWN_MESSAGES_KEPT = 16
/** While waiting in a round > 0 without a proposal, our ROUND_CHANGE is re-sent this often, so validators that (re)joined late learn the round (capped by the round-timeout base). */
export const IBFT_ROUND_CHANGE_RESEND_MS = 1000

export class IbftEngine {
  readonly #o: EngineOptions
  readonly #timers: EngineTimers
  readonly #log: Logger
  readonly #me: string
  readonly #rounds = new HeightRounds(IBFT_MAX_ROUNDS_KEPT)
  readonly #future = new FutureMessages(IBFT_MAX_FUTURE_HEIGHTS, IBFT_MAX_FUTURE_MESSAGES)
  /** What we sent at this height (wire bytes, oldest first), for peers that join late. */
  readonly #sent: Uint8Array[] = []
  #ctx: HeightContext | undefined
  #height = 0n
  #round = 0n
  #state: EngineState = 'idle'
  #epoch = 0
  /** The last PC this node formed at this height, with its block. */
  #prepared: { certificate: PreparedCertificate; proposal: Uint8Array } | undefined
  /** Our ROUND_CHANGE of the current round (re-sent while waiting). */
  #ownRoundChange: RoundChange | undefined
  /** The PREPAREs and COMMITs we sent at this height: never a second block in one round (persist.ts). */
  #votes: PersistedVote[] = []
  readonly #store: IbftStateStore | undefined
  #roundTimer: unknown
  #proposeTimer: unknown
  #resendTimer: unknown

  constructor(opts: EngineOptions) {
    this.#o = opts
    this.#timers = opts.timers ?? REAL_TIMERS
    this.#log = opts.log ?? NO_LOG
    this.#me = bytesToHex(opts.signer.address)
    this.#store = opts.stateStore
  }

  get height(): bigint {
    return this.#height
  }
  get round(): bigint {
    return this.#round
  }
  get state(): EngineState {
    return this.#state
  }

  /** Begins the sequence of `height` (round 0), dropping whatever state the previous one had. */
  start(height: bigint): void {
    this.#clearTimers()
    this.#epoch++
    this.#rounds.clear()
    this.#prepared = undefined
    this.#ownRoundChange = undefined
    this.#votes = []
    this.#sent.length = 0
    this.#height = height
    this.#round = 0n
    this.#ctx = this.#o.backend.context(height)
    if (this.#ctx === undefined || !this.#ctx.isValidator(this.#me)) {
      this.#state = 'idle'
      this.#future.take(height)
      return
    }
    const resumeAt = this.#restore(height)
    if (resumeAt === 0n) this.#enterRound(0n)
    else this.#changeRound(resumeAt)
    for (const msg of this.#future.take(height)) this.deliver(msg)
  }

  /**
   * Loads what this validator said at `height` before a restart (its votes, prepared certificate
   * and round) and returns the round to resume at; 0 when there is nothing for this height.
   */
  #restore(height: bigint): bigint {
    const saved = this.#store?.load()
    if (saved === undefined || saved.height !== height) return 0n
    this.#votes = saved.votes
    if (saved.prepared !== undefined) {
      try {
        const rc = decodeMessage(saved.prepared)
        if (rc.code === MessageCode.ROUND_CHANGE && rc.certificate !== undefined && rc.proposal !== undefined)
          this.#prepared = { certificate: rc.certificate, proposal: rc.proposal }
      } catch (err) {
        this.#log.warn(`ibft: the saved prepared certificate does not decode: ${(err as Error).message}`)
      }
    }
    const digest = this.#prepared === undefined ? 'none' : bytesToHex(this.#prepared.certificate.proposal.digest)
    this.#log.info(
      `ibft: resuming height ${height} at round ${saved.round} (${saved.votes.length} votes sent before the restart, prepared: ${digest})`,
    )
    return saved.round
  }

  /** The block we voted for with `code` in `round` at this height, if any. */
  #votedFor(round: bigint, code: number): Uint8Array | undefined {
    return this.#votes.find((v) => v.round === round && v.code === code)?.digest
  }

  /**
   * Records a vote (or a round) before the message saying it leaves this node; false when it
   * would contradict a vote already sent (another block in the same round).
   */
  #recordVote(round: bigint, code: number, digest: Uint8Array): boolean {
    const earlier = this.#votedFor(round, code)
    if (earlier !== undefined) {
      if (equalsBytes(earlier, digest)) return true
      this.#log.warn(
        `ibft: height ${this.#height} round ${round}: not voting for ${bytesToHex(digest)}, already voted for ${bytesToHex(earlier)}`,
      )
      return false
    }
    this.#votes.push({ round, code, digest })
    this.#persist()
    return true
  }

  /** Saves height, round, votes and prepared certificate (write-ahead: before the message is sent). */
  #persist(): void {
    if (this.#store === undefined) return
    const prepared =
      this.#prepared === undefined
        ? undefined
        : encodeMessage(signRoundChange(this.#o.signer, this.#height, this.#round, this.#prepared))
    this.#store.save({ height: this.#height, round: this.#round, votes: this.#votes, prepared })
  }

  /** A block up to `number` is in the chain: the sequence for its height (if running) is over. */
  onNewHead(number: bigint): void {
    if (number + 1n > this.#height) this.start(number + 1n)
  }

  /** Sends again what we said at this height: a validator that just joined (or came back) catches up with the round. */
  resend(): void {
    if (this.#state === 'idle') return
    for (const wire of this.#sent) this.#o.backend.broadcast(wire)
  }

  stop(): void {
    this.#clearTimers()
    this.#epoch++
    this.#state = 'idle'
  }

  /** Handles wire bytes from a peer; invalid messages are dropped (logged at debug). */
  receive(wire: Uint8Array): void {
    let msg: IbftMessage | undefined
    try {
      msg = decodeMessage(wire)
    } catch (err) {
      this.#log.debug(`ibft: dropped a message: ${(err as Error).message}`)
    }
    if (msg !== undefined) this.deliver(msg)
  }

  /** Handles an authenticated message (decoded from a peer, or our own). */
  deliver(msg: IbftMessage): void {
    if (msg.height > this.#height) {
      if (!this.#future.add(msg, this.#height))
        this.#log.debug(`ibft: dropped ${codeName(msg.code)} for height ${msg.height}`)
      return
    }
    const ctx = this.#ctx
    if (msg.height < this.#height || ctx === undefined || this.#state === 'idle') return
    if (!ctx.isValidator(msg.senderHex)) return
    if (msg.round > this.#round + BigInt(IBFT_MAX_ROUNDS_KEPT)) return
    try {
      if (msg.code === MessageCode.PREPREPARE) this.#onPrePrepare(ctx, msg)
      else if (msg.code === MessageCode.PREPARE) this.#onPrepare(msg)
      else if (msg.code === MessageCode.COMMIT) this.#onCommit(msg)
      else this.#onRoundChange(ctx, msg)
    } catch (err) {
      if (!(err instanceof IbftError)) throw err
      this.#log.debug(
        `ibft: rejected ${codeName(msg.code)} h${msg.height} r${msg.round} from ${msg.senderHex}: ${err.message}`,
      )
    }
  }

  // ------------------------------------------------------------------------------------------
  // Rounds and timers

  #enterRound(round: bigint): void {
    this.#clearTimers()
    this.#epoch++
    this.#round = round
    this.#state = 'new-round'
    const epoch = this.#epoch
    const timeout = roundTimeoutMs(round, this.#o.roundTimeoutBaseMs, this.#o.blockTimeMs)
    this.#roundTimer = this.#timers.set(() => this.#onRoundTimeout(epoch), timeout)
    const ctx = this.#ctx as HeightContext
    if (round === 0n && ctx.proposer(0n) === this.#me) {
      const delay = Math.max(0, this.#o.backend.proposeAtMs(this.#height) - this.#timers.now())
      this.#proposeTimer = this.#timers.set(() => this.#proposeNew(epoch), delay)
    }
  }

  #onRoundTimeout(epoch: number): void {
    if (epoch !== this.#epoch || this.#state === 'final') return
    this.#log.info(`ibft: height ${this.#height} round ${this.#round} timed out`)
    this.#changeRound(this.#round + 1n)
  }

  /** Moves to `round` and asks for it with a ROUND_CHANGE carrying our latest PC. */
  #changeRound(round: bigint): void {
    this.#enterRound(round)
    this.#persist()
    const rc = signRoundChange(this.#o.signer, this.#height, round, this.#prepared)
    this.#ownRoundChange = rc
    this.#send(rc)
    this.#armResend(this.#epoch)
  }

  #armResend(epoch: number): void {
    const every = Math.max(1, Math.min(IBFT_ROUND_CHANGE_RESEND_MS, this.#o.roundTimeoutBaseMs))
    this.#resendTimer = this.#timers.set(() => {
      if (epoch !== this.#epoch || this.#state !== 'new-round' || this.#ownRoundChange === undefined) return
      this.#o.backend.broadcast(encodeMessage(this.#ownRoundChange))
      this.#armResend(epoch)
    }, every)
  }

  #clearTimers(): void {
    for (const t of [this.#roundTimer, this.#proposeTimer, this.#resendTimer])
      if (t !== undefined) this.#timers.clear(t)
    this.#roundTimer = this.#proposeTimer = this.#resendTimer = undefined
  }

  // ------------------------------------------------------------------------------------------
  // Proposing

  #proposeNew(epoch: number): void {
    if (epoch !== this.#epoch || this.#state !== 'new-round') return
    const rs = this.#rounds.at(this.#round)
    if (rs.proposed) return
    rs.proposed = true
    const { height, round } = this
    this.#o.backend.buildProposal(height, round).then(
      (block) => {
        if (epoch !== this.#epoch || block === undefined) return
        const rcc = round === 0n ? [] : [...rs.roundChanges.values()]
        this.#propose(signPrePrepare(this.#o.signer, height, round, block, rcc))
      },
      (err) => this.#log.warn(`ibft: building block ${height} failed: ${(err as Error).message}`),
    )
  }

  /** As proposer of a round > 0 with a quorum of ROUND_CHANGEs: re-propose the highest PC's block, else a new one. */
  #tryProposeRoundChange(): void {
    const ctx = this.#ctx as HeightContext
    if (this.#round === 0n || this.#state !== 'new-round' || ctx.proposer(this.#round) !== this.#me) return
    const rs = this.#rounds.at(this.#round)
    if (rs.proposed || !ctx.hasQuorum(rs.roundChanges.keys())) return
    const highest = highestPrepared(rs.roundChanges.values())
    if (highest === undefined) {
      this.#proposeNew(this.#epoch)
      return
    }
    const block = this.#blockFor(highest.preparedDigest as Uint8Array, highest.proposal)
    if (block === undefined) {
      this.#log.warn(`ibft: cannot re-propose ${bytesToHex(highest.preparedDigest as Uint8Array)}: block not known`)
      return
    }
    rs.proposed = true
    this.#propose(signPrePrepare(this.#o.signer, this.#height, this.#round, block, [...rs.roundChanges.values()]))
  }

  #blockFor(digest: Uint8Array, attached: Uint8Array | undefined): Uint8Array | undefined {
    const own = this.#prepared
    if (attached === undefined && own !== undefined && equalsBytes(own.certificate.proposal.digest, digest))
      return own.proposal
    return attached ?? this.#rounds.at(this.#round).preparedBlock(digest)
  }

  /** Sends our own PREPREPARE and accepts it without re-verifying (the backend built or verified it). */
  #propose(pp: PrePrepare): void {
    const voted = this.#votedFor(pp.round, MessageCode.PREPARE)
    if (voted !== undefined && !equalsBytes(voted, pp.digest)) {
      this.#log.warn(`ibft: not proposing a second block in round ${pp.round} of height ${pp.height}`)
      return
    }
    this.#broadcast(encodeMessage(pp))
    this.#log.info(`ibft: proposed block ${pp.height} round ${pp.round} ${bytesToHex(pp.digest)}`)
    this.#accept(pp)
  }

  // ------------------------------------------------------------------------------------------
  // Message handlers

  #onPrePrepare(ctx: HeightContext, pp: PrePrepare): void {
    if (pp.round < this.#round || pp.proposal.length === 0) return
    if (pp.senderHex !== ctx.proposer(pp.round)) return
    let prepared: RoundChange | undefined
    if (pp.round > 0n) {
      prepared = checkRoundChangeCertificate(ctx, pp.round, pp.rcc)
      if (prepared !== undefined && !equalsBytes(prepared.preparedDigest as Uint8Array, pp.digest)) {
        this.#log.warn(
          `ibft: PREPREPARE h${pp.height} r${pp.round} from ${pp.senderHex} ignores the highest prepared block`,
        )
        return
      }
      // a valid RCC proves a quorum asked for this round: follow it
      if (pp.round > this.#round) this.#enterRound(pp.round)
    }
    if (this.#state !== 'new-round') return
    const rs = this.#rounds.at(pp.round)
    if (rs.accepted !== undefined || rs.verifying) return
    rs.verifying = true
    const epoch = this.#epoch
    const proposer = prepared === undefined ? pp.senderHex : undefined
    this.#o.backend.verifyProposal(pp.height, pp.round, pp.proposal, proposer).then(
      (ok) => {
        rs.verifying = false
        if (epoch !== this.#epoch) return
        if (ok) this.#accept(pp)
        else this.#log.warn(`ibft: proposal ${bytesToHex(pp.digest)} for h${pp.height} r${pp.round} is invalid`)
      },
      (err) => {
        rs.verifying = false
        this.#log.warn(`ibft: verifying proposal h${pp.height} r${pp.round} failed: ${(err as Error).message}`)
      },
    )
  }

  /** new-round ─▶ prepare: the proposal is valid, vote for it. */
  #accept(pp: PrePrepare): void {
    if (this.#state !== 'new-round' || pp.round !== this.#round) return
    if (!this.#recordVote(pp.round, MessageCode.PREPARE, pp.digest)) return
    const rs = this.#rounds.at(pp.round)
    rs.accepted = pp
    this.#state = 'prepare'
    if (this.#resendTimer !== undefined) this.#timers.clear(this.#resendTimer)
    this.#send(signPrepare(this.#o.signer, pp.height, pp.round, pp.digest))
    this.#checkPrepared()
    this.#checkCommitted(pp.round)
  }

  #onPrepare(p: Prepare): void {
    if (p.round < this.#round) return
    const rs = this.#rounds.at(p.round)
    if (!rs.prepares.has(p.senderHex)) rs.prepares.set(p.senderHex, p)
    if (p.round === this.#round) this.#checkPrepared()
  }

  /** prepare ─▶ commit: a quorum prepared our accepted block; remember the PC and commit-sign. */
  #checkPrepared(): void {
    const rs = this.#rounds.get(this.#round)
    const pp = rs?.accepted
    if (this.#state !== 'prepare' || rs === undefined || pp === undefined) return
    const votes = RoundMessages.votesFor(rs.prepares, pp.digest)
    if (!(this.#ctx as HeightContext).hasQuorum(votes.map((v) => v.senderHex))) return
    const stripped: PrePrepare = { ...pp, proposal: new Uint8Array(0), rcc: [] }
    this.#prepared = { certificate: { proposal: stripped, prepares: votes }, proposal: pp.proposal }
    if (!this.#recordVote(pp.round, MessageCode.COMMIT, pp.digest)) return
    this.#state = 'commit'
    const seal = signCommittedSeal(pp.digest, pp.round, this.#o.signer.key)
    this.#send(signCommit(this.#o.signer, pp.height, pp.round, pp.digest, seal))
  }

  #onCommit(c: Commit): void {
    if (!equalsBytes(recoverCommittedSeal(c.digest, c.round, c.seal), c.sender)) return
    const rs = c.round < this.#round ? this.#rounds.get(c.round) : this.#rounds.at(c.round)
    if (rs === undefined) return
    if (!rs.commits.has(c.senderHex)) rs.commits.set(c.senderHex, c)
    this.#checkCommitted(c.round)
  }

  /** any ─▶ final: a quorum committed the block we accepted in `round` (any round of this height). */
  #checkCommitted(round: bigint): void {
    const rs = this.#rounds.get(round)
    const pp = rs?.accepted
    const ctx = this.#ctx as HeightContext
    if (this.#state === 'final' || rs === undefined || pp === undefined) return
    const votes = RoundMessages.votesFor(rs.commits, pp.digest)
    if (!ctx.hasQuorum(votes.map((v) => v.senderHex))) return
    votes.sort((a, b) => ctx.indexOf(a.senderHex) - ctx.indexOf(b.senderHex))
    this.#clearTimers()
    this.#state = 'final'
    const epoch = this.#epoch
    const seals = votes.map((v) => v.seal)
    const block: Finalized = {
      height: pp.height,
      round,
      digest: pp.digest,
      proposal: pp.proposal,
      committedSeals: seals,
    }
    this.#log.info(
      `ibft: block ${pp.height} ${bytesToHex(pp.digest)} decided in round ${round} (${votes.length} seals)`,
    )
    this.#o.backend.finalize(block).catch((err) => {
      this.#log.error(`ibft: inserting block ${pp.height} failed: ${(err as Error).message}`)
      if (epoch === this.#epoch) this.#changeRound(this.#round + 1n)
    })
  }

  #onRoundChange(ctx: HeightContext, rc: RoundChange): void {
    if (rc.round <= this.#round && !(rc.round === this.#round && this.#round > 0n)) return
    checkRoundChange(ctx, rc)
    const rs = this.#rounds.at(rc.round)
    const known = rs.roundChanges.get(rc.senderHex)
    if (known === undefined || (known.proposal === undefined && rc.proposal !== undefined))
      rs.roundChanges.set(rc.senderHex, rc)
    this.#checkRoundJump(ctx)
    if (rc.round === this.#round) this.#tryProposeRoundChange()
  }

  /** f+1 validators want rounds above ours: at least one honest one timed out, so follow to the lowest of them. */
  #checkRoundJump(ctx: HeightContext): void {
    const target = this.#rounds.jumpTarget(this.#round, ctx.weakQuorumPower, (s) => ctx.powerOf(s))
    if (this.#state === 'final' || target === undefined) return
    this.#log.info(`ibft: height ${this.#height}: f+1 validators are past round ${this.#round}, moving to ${target}`)
    this.#changeRound(target)
    this.#tryProposeRoundChange()
  }

  /** Broadcasts our message and handles it as if received (our votes count toward our quorums). */
  #send(msg: IbftMessage): void {
    this.#broadcast(encodeMessage(msg))
    this.deliver(msg)
  }

  #broadcast(wire: Uint8Array): void {
    if (this.#sent.push(wire) > IBFT_OWN_MESSAGES_KEPT) this.#sent.shift()
    this.#o.backend.broadcast(wire)
  }
}

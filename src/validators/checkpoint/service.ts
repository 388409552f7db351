/**
 * The checkpoint service of a validator (issue 20; VALIDATORS.md "Checkpoints"): propose, check,
 * sign, gossip and submit checkpoints of the chain to the base chain's CheckpointManager.
 *
 *   every poll_interval (one tick at a time, every base-chain request bounded by its timeout):
 *     read the contract ─▶ count k, last end L, createdAt of the last checkpoint, its signer set
 *     a submission of ours pending? ─▶ receipt / confirmations / dropped (resend by the round)
 *     start = L + 1 ≤ our head (IBFT: final)? due = last createdAt + interval (the child chain's
 *       block 1 time before the first checkpoint; at once when max_blocks blocks wait)
 *     rank = ⌊(now − due) / proposer_timeout⌋; our turn when proposerOrder(set, k)[rank mod n] is us
 *       ─▶ end = min(head, start + max_blocks − 1), root of [start, end] from our own chain, set
 *          change = the DAO's set at `end` when it differs from the contract's ─▶ sign, gossip
 *     our proposal holds > 2/3 of the contract's power, and the grace window passed (or all signed)
 *       ─▶ re-read the contract's last end, estimate, sign the transaction, record it (atomic
 *          file), send it
 *     gossip our votes of the round again (a validator that joined late gets them)
 *
 *   vote from a peer (IBFT topic, tag 0x43) ─▶ signer recovered against the proposal's digest must
 *     be in the contract's set ─▶ a proposal not seen yet is checked once: start = L + 1, length,
 *     end ≤ our head, proposer in turn (rank ≤ ours + 1), our root, our set change ─▶ counted,
 *     and signed by us (once per proposal) when we are in the set; otherwise dropped
 *
 * What holds: a validator signs only a checkpoint that continues the contract and whose root and
 * set change its own chain and state give; nothing here runs on IBFT's path (all of it is timers
 * and promises off the block path, the DAO set read on the exec pool's call lane); a submission is
 * made only after re-reading the contract, at most one of ours is in flight, and it survives a
 * restart (serviceState.ts), so the same checkpoint is never sent twice by us, and the contract's
 * continuity check refuses it from anyone.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { hexToBytes } from '../../util/hex.js'
import { BaseChainError, CheckpointVoteError } from './baseErrors.js'
import { type CheckpointData, encodeCheckpointData } from './managerAbi.js'
import type { CheckpointServiceOptions, ManagerView, ProposalView } from './ports.js'
import { proposerAt, proposerOrder } from './proposer.js'
import { checkpointRoot } from './root.js'
import type { SubmissionRecord } from './serviceState.js'
import {
  type CheckpointProposal,
  checkpointDigest,
  concatSignatures,
  decodeVoteWire,
  encodeVoteWire,
  hasCheckpointQuorum,
  recoverCheckpointSigner,
  signCheckpoint,
} from './vote.js'

/** Proposals kept per round (one per proposer in turn and end it chose; more is a peer misbehaving). */
export const MAX_PROPOSALS_PER_ROUND = 32
/** Retries of a failed submission wait this long, doubling up to CHECKPOINT_RETRY_MAX_MS. */
export const CHECKPOINT_RETRY_BASE_MS = 2_000
export const CHECKPOINT_RETRY_MAX_MS = 5 * 60_000
/** A sent submission the base chain no longer knows after this long is given up (the round sends again). */
export const SUBMISSION_DROPPED_AFTER_MS = 60_000
/** The same base-chain failure is logged at warn at most this often. */
export const BASE_WARN_INTERVAL_MS = 30_000

/** The proposal view, for the RPC's importers (the rest of the service's ports: ports.ts). */
export type { ProposalView } from './ports.js'

/** One proposal of the round and the signatures counted for it. */
interface Collected {
  proposal: CheckpointProposal
  digest: Uint8Array
  /** undefined: being checked; true: we reproduced it; a reason: refused. */
  verified: true | string | undefined
  signatures: Map<string, { signer: Uint8Array; signature: Uint8Array }>
  /** Signatures that arrived while the proposal was being checked. */
  waiting: Uint8Array[]
  signed: bigint
  quorumAtMs: number | undefined
  /** Our vote's wire, once we signed. */
  own: Uint8Array | undefined
}

export class CheckpointService {
  readonly #o: CheckpointServiceOptions
  readonly #now: () => number
  #view: ManagerView | undefined
  #round: { start: bigint; proposals: Map<string, Collected> } | undefined
  #pending: SubmissionRecord | undefined
  #failures = 0
  #retryAtMs = 0
  #timer: NodeJS.Timeout | undefined
  #ticking = false
  #stopped = false
  #lastWarnAtMs = -Infinity

  constructor(opts: CheckpointServiceOptions) {
    this.#o = opts
    this.#now = opts.now ?? Date.now
    const saved = opts.store.load()
    if (saved !== undefined && saved.manager === bytesToHex(opts.manager)) this.#pending = saved.pending
  }

  start(): void {
    const loop = () => {
      if (this.#stopped) return
      this.tick()
        .catch((err: Error) => this.#o.log.error(`checkpoint: tick failed: ${err.stack ?? err.message}`))
        .finally(() => {
          if (!this.#stopped) this.#timer = setTimeout(loop, this.#o.params.pollIntervalMs)
        })
    }
    this.#timer = setTimeout(loop, 0)
  }

  stop(): void {
    this.#stopped = true
    if (this.#timer !== undefined) clearTimeout(this.#timer)
  }

  /** The contract as last read (undefined before the first read succeeded). */
  get view(): ManagerView | undefined {
    return this.#view
  }

  /** One round of the loop (module doc); never throws for a base-chain failure. */
  async tick(): Promise<void> {
    if (this.#ticking || this.#stopped) return
    this.#ticking = true
    try {
      await this.#tick()
    } catch (err) {
      if (!(err instanceof BaseChainError)) throw err
      this.#warn(`checkpoint: base chain unavailable, retrying in ${this.#o.params.pollIntervalMs} ms: ${err.message}`)
    } finally {
      this.#ticking = false
    }
  }

  async #tick(): Promise<void> {
    const view = await this.#o.base.read()
    this.#setView(view)
    if (this.#pending !== undefined && !(await this.#followPending(view))) return
    const start = view.lastEnd + 1n
    const head = this.#o.chain.head()
    if (head < start) return
    const now = this.#now()
    const due = this.#dueAtMs(view, head)
    if (due === undefined || now < due) return
    const me = this.#o.signer.address
    const order = this.#order(view)
    const rank = Math.floor((now - due) / this.#o.params.proposerTimeoutMs)
    const inTurn = proposerAt(order, rank)
    const round = this.#roundFor(start)
    if (inTurn !== undefined && equalsBytes(inTurn, me) && ![...round.proposals.values()].some((c) => equalsBytes(c.proposal.proposer, me))) {
      await this.#propose(view, start, head)
    }
    for (const c of round.proposals.values()) {
      if (c.own !== undefined) this.#o.broadcast(c.own)
    }
    await this.#maybeSubmit(view)
  }

  #setView(view: ManagerView): void {
    this.#view = view
    if (this.#round !== undefined && this.#round.start !== view.lastEnd + 1n) this.#round = undefined
  }

  #roundFor(start: bigint): { start: bigint; proposals: Map<string, Collected> } {
    if (this.#round?.start !== start) this.#round = { start, proposals: new Map() }
    return this.#round
  }

  /** When the checkpoint after `view` is due (ms), undefined when the time of its first block is unknown. */
  #dueAtMs(view: ManagerView, head: bigint): number | undefined {
    let since: bigint | undefined = view.lastCreatedAt
    // before the first checkpoint: the time of the first block (every node reads the same)
    since ??= this.#o.chain.timeOf(1n)
    if (since === undefined) return undefined
    const backlog = head - view.lastEnd >= BigInt(this.#o.params.maxBlocks)
    return Number(since) * 1000 + (backlog ? 0 : this.#o.params.intervalMs)
  }

  #order(view: ManagerView): Uint8Array[] {
    return proposerOrder(
      view.signers.map((signer, i) => ({ signer, power: view.powers[i] as bigint })),
      view.count,
    )
  }

  /** The round's proposals and signatures, for RPC (the one with the most signed power first). */
  proposals(): ProposalView[] {
    const view = this.#view
    const round = this.#round
    if (view === undefined || round === undefined) return []
    return [...round.proposals.values()]
      .filter((c) => c.verified === true)
      .sort((a, b) => (b.signed > a.signed ? 1 : b.signed < a.signed ? -1 : 0))
      .map((c) => ({
        proposer: c.proposal.proposer,
        start: c.proposal.start,
        end: c.proposal.end,
        root: c.proposal.root,
        newSigners: c.proposal.newSigners,
        newPowers: c.proposal.newPowers,
        signers: [...c.signatures.values()].map((s) => s.signer).sort(Buffer.compare),
        signedPower: c.signed,
        totalPower: view.total,
        quorum: hasCheckpointQuorum(c.signed, view.total),
        submitted:
          this.#pending !== undefined && this.#pending.start === c.proposal.start && this.#pending.end === c.proposal.end
            ? this.#pending.txHash
            : undefined,
      }))
  }

  // ── proposing and checking ─────────────────────────────────────────────────────────────────

  #proposal(c: CheckpointData): CheckpointProposal {
    return { ...c, childChainId: this.#o.childChainId, baseChainId: this.#o.baseChainId, manager: this.#o.manager }
  }

  /** The root of [start, end] from our chain; undefined when a block is missing. */
  #rootOf(start: bigint, end: bigint): Uint8Array | undefined {
    const hashes: Uint8Array[] = []
    for (let n = start; n <= end; n++) {
      const h = this.#o.chain.hashOf(n)
      if (h === undefined) return undefined
      hashes.push(h)
    }
    return checkpointRoot(hashes)
  }

  /** The set change a checkpoint ending at `end` carries: the DAO's set there when it differs from the contract's. */
  async #setChangeAt(view: ManagerView, end: bigint): Promise<{ newSigners: Uint8Array[]; newPowers: bigint[] } | undefined> {
    const hash = this.#o.chain.hashOf(end)
    if (hash === undefined) return undefined
    const dao = await this.#o.chain.daoSetAt(hash)
    const same =
      dao.length === view.signers.length &&
      dao.every((v, i) => equalsBytes(v.signer, view.signers[i] as Uint8Array) && v.power === view.powers[i])
    // an empty DAO set (no ValidatorSigners) never empties the contract's
    if (same || dao.length === 0) return { newSigners: [], newPowers: [] }
    return { newSigners: dao.map((v) => v.signer), newPowers: dao.map((v) => v.power) }
  }

  async #propose(view: ManagerView, start: bigint, head: bigint): Promise<void> {
    const cap = start + BigInt(this.#o.params.maxBlocks) - 1n
    const end = head < cap ? head : cap
    const root = this.#rootOf(start, end)
    const change = await this.#setChangeAt(view, end)
    if (root === undefined || change === undefined) return
    if (this.#view !== view) return // the contract moved while we read
    const proposal = this.#proposal({ proposer: this.#o.signer.address, start, end, root, ...change })
    const c = this.#collect(proposal)
    if (c === undefined) return
    c.verified = true
    this.#sign(c)
    this.#o.log.info(
      `checkpoint: proposing [${start}, ${end}] root ${bytesToHex(root)}${change.newSigners.length > 0 ? ` with a new set of ${change.newSigners.length}` : ''}`,
    )
  }

  #collect(proposal: CheckpointProposal): Collected | undefined {
    const round = this.#roundFor(proposal.start)
    const digest = checkpointDigest(proposal)
    const key = bytesToHex(digest)
    let c = round.proposals.get(key)
    if (c === undefined) {
      if (round.proposals.size >= MAX_PROPOSALS_PER_ROUND) return undefined
      c = { proposal, digest, verified: undefined, signatures: new Map(), waiting: [], signed: 0n, quorumAtMs: undefined, own: undefined }
      round.proposals.set(key, c)
    }
    return c
  }

  #sign(c: Collected): void {
    const me = this.#o.signer
    const view = this.#view
    if (c.own !== undefined || view === undefined || !view.signers.some((s) => equalsBytes(s, me.address))) return
    const signature = signCheckpoint(c.digest, me.key)
    this.#count(c, me.address, signature)
    c.own = encodeVoteWire({ checkpoint: c.proposal, signature })
    this.#o.broadcast(c.own)
  }

  #count(c: Collected, signer: Uint8Array, signature: Uint8Array): void {
    const view = this.#view
    if (view === undefined) return
    const hex = bytesToHex(signer)
    if (c.signatures.has(hex)) return
    const index = view.signers.findIndex((s) => equalsBytes(s, signer))
    if (index === -1) return
    c.signatures.set(hex, { signer, signature })
    c.signed += view.powers[index] as bigint
    if (c.quorumAtMs === undefined && hasCheckpointQuorum(c.signed, view.total)) {
      c.quorumAtMs = this.#now()
      this.#o.log.info(
        `checkpoint [${c.proposal.start}, ${c.proposal.end}] by ${bytesToHex(c.proposal.proposer)}: ${c.signatures.size} signers, ${c.signed} of ${view.total} power`,
      )
    }
  }

  /**
   * checkProposal throws CheckpointVoteError unless we would sign `p` now: it continues the
   * contract, fits max_blocks, is within our chain, its proposer is in turn and its root and set
   * change are what our chain and state give.
   */
  async checkProposal(p: CheckpointProposal): Promise<void> {
    const view = this.#view
    if (view === undefined) throw new CheckpointVoteError('not-continuous', 'the contract has not been read yet')
    if (p.start !== view.lastEnd + 1n)
      throw new CheckpointVoteError('not-continuous', `starts at ${p.start}, the contract's last checkpoint ends at ${view.lastEnd}`)
    if (p.end < p.start || p.end - p.start + 1n > BigInt(this.#o.params.maxBlocks))
      throw new CheckpointVoteError('too-long', `[${p.start}, ${p.end}] is not 1 to ${this.#o.params.maxBlocks} blocks`)
    const head = this.#o.chain.head()
    if (p.end > head) throw new CheckpointVoteError('ahead', `ends at ${p.end}, our head is ${head}`)
    const order = this.#order(view)
    const due = this.#dueAtMs(view, head) ?? 0
    // one rank of slack for clocks a little apart
    const rank = Math.max(0, Math.floor((this.#now() - due) / this.#o.params.proposerTimeoutMs)) + 1
    const turns = order.slice(0, Math.min(order.length, rank + 1))
    if (!turns.some((s) => equalsBytes(s, p.proposer)))
      throw new CheckpointVoteError('wrong-proposer', `${bytesToHex(p.proposer)} is not in turn`)
    const root = this.#rootOf(p.start, p.end)
    if (root === undefined) throw new CheckpointVoteError('ahead', `a block of [${p.start}, ${p.end}] is missing here`)
    if (!equalsBytes(root, p.root))
      throw new CheckpointVoteError('wrong-root', `root ${bytesToHex(p.root)}, our chain gives ${bytesToHex(root)}`)
    const change = await this.#setChangeAt(view, p.end)
    if (change === undefined) throw new CheckpointVoteError('ahead', `block ${p.end} is missing here`)
    const same =
      change.newSigners.length === p.newSigners.length &&
      change.newSigners.every((s, i) => equalsBytes(s, p.newSigners[i] as Uint8Array) && change.newPowers[i] === p.newPowers[i])
    if (!same)
      throw new CheckpointVoteError(
        'wrong-set',
        change.newSigners.length === 0 ? 'carries a set change, the DAO set equals the contract set' : 'carries another set than the DAO set at its end',
      )
  }

  /** A vote from a peer (the IBFT topic, tagged 0x43). */
  receive(wire: Uint8Array): void {
    if (this.#stopped) return
    let vote: ReturnType<typeof decodeVoteWire>
    try {
      vote = decodeVoteWire(wire)
    } catch (err) {
      this.#o.log.debug(`checkpoint vote dropped: ${(err as Error).message}`)
      return
    }
    const view = this.#view
    if (view === undefined || vote.checkpoint.start !== view.lastEnd + 1n) return
    const proposal = this.#proposal(vote.checkpoint)
    const digest = checkpointDigest(proposal)
    let signer: Uint8Array
    try {
      signer = recoverCheckpointSigner(digest, vote.signature)
    } catch (err) {
      this.#o.log.debug(`checkpoint vote dropped: ${(err as Error).message}`)
      return
    }
    if (!view.signers.some((s) => equalsBytes(s, signer))) {
      this.#o.log.debug(`checkpoint vote by ${bytesToHex(signer)} dropped: not a signer of the contract (or another checkpoint)`)
      return
    }
    const c = this.#collect(proposal)
    if (c === undefined) return
    if (c.verified === true) {
      this.#count(c, signer, vote.signature)
      return
    }
    if (typeof c.verified === 'string') return
    c.waiting.push(vote.signature)
    if (c.waiting.length > 1) return // being checked
    this.checkProposal(proposal).then(
      () => {
        c.verified = true
        for (const s of c.waiting) this.#count(c, recoverCheckpointSigner(c.digest, s), s)
        c.waiting = []
        this.#sign(c)
      },
      (err: Error) => {
        c.waiting = []
        const ahead = err instanceof CheckpointVoteError && err.reason === 'ahead'
        // a proposal ahead of our chain is checked again when its vote comes back; others stay refused
        if (ahead) this.#round?.proposals.delete(bytesToHex(c.digest))
        else c.verified = err.message
        this.#o.log[ahead ? 'debug' : 'warn'](
          `checkpoint [${proposal.start}, ${proposal.end}] by ${bytesToHex(proposal.proposer)} not signed: ${err.message}`,
        )
      },
    )
  }

  // ── submitting ─────────────────────────────────────────────────────────────────────────────

  async #maybeSubmit(view: ManagerView): Promise<void> {
    if (this.#pending !== undefined || this.#now() < this.#retryAtMs || this.#round === undefined) return
    const me = this.#o.signer.address
    const now = this.#now()
    const ready = [...this.#round.proposals.values()].find(
      (c) =>
        c.verified === true &&
        equalsBytes(c.proposal.proposer, me) &&
        c.quorumAtMs !== undefined &&
        (c.signatures.size === view.signers.length || now - c.quorumAtMs >= this.#o.params.graceMs),
    )
    if (ready === undefined) return
    // always from the contract as it is now: someone may have submitted meanwhile
    const fresh = await this.#o.base.read()
    this.#setView(fresh)
    if (fresh.lastEnd + 1n !== ready.proposal.start) {
      this.#o.log.info(`checkpoint [${ready.proposal.start}, ${ready.proposal.end}]: the contract moved to ${fresh.lastEnd}, not sent`)
      return
    }
    const data = encodeCheckpointData(ready.proposal)
    const sigs = concatSignatures(ready.signatures.values())
    let tx: { raw: Uint8Array; hash: Uint8Array; nonce: bigint }
    try {
      tx = await this.#o.base.prepare(data, sigs)
    } catch (err) {
      this.#backoff(`estimate of [${ready.proposal.start}, ${ready.proposal.end}] failed`, err)
      return
    }
    this.#pending = {
      start: ready.proposal.start,
      end: ready.proposal.end,
      root: bytesToHex(ready.proposal.root),
      txHash: bytesToHex(tx.hash),
      nonce: tx.nonce,
      sentAtMs: this.#now(),
    }
    this.#save()
    try {
      await this.#o.base.send(tx.raw)
    } catch (err) {
      // recorded before sending: the next tick asks the base chain whether it has it
      this.#backoff(`sending [${ready.proposal.start}, ${ready.proposal.end}] failed`, err)
      return
    }
    this.#failures = 0
    this.#o.log.info(
      `checkpoint [${ready.proposal.start}, ${ready.proposal.end}] submitted with ${ready.signatures.size} signatures: ${bytesToHex(tx.hash)}`,
    )
  }

  /** Follows our pending submission; true when the round may go on (nothing of ours in flight). */
  async #followPending(view: ManagerView): Promise<boolean> {
    const p = this.#pending as SubmissionRecord
    const status = await this.#o.base.status(hexToBytes(p.txHash))
    if (status.state === 'mined') {
      if (!status.ok) {
        this.#clearPending()
        if (view.lastEnd >= p.end) return true
        this.#backoff(`submission ${p.txHash} of [${p.start}, ${p.end}] reverted`, undefined)
        return true
      }
      const head = await this.#o.base.head()
      if (head + 1n - status.blockNumber >= BigInt(this.#o.params.baseConfirmations)) {
        this.#o.log.info(`checkpoint [${p.start}, ${p.end}] committed (${p.txHash}, ${head + 1n - status.blockNumber} confirmations)`)
        this.#clearPending()
        return true
      }
      return false
    }
    if (view.lastEnd >= p.end && status.state === 'unknown') {
      // someone else's submission of the same range made it first; ours is gone
      this.#clearPending()
      return true
    }
    if (status.state === 'unknown' && this.#now() - p.sentAtMs > SUBMISSION_DROPPED_AFTER_MS) {
      this.#o.log.warn(`checkpoint submission ${p.txHash} of [${p.start}, ${p.end}] is unknown to the base chain: given up`)
      this.#clearPending()
      return true
    }
    return false
  }

  #clearPending(): void {
    this.#pending = undefined
    this.#save()
  }

  #save(): void {
    this.#o.store.save({ manager: bytesToHex(this.#o.manager), pending: this.#pending })
  }

  #backoff(what: string, err: unknown): void {
    this.#failures++
    const wait = Math.min(CHECKPOINT_RETRY_MAX_MS, CHECKPOINT_RETRY_BASE_MS * 2 ** Math.min(this.#failures - 1, 20))
    this.#retryAtMs = this.#now() + wait
    this.#o.log.warn(`checkpoint: ${what}${err === undefined ? '' : `: ${(err as Error).message}`}; retry in ${wait} ms`)
  }

  #warn(message: string): void {
    const now = this.#now()
    if (now - this.#lastWarnAtMs < BASE_WARN_INTERVAL_MS) {
      this.#o.log.debug(message)
      return
    }
    this.#lastWarnAtMs = now
    this.#o.log.warn(message)
  }
}

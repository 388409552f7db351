/**
 * Span consent on a live network (issue 19): every validator of the set at a span's reference
 * block signs the committee it draws itself, gossips the signature, and collects the others'; the
 * proposer of the span's last block puts the collected signatures in its header (the span record)
 * once they hold > 2/3 of the set's power.
 *
 *   head enters span k (block ≥ R = first block of span k)
 *     ─▶ read the set at R (exec pool) ─▶ draw span k+1 (src/validators) ─▶ in the set? sign,
 *        gossip  TAG ‖ RLP([spanId, refBlockHash, signature])  on the IBFT topic
 *   consent from a peer ─▶ recovered against OUR proposal's digest ─▶ kept when the signer is in
 *        our set at R (a peer that drew something else recovers to a stranger: dropped)
 *   BlockBuilder asks recordFor(spanEnd(k)) ─▶ the record when > 2/3 of the power signed, else
 *        nothing (the committee carries on for span k+1)
 *   head reaches spanEnd(k) ─▶ the span's collection is dropped
 *
 * The tag byte is below every RLP list prefix (0xc0…0xff), so a consent is never mistaken for an
 * IBFT message (which is always an RLP list) and ibftNetwork.ts routes by the first byte.
 * Consents for a span we have not drawn yet (a peer ahead of us) wait in a bounded buffer. Our own
 * consent is gossiped again on every new head of the span and when a peer joins the topic, so a
 * validator that (re)connected late still collects it before the span's last block.
 *
 * Nothing here is trusted by import: a record is checked again by every node (verifySpanRecord).
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes, equalsBytes } from '@ethereumjs/util'

import type { SpanRecord } from '../chain/ibft/span.js'
import { SPAN_REF_HASH_BYTES, SPAN_SIGNATURE_BYTES } from '../chain/ibft/span.js'
import type { ChainStore } from '../chain/store.js'
import type { Logger } from '../log.js'
import {
  consentDigest,
  hasSupermajority,
  recoverConsentSigner,
  signConsent,
  type SpanCommittees,
  type SpanProposal,
  spanEnd,
  spanOf,
  spanProposal,
  spanStart,
  totalPower,
  type ValidatorSet,
} from '../validators/index.js'

/** First byte of a consent on the IBFT topic: below 0xc0, so never the start of an IBFT message (an RLP list). */
export const SPAN_CONSENT_WIRE_TAG = 0x53
/** Largest consent message accepted: tag + RLP of (uint64, 32 bytes, 65 bytes) is about 110 bytes. */
export const SPAN_CONSENT_MAX_WIRE_BYTES = 256
/** Consents kept for spans we have not drawn yet (peers ahead of us); the DAO has at most 150 seats. */
export const SPAN_CONSENTS_BUFFERED = 1024

/** A consent as it travels. */
export interface ConsentWire {
  spanId: bigint
  refBlockHash: Uint8Array
  signature: Uint8Array
}

/** isConsentWire tells a consent from an IBFT message by its first byte. */
export function isConsentWire(wire: Uint8Array): boolean {
  return wire[0] === SPAN_CONSENT_WIRE_TAG
}

export function encodeConsentWire(c: ConsentWire): Uint8Array {
  return concatBytes(
    Uint8Array.of(SPAN_CONSENT_WIRE_TAG),
    RLP.encode([bigIntToUnpaddedBytes(c.spanId), c.refBlockHash, c.signature]),
  )
}

/** decodeConsentWire parses a consent; throws Error naming what is wrong. */
export function decodeConsentWire(wire: Uint8Array): ConsentWire {
  if (!isConsentWire(wire)) throw new Error('not a span consent')
  if (wire.length > SPAN_CONSENT_MAX_WIRE_BYTES) throw new Error(`span consent of ${wire.length} bytes`)
  const item = RLP.decode(wire.subarray(1)) as unknown
  if (!Array.isArray(item) || item.length !== 3 || !item.every((x) => x instanceof Uint8Array))
    throw new Error('span consent is not [spanId, refBlockHash, signature]')
  const [id, ref, signature] = item as Uint8Array[]
  if ((id as Uint8Array).length > 8 || (id as Uint8Array)[0] === 0) throw new Error('span consent: bad span id')
  if ((ref as Uint8Array).length !== SPAN_REF_HASH_BYTES) throw new Error('span consent: bad reference hash')
  if ((signature as Uint8Array).length !== SPAN_SIGNATURE_BYTES) throw new Error('span consent: bad signature length')
  return { spanId: bytesToBigInt(id as Uint8Array), refBlockHash: ref as Uint8Array, signature: signature as Uint8Array }
}

export interface SpanConsentOptions {
  chainId: bigint
  committees: SpanCommittees
  store: ChainStore
  /** The validator set at a block (readValidatorSet over the exec pool's call lane). */
  readSet(blockHash: Uint8Array): Promise<ValidatorSet>
  /** This node's signer; undefined: collect only. */
  signer: { key: Uint8Array; address: Uint8Array } | undefined
  broadcast(wire: Uint8Array): void
  log: Logger
}

/** The collection for one span. */
interface Open {
  spanId: bigint
  /** undefined: the set at R was empty, nothing to consent to (the committee carries on). */
  proposal: SpanProposal | undefined
  digest: Uint8Array
  power: Map<string, bigint>
  total: bigint
  signatures: Map<string, { signer: Uint8Array; signature: Uint8Array }>
  signed: bigint
  own: Uint8Array | undefined
}

export class SpanConsent {
  readonly #o: SpanConsentOptions
  #open: Open | undefined
  #preparing: bigint | undefined
  #buffer: ConsentWire[] = []
  #stopped = false

  constructor(opts: SpanConsentOptions) {
    this.#o = opts
  }

  stop(): void {
    this.#stopped = true
  }

  /** Power that consented to `spanId` so far, and the set's total (tests, logs). */
  progress(spanId: bigint): { signed: bigint; total: bigint; signers: number } | undefined {
    const open = this.#open
    if (open?.spanId !== spanId || open.proposal === undefined) return undefined
    return { signed: open.signed, total: open.total, signers: open.signatures.size }
  }

  /** Block `height` is our new head: draw and sign the next span when it is time, or close a finished span. */
  onHead(height: bigint): void {
    if (this.#stopped || height === 0n) return
    const S = this.#o.committees.params.spanBlocks
    const k = spanOf(height, S)
    const next = k + 1n
    if (height === spanEnd(k, S)) {
      // the record block is decided: span `next` starts with whatever it carried
      if (this.#open !== undefined && this.#open.spanId <= next) this.#open = undefined
      this.#buffer = this.#buffer.filter((c) => c.spanId > next)
      return
    }
    if (this.#open?.spanId === next) {
      if (this.#open.own !== undefined) this.#o.broadcast(this.#open.own)
      return
    }
    if (this.#preparing === next) return
    const ref = this.#o.store.getBlockByNumber(spanStart(k, S))
    if (ref === undefined) return
    this.#preparing = next
    this.#prepare(next, ref.hash).finally(() => {
      if (this.#preparing === next) this.#preparing = undefined
    })
  }

  /** A consent from a peer (the IBFT topic, tagged). */
  receive(wire: Uint8Array): void {
    let c: ConsentWire
    try {
      c = decodeConsentWire(wire)
    } catch (err) {
      this.#o.log.debug(`span consent dropped: ${(err as Error).message}`)
      return
    }
    const open = this.#open
    if (open !== undefined && c.spanId === open.spanId) {
      if (open.proposal !== undefined && equalsBytes(c.refBlockHash, open.proposal.refBlockHash)) this.#add(open, c.signature)
      return
    }
    const head = this.#o.store.head.header.number
    if (c.spanId <= spanOf(head, this.#o.committees.params.spanBlocks)) return
    if (this.#buffer.length >= SPAN_CONSENTS_BUFFERED) this.#buffer.shift()
    this.#buffer.push(c)
  }

  /** Our own consent again (a peer joined the topic). */
  resend(): void {
    if (this.#open?.own !== undefined) this.#o.broadcast(this.#open.own)
  }

  /** The span record block `height` carries: only the last block of a span, with > 2/3 of the power collected. */
  recordFor(height: bigint): SpanRecord | undefined {
    const S = this.#o.committees.params.spanBlocks
    if (height < 1n || height !== spanEnd(spanOf(height, S), S)) return undefined
    const open = this.#open
    if (open?.spanId !== spanOf(height, S) + 1n || open.proposal === undefined) return undefined
    if (!hasSupermajority(open.signed, open.total)) return undefined
    const signatures = [...open.signatures.values()]
      .sort((a, b) => Buffer.compare(a.signer, b.signer))
      .map((s) => s.signature)
    return { ...open.proposal, signatures }
  }

  async #prepare(spanId: bigint, refBlockHash: Uint8Array): Promise<void> {
    const { log, committees } = this.#o
    let set: ValidatorSet
    try {
      set = await this.#o.readSet(refBlockHash)
    } catch (err) {
      log.warn(`span ${spanId}: validator set at ${bytesToHex(refBlockHash)} unreadable, retried next block: ${(err as Error).message}`)
      return
    }
    if (this.#stopped) return
    // the span's last block may have been decided while we read
    const S = committees.params.spanBlocks
    if (this.#o.store.head.header.number >= spanEnd(spanId - 1n, S)) return
    const proposal = spanProposal(this.#o.chainId, committees.params, spanId, refBlockHash, set)
    const open: Open = {
      spanId,
      proposal,
      digest: proposal === undefined ? new Uint8Array(0) : consentDigest(proposal),
      power: new Map(set.map((v) => [bytesToHex(v.signer), v.power])),
      total: totalPower(set),
      signatures: new Map(),
      signed: 0n,
      own: undefined,
    }
    this.#open = open
    if (proposal === undefined) {
      log.info(`span ${spanId}: no validators at the reference block, the committee carries on`)
      return
    }
    const me = this.#o.signer
    if (me !== undefined && open.power.has(bytesToHex(me.address))) {
      const signature = signConsent(proposal, me.key)
      this.#add(open, signature)
      open.own = encodeConsentWire({ spanId, refBlockHash, signature })
      this.#o.broadcast(open.own)
    }
    log.info(
      `span ${spanId}: committee drawn at ${bytesToHex(refBlockHash)}: ${proposal.committee
        .map((m) => `${bytesToHex(m.signer)}×${m.power}`)
        .join(' ')}${open.own === undefined ? '' : ' (consented)'}`,
    )
    const waiting = this.#buffer
    this.#buffer = []
    for (const c of waiting) {
      if (c.spanId === spanId) {
        if (equalsBytes(c.refBlockHash, refBlockHash)) this.#add(open, c.signature)
      } else if (c.spanId > spanId) this.#buffer.push(c)
    }
  }

  #add(open: Open, signature: Uint8Array): void {
    if (open.proposal === undefined) return
    let signer: Uint8Array
    try {
      signer = recoverConsentSigner(open.proposal, signature, open.digest)
    } catch (err) {
      this.#o.log.debug(`span ${open.spanId}: consent dropped: ${(err as Error).message}`)
      return
    }
    const hex = bytesToHex(signer)
    const power = open.power.get(hex)
    if (power === undefined) {
      this.#o.log.debug(`span ${open.spanId}: consent by ${hex}, not in the set at the reference block (or another draw)`)
      return
    }
    if (open.signatures.has(hex)) return
    const before = hasSupermajority(open.signed, open.total)
    open.signatures.set(hex, { signer, signature })
    open.signed += power
    if (!before && hasSupermajority(open.signed, open.total))
      this.#o.log.info(`span ${open.spanId}: consent of ${open.signatures.size} validators, ${open.signed} of ${open.total} power`)
  }
}

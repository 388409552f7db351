/**
 * Which committee produces a height, read from the chain's headers alone (no state, no EVM), and
 * the full check of a span record in a span's first block.
 *
 *   committee(span 0)  = the genesis header's validators, power 1 each, in header order
 *   committee(span k)  = the span record carried by block spanEnd(k-1), the last block of span k-1,
 *                        when it carries one
 *                      = committee(span k-1) otherwise (no consent by the boundary: it carries on)
 *
 * The record rides in the last block before the span (VALIDATORS.md: "the block that starts the
 * span, or … before it"), decided by the outgoing committee, so that the committee of every height
 * is known from its parent chain before anyone proposes at that height: IBFT needs it to know who
 * may propose and vote. The first block of the span then lists the new signers in `validators`.
 *
 * A span record is accepted (verifySpanRecord) only when it is in the last block of a span and
 * names the next span (id, start, end), its reference hash is the canonical block R of the span, its committee is the draw from
 * the validator set at R seeded by R's hash, and signers of that set holding > 2/3 of its power
 * consented. Nothing a peer says is trusted: the set comes from our own state at R.
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { decodeExtra } from '../chain/ibft/extra.js'
import type { SpanRecord } from '../chain/ibft/span.js'
import { type Committee, drawCommittee } from './draw.js'
import { SpanConsentError } from './errors.js'
import { type SpanProposal, verifyConsent } from './consent.js'
import type { ValidatorSet } from './set.js'
import { referenceBlock, type SpanParams, spanEnd, spanOf, spanStart } from './spans.js'

/** Committees kept in memory by span id (a lookup walks back over carried-on spans only once). */
export const SPAN_COMMITTEES_KEPT = 256

/** Canonical headers by number, as the chain store has them. */
export interface HeaderSource {
  /** extraData of canonical block `number`, undefined when not (yet) in the chain. */
  extraDataAt(number: bigint): Uint8Array | undefined
}

export class SpanCommittees {
  readonly params: SpanParams
  readonly #headers: HeaderSource
  readonly #cache = new Map<bigint, Committee>()

  constructor(params: SpanParams, headers: HeaderSource) {
    if (params.spanBlocks <= 0n) throw new RangeError('SpanCommittees needs span_blocks > 0')
    this.params = params
    this.#headers = headers
  }

  /** The committee of block `height`'s span; undefined while the block before the span is unknown. */
  committeeAt(height: bigint): Committee | undefined {
    return this.committeeOf(spanOf(height, this.params.spanBlocks))
  }

  /** The committee of span `spanId`; undefined while the last block of the span before it is not in the chain. */
  committeeOf(spanId: bigint): Committee | undefined {
    const S = this.params.spanBlocks
    // walk back to a span whose committee is known or recorded, then fill the cache forward
    const carried: bigint[] = []
    let k = spanId
    let found: Committee | undefined
    for (;;) {
      found = this.#cache.get(k)
      if (found !== undefined) break
      if (k === 0n) {
        const genesis = this.#headers.extraDataAt(0n)
        if (genesis === undefined) return undefined
        found = decodeExtra(genesis).validators.map((signer) => ({ signer, power: 1n }))
        this.#keep(0n, found)
        break
      }
      const extra = this.#headers.extraDataAt(spanEnd(k - 1n, S))
      if (extra === undefined) return undefined
      const span = decodeExtra(extra).span
      if (span !== undefined) {
        found = span.committee
        this.#keep(k, found)
        break
      }
      carried.push(k)
      k--
    }
    for (const c of carried) this.#keep(c, found)
    return found
  }

  #keep(spanId: bigint, committee: Committee): void {
    if (this.#cache.size >= SPAN_COMMITTEES_KEPT) {
      const oldest = this.#cache.keys().next().value
      if (oldest !== undefined) this.#cache.delete(oldest)
    }
    this.#cache.set(spanId, committee)
  }
}

/** committeeSigners lists the signers of a committee (the header's `validators` field). */
export function committeeSigners(committee: Committee): Uint8Array[] {
  return committee.map((m) => m.signer)
}

/** sameCommittee compares signers and powers, in order. */
export function sameCommittee(a: Committee, b: Committee): boolean {
  return (
    a.length === b.length &&
    a.every((m, i) => equalsBytes(m.signer, (b[i] as Committee[number]).signer) && m.power === (b[i] as Committee[number]).power)
  )
}

/**
 * spanProposal is what validators sign for span `spanId` (≥ 1), drawn from `set` at the reference
 * block `refBlockHash`; undefined when the set is empty (nothing to draw: the committee carries on).
 */
export function spanProposal(
  chainId: bigint,
  params: SpanParams,
  spanId: bigint,
  refBlockHash: Uint8Array,
  set: ValidatorSet,
): SpanProposal | undefined {
  const committee = drawCommittee(set, refBlockHash, params.producers)
  if (committee.length === 0) return undefined
  const S = params.spanBlocks
  return { chainId, spanId, start: spanStart(spanId, S), end: spanEnd(spanId, S), committee, refBlockHash }
}

/** What a span record is checked against. */
export interface SpanCheck {
  chainId: bigint
  params: SpanParams
  /** Number of the block carrying the record (the last block of the span before the record's). */
  height: bigint
  record: SpanRecord
  /** Hash of our canonical block R (referenceBlock of the span). */
  refBlockHash: Uint8Array
  /** The validator set at R, read from our own state (set.ts). */
  set: ValidatorSet
}

/** verifySpanRecord throws SpanConsentError unless `c.record` is a valid switch carried by block `c.height` (module doc). */
export function verifySpanRecord(c: SpanCheck): void {
  const S = c.params.spanBlocks
  const r = c.record
  const spanId = spanOf(c.height, S) + 1n
  if (c.height < 1n || c.height !== spanEnd(spanId - 1n, S))
    throw new SpanConsentError('wrong-span', `block ${c.height} is not the last block of a span: it carries no span record`)
  if (r.spanId !== spanId || r.start !== spanStart(spanId, S) || r.end !== spanEnd(spanId, S))
    throw new SpanConsentError(
      'wrong-span',
      `record says span ${r.spanId} [${r.start}, ${r.end}], block ${c.height} precedes span ${spanId} [${spanStart(spanId, S)}, ${spanEnd(spanId, S)}]`,
    )
  if (!equalsBytes(r.refBlockHash, c.refBlockHash))
    throw new SpanConsentError(
      'wrong-reference',
      `refBlockHash ${bytesToHex(r.refBlockHash)} is not block ${referenceBlock(spanId, S)} (${bytesToHex(c.refBlockHash)})`,
    )
  const proposal = spanProposal(c.chainId, c.params, spanId, c.refBlockHash, c.set)
  if (proposal === undefined) throw new SpanConsentError('empty-set', `no validators at block ${referenceBlock(spanId, S)}`)
  if (!sameCommittee(proposal.committee, r.committee))
    throw new SpanConsentError('wrong-committee', `the draw at block ${referenceBlock(spanId, S)} gives another committee`)
  verifyConsent(proposal, r.signatures, c.set)
}

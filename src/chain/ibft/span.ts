/**
 * The span record an IBFT header may carry (issue 19): the committee of a new span and the
 * signatures of the validators who consented to it. It is the optional sixth field of the
 * extraData list, present only in the last block before a span whose committee changes (the new
 * committee decides from the next block on: src/validators/committees.ts):
 *
 *   span = RLP([spanId, start, end, [[signer, power], …], refBlockHash, [signature, …]])
 *
 *   spanId, start, end  unsigned integers, minimal big-endian (0 = empty string), ≤ uint64
 *   signer              20 bytes; entries in strictly ascending signer order
 *   power               unsigned integer > 0, minimal big-endian, ≤ uint64 (times drawn)
 *   refBlockHash        32 bytes: the block whose state and hash the committee was drawn from
 *   signature           65 bytes r‖s‖v (v = 0/1) over the span's consent digest
 *                       (src/validators/consent.ts)
 *
 * This file only fixes the bytes; what makes a span record valid (the draw, the consent, the
 * range) is the validator layer's (src/validators) and block import's business. The record is
 * covered by the block hash (blankedExtra keeps it), so a relay cannot strip or alter it.
 */
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'

import { IbftExtraError } from './errors.js'

/** Bytes of a signer address in a span record. */
export const SPAN_SIGNER_BYTES = 20
/** Bytes of the reference block hash. */
export const SPAN_REF_HASH_BYTES = 32
/** Bytes of a consent signature. */
export const SPAN_SIGNATURE_BYTES = 65
/** Largest integer field a span record holds (uint64: span ids, block numbers, draw counts). */
export const SPAN_MAX_UINT = (1n << 64n) - 1n
/** Bytes of the largest integer field (uint64). */
const SPAN_MAX_UINT_BYTES = 8

/** One committee member: its signer and voting power (times drawn). */
export interface CommitteeMember {
  signer: Uint8Array
  power: bigint
}

/** The decoded span record of a span's first block. */
export interface SpanRecord {
  spanId: bigint
  start: bigint
  end: bigint
  /** Members in strictly ascending signer order, each with power > 0. */
  committee: CommitteeMember[]
  refBlockHash: Uint8Array
  /** Consent signatures (65 bytes each), in ascending order of the signers they recover to. */
  signatures: Uint8Array[]
}

/** spanItem returns the RLP item (nested arrays) of a span record; throws IbftExtraError on bad fields. */
export function spanItem(span: SpanRecord): unknown[] {
  checkSpan(span)
  return [
    bigIntToUnpaddedBytes(span.spanId),
    bigIntToUnpaddedBytes(span.start),
    bigIntToUnpaddedBytes(span.end),
    span.committee.map((m) => [m.signer, bigIntToUnpaddedBytes(m.power)]),
    span.refBlockHash,
    span.signatures,
  ]
}

function fail(details: string): never {
  throw new IbftExtraError('bad-span', details)
}

/** decodeSpanItem parses the sixth extraData field; throws IbftExtraError('bad-span') naming what is wrong. */
export function decodeSpanItem(item: unknown): SpanRecord {
  if (!Array.isArray(item)) fail('span is a byte string, expected a list')
  if (item.length !== 6) fail(`span has ${item.length} fields, expected 6`)
  const [spanId, start, end, committee, refBlockHash, signatures] = item as unknown[]
  if (!Array.isArray(committee)) fail('span committee is a byte string, expected a list')
  if (!(refBlockHash instanceof Uint8Array) || refBlockHash.length !== SPAN_REF_HASH_BYTES)
    fail(`span refBlockHash is not ${SPAN_REF_HASH_BYTES} bytes`)
  if (!Array.isArray(signatures)) fail('span signatures is a byte string, expected a list')
  const span: SpanRecord = {
    spanId: uint(spanId, 'spanId'),
    start: uint(start, 'start'),
    end: uint(end, 'end'),
    committee: committee.map((entry: unknown, i) => {
      if (!Array.isArray(entry) || entry.length !== 2) fail(`span committee[${i}] is not [signer, power]`)
      const [signer, power] = entry as unknown[]
      if (!(signer instanceof Uint8Array)) fail(`span committee[${i}] signer is a list`)
      return { signer, power: uint(power, `committee[${i}] power`) }
    }),
    refBlockHash,
    signatures: signatures.map((s: unknown, i) => {
      if (!(s instanceof Uint8Array)) fail(`span signatures[${i}] is a list`)
      return s
    }),
  }
  checkSpan(span)
  return span
}

function uint(item: unknown, field: string): bigint {
  if (!(item instanceof Uint8Array)) fail(`span ${field} is a list, expected an integer`)
  if (item.length > SPAN_MAX_UINT_BYTES) fail(`span ${field} is ${item.length} bytes, at most ${SPAN_MAX_UINT_BYTES}`)
  if (item.length > 0 && item[0] === 0) fail(`span ${field} has a leading zero byte`)
  return item.length === 0 ? 0n : bytesToBigInt(item)
}

function checkSpan(span: SpanRecord): void {
  for (const [field, v] of [
    ['spanId', span.spanId],
    ['start', span.start],
    ['end', span.end],
  ] as const) {
    if (v < 0n || v > SPAN_MAX_UINT) fail(`span ${field} ${v} is outside uint64`)
  }
  if (span.end < span.start) fail(`span ends at ${span.end}, before its start ${span.start}`)
  if (span.committee.length === 0) fail('span committee is empty')
  let previous: Uint8Array | undefined
  span.committee.forEach((m, i) => {
    if (m.signer.length !== SPAN_SIGNER_BYTES)
      fail(`span committee[${i}] signer is ${m.signer.length} bytes, expected ${SPAN_SIGNER_BYTES}`)
    if (m.power <= 0n || m.power > SPAN_MAX_UINT) fail(`span committee[${i}] power ${m.power} is not in 1..2^64-1`)
    if (previous !== undefined && compareBytes(previous, m.signer) >= 0)
      fail(`span committee[${i}] is not in strictly ascending signer order`)
    previous = m.signer
  })
  if (span.refBlockHash.length !== SPAN_REF_HASH_BYTES)
    fail(`span refBlockHash is ${span.refBlockHash.length} bytes, expected ${SPAN_REF_HASH_BYTES}`)
  span.signatures.forEach((s, i) => {
    if (s.length !== SPAN_SIGNATURE_BYTES)
      fail(`span signatures[${i}] is ${s.length} bytes, expected ${SPAN_SIGNATURE_BYTES}`)
  })
}

/** compareBytes orders byte strings lexicographically (equal-length addresses: numerically). */
export function compareBytes(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number)
  return a.length - b.length
}

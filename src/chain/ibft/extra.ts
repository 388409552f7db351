/**
 * The IBFT extraData codec.
 *
 *   extraData = vanity (32 bytes) ‖ RLP([validators, proposerSeal, committedSeals,
 *                                         parentCommittedSeals, round, span?])
 *
 * validators: list of 20-byte addresses; proposerSeal: 65 bytes r‖s‖v (v = 0/1) or empty before
 * sealing; committedSeals, parentCommittedSeals: lists of 65-byte seals; round: 8 bytes big-endian
 * in a sealed extraData, the empty string in the blanked form hashed for the block hash.
 * span: optional sixth field, only in the last block before a span whose committee changes (span.ts);
 * absent when spans are off, so those extraData bytes (and block hashes) are exactly the 5-field form.
 */
import { RLP } from '@ethereumjs/rlp'
import { concatBytes, hexToBytes } from '@ethereumjs/util'

import { IbftExtraError } from './errors.js'
import { decodeSpanItem, type SpanRecord, spanItem } from './span.js'

/** Bytes of free-form vanity before the RLP part of extraData. */
export const VANITY_BYTES = 32
/** Bytes of a validator address. */
export const ADDRESS_BYTES = 20
/** Bytes of a seal: r (32) ‖ s (32) ‖ v (1, recovery id 0/1). */
export const SEAL_BYTES = 65
/** Bytes of the round in a sealed extraData (uint64 big-endian). */
export const ROUND_BYTES = 8
/** Largest round the 8-byte encoding holds. */
export const MAX_ROUND = (1n << 64n) - 1n

/** IBFT_MIX_HASH_HEX is the header mixHash of every IBFT block (ASCII "ctical byzantine fault tolerance"). */
export const IBFT_MIX_HASH_HEX = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365'
/** IBFT_MIX_HASH as bytes. Do not mutate. */
export const IBFT_MIX_HASH: Uint8Array = hexToBytes(IBFT_MIX_HASH_HEX)

/** The decoded content of an IBFT extraData. */
export interface IbftExtra {
  /** Free-form, exactly VANITY_BYTES bytes. */
  vanity: Uint8Array
  /** Validator addresses (20 bytes each), in proposer-rotation order. */
  validators: Uint8Array[]
  /** 65-byte proposer seal, or empty when not yet sealed. */
  proposerSeal: Uint8Array
  /** 65-byte committed seals of this block. */
  committedSeals: Uint8Array[]
  /** 65-byte committed seals of the parent block (empty list for block 1). */
  parentCommittedSeals: Uint8Array[]
  /** Round in which the block was committed (0n when absent, as in a blanked or genesis extraData). */
  round: bigint
  /** The next span's committee and its consent (span.ts); only in the last block before a span that switches committee. */
  span?: SpanRecord
}

const EMPTY = new Uint8Array(0)

/** roundToBytes encodes a round as uint64 big-endian (8 bytes); throws IbftExtraError when out of range. */
export function roundToBytes(round: bigint): Uint8Array {
  if (round < 0n || round > MAX_ROUND) {
    throw new IbftExtraError('bad-round', `round ${round} is outside uint64`)
  }
  const out = new Uint8Array(ROUND_BYTES)
  new DataView(out.buffer).setBigUint64(0, round, false)
  return out
}

/** encodeExtra writes a sealed extraData (round as 8 bytes). Throws IbftExtraError on wrong lengths. */
export function encodeExtra(extra: IbftExtra): Uint8Array {
  checkExtra(extra)
  const fields: unknown[] = [
    extra.validators,
    extra.proposerSeal,
    extra.committedSeals,
    extra.parentCommittedSeals,
    roundToBytes(extra.round),
  ]
  if (extra.span !== undefined) fields.push(spanItem(extra.span))
  return concatBytes(extra.vanity, RLP.encode(fields as Parameters<typeof RLP.encode>[0]))
}

/**
 * blankedExtra writes the extraData hashed for the block hash: proposerSeal and round as empty
 * strings (0x80), committedSeals as the empty list (0xc0); vanity, validators,
 * parentCommittedSeals and the span record (when present) kept.
 */
export function blankedExtra(extra: IbftExtra): Uint8Array {
  checkExtra(extra)
  const fields: unknown[] = [extra.validators, EMPTY, [], extra.parentCommittedSeals, EMPTY]
  if (extra.span !== undefined) fields.push(spanItem(extra.span))
  return concatBytes(extra.vanity, RLP.encode(fields as Parameters<typeof RLP.encode>[0]))
}

/**
 * decodeExtra parses an extraData. Accepts both the sealed form and the blanked / unsealed form
 * (empty proposerSeal and round). Throws IbftExtraError naming the first thing that is wrong.
 */
export function decodeExtra(extraData: Uint8Array): IbftExtra {
  if (extraData.length < VANITY_BYTES) {
    throw new IbftExtraError(
      'short-extra',
      `extraData is ${extraData.length} bytes, needs at least ${VANITY_BYTES} of vanity`,
    )
  }
  let decoded: Uint8Array | unknown[]
  try {
    // stream = false: trailing bytes after the list are rejected.
    decoded = RLP.decode(extraData.subarray(VANITY_BYTES))
  } catch (err) {
    throw new IbftExtraError('bad-rlp', (err as Error).message, err)
  }
  if (!Array.isArray(decoded)) {
    throw new IbftExtraError('not-a-list', 'RLP part of extraData is a byte string, expected a list')
  }
  if (decoded.length !== 5 && decoded.length !== 6) {
    throw new IbftExtraError('field-count', `RLP list has ${decoded.length} fields, expected 5 (or 6 with a span)`)
  }
  const [validators, proposerSeal, committedSeals, parentCommittedSeals, round, span] = decoded
  const extra: IbftExtra = {
    vanity: extraData.slice(0, VANITY_BYTES),
    validators: bytesList(validators, ADDRESS_BYTES, 'bad-validator', 'validators'),
    proposerSeal: optionalBytes(proposerSeal, SEAL_BYTES, 'bad-proposer-seal', 'proposerSeal'),
    committedSeals: bytesList(committedSeals, SEAL_BYTES, 'bad-committed-seal', 'committedSeals'),
    parentCommittedSeals: bytesList(
      parentCommittedSeals,
      SEAL_BYTES,
      'bad-parent-committed-seal',
      'parentCommittedSeals',
    ),
    round: decodeRound(round),
  }
  if (decoded.length === 6) extra.span = decodeSpanItem(span)
  return extra
}

function decodeRound(item: unknown): bigint {
  const bytes = optionalBytes(item, ROUND_BYTES, 'bad-round', 'round')
  return bytes.length === 0 ? 0n : new DataView(bytes.buffer, bytes.byteOffset, ROUND_BYTES).getBigUint64(0, false)
}

function optionalBytes(
  item: unknown,
  size: number,
  reason: 'bad-proposer-seal' | 'bad-round',
  field: string,
): Uint8Array {
  if (!(item instanceof Uint8Array)) {
    throw new IbftExtraError(reason, `${field} is a list, expected a byte string`)
  }
  if (item.length !== 0 && item.length !== size) {
    throw new IbftExtraError(reason, `${field} is ${item.length} bytes, expected 0 or ${size}`)
  }
  return item
}

function bytesList(
  item: unknown,
  size: number,
  reason: 'bad-validator' | 'bad-committed-seal' | 'bad-parent-committed-seal',
  field: string,
): Uint8Array[] {
  if (!Array.isArray(item)) {
    throw new IbftExtraError('not-a-list', `${field} is a byte string, expected a list`)
  }
  for (let i = 0; i < item.length; i++) {
    const entry: unknown = item[i]
    if (!(entry instanceof Uint8Array)) {
      throw new IbftExtraError(reason, `${field}[${i}] is a list, expected ${size} bytes`)
    }
    if (entry.length !== size) {
      throw new IbftExtraError(reason, `${field}[${i}] is ${entry.length} bytes, expected ${size}`)
    }
  }
  return item as Uint8Array[]
}

function checkExtra(extra: IbftExtra): void {
  if (extra.vanity.length !== VANITY_BYTES) {
    throw new IbftExtraError('bad-vanity', `vanity is ${extra.vanity.length} bytes, expected ${VANITY_BYTES}`)
  }
  checkList(extra.validators, ADDRESS_BYTES, 'bad-validator', 'validators')
  if (extra.proposerSeal.length !== 0 && extra.proposerSeal.length !== SEAL_BYTES) {
    throw new IbftExtraError(
      'bad-proposer-seal',
      `proposerSeal is ${extra.proposerSeal.length} bytes, expected 0 or ${SEAL_BYTES}`,
    )
  }
  checkList(extra.committedSeals, SEAL_BYTES, 'bad-committed-seal', 'committedSeals')
  checkList(extra.parentCommittedSeals, SEAL_BYTES, 'bad-parent-committed-seal', 'parentCommittedSeals')
  if (extra.round < 0n || extra.round > MAX_ROUND) {
    throw new IbftExtraError('bad-round', `round ${extra.round} is outside uint64`)
  }
}

function checkList(
  list: Uint8Array[],
  size: number,
  reason: 'bad-validator' | 'bad-committed-seal' | 'bad-parent-committed-seal',
  field: string,
): void {
  for (let i = 0; i < list.length; i++) {
    if (list[i].length !== size) {
      throw new IbftExtraError(reason, `${field}[${i}] is ${list[i].length} bytes, expected ${size}`)
    }
  }
}

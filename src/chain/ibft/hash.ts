/**
 * The IBFT block hash: keccak256 of the RLP header in which extraData is replaced by its blanked
 * form (see blankedExtra), so adding the proposer seal, committed seals and round after the hash
 * is fixed does not change it.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../../util/keccak.js'

import { IbftExtraError } from './errors.js'
import { type IbftExtra, blankedExtra, decodeExtra } from './extra.js'

/** Index of extraData in the raw header field list, the same in every fork. */
export const EXTRA_DATA_INDEX = 12

/** extraDataOf returns field 12 of a raw header, or throws IbftExtraError when the header is too short. */
export function extraDataOf(rawHeaderFields: Uint8Array[]): Uint8Array {
  if (rawHeaderFields.length <= EXTRA_DATA_INDEX) {
    throw new IbftExtraError(
      'bad-header',
      `header has ${rawHeaderFields.length} fields, extraData is field ${EXTRA_DATA_INDEX}`,
    )
  }
  return rawHeaderFields[EXTRA_DATA_INDEX]
}

/** withExtraData returns a copy of the raw header fields with extraData replaced. */
export function withExtraData(rawHeaderFields: Uint8Array[], extraData: Uint8Array): Uint8Array[] {
  extraDataOf(rawHeaderFields)
  const fields = rawHeaderFields.slice()
  fields[EXTRA_DATA_INDEX] = extraData
  return fields
}

/**
 * ibftBlockHash computes the block hash of a raw header (the field list of the active fork, as
 * `BlockHeader.raw()` returns it), sealed or not. Throws IbftExtraError on a malformed extraData.
 */
export function ibftBlockHash(rawHeaderFields: Uint8Array[]): Uint8Array {
  return hashWithExtra(rawHeaderFields, decodeExtra(extraDataOf(rawHeaderFields)))
}

/** hashWithExtra is ibftBlockHash for a caller that already decoded the header's extraData. */
export function hashWithExtra(rawHeaderFields: Uint8Array[], extra: IbftExtra): Uint8Array {
  return keccak256(RLP.encode(withExtraData(rawHeaderFields, blankedExtra(extra))))
}

/**
 * Errors of the IBFT header format (extra.ts, hash.ts), and their base, which the seal checks and
 * consensus messages (src/consensus/ibft/errors.ts) extend. Each carries a machine-readable
 * `reason` so callers (block import, the IBFT state machine, peer scoring) can branch without
 * parsing messages.
 */

/** IbftError is the base of every error this module throws on bad input. */
export class IbftError extends Error {
  override name = 'IbftError'
  /** One-line summary without details. */
  readonly shortMessage: string
  /** What exactly was wrong (lengths, addresses, counts), if known. */
  readonly details: string | undefined

  constructor(shortMessage: string, opts: { details?: string; cause?: unknown } = {}) {
    super(opts.details === undefined ? shortMessage : `${shortMessage}: ${opts.details}`, {
      cause: opts.cause,
    })
    this.shortMessage = shortMessage
    this.details = opts.details
  }
}

/** What made an extraData malformed. */
export type IbftExtraErrorReason =
  | 'short-extra' // fewer than VANITY_BYTES bytes
  | 'bad-rlp' // the part after the vanity is not one well-formed RLP item
  | 'not-a-list' // the RLP item is a byte string, or a field that must be a list is not
  | 'field-count' // the list does not have 5 fields (6 with a span record)
  | 'bad-validator' // a validator entry is not a 20-byte string
  | 'bad-proposer-seal' // proposerSeal is neither empty nor 65 bytes
  | 'bad-committed-seal' // a committed seal is not a 65-byte string
  | 'bad-parent-committed-seal' // a parent committed seal is not a 65-byte string
  | 'bad-round' // round is neither empty nor 8 bytes, or out of uint64 range when encoding
  | 'bad-vanity' // vanity to encode is not VANITY_BYTES bytes
  | 'bad-header' // raw header has no extraData field (index 12)
  | 'bad-span' // the span record (sixth field) is malformed (span.ts)

/** IbftExtraError: an extraData (or the header around it) does not follow the IBFT layout. */
export class IbftExtraError extends IbftError {
  override name = 'IbftExtraError'
  readonly reason: IbftExtraErrorReason

  constructor(reason: IbftExtraErrorReason, details: string, cause?: unknown) {
    super(`invalid IBFT extraData (${reason})`, { details, cause })
    this.reason = reason
  }
}

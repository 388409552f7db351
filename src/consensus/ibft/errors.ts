/**
 * Errors of the IBFT codec and seal checks. Each carries a machine-readable `reason` so callers
 * (block import, the IBFT state machine, peer scoring) can branch without parsing messages.
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
  | 'field-count' // the list does not have exactly 5 fields
  | 'bad-validator' // a validator entry is not a 20-byte string
  | 'bad-proposer-seal' // proposerSeal is neither empty nor 65 bytes
  | 'bad-committed-seal' // a committed seal is not a 65-byte string
  | 'bad-parent-committed-seal' // a parent committed seal is not a 65-byte string
  | 'bad-round' // round is neither empty nor 8 bytes, or out of uint64 range when encoding
  | 'bad-vanity' // vanity to encode is not VANITY_BYTES bytes
  | 'bad-header' // raw header has no extraData field (index 12)

/** IbftExtraError: an extraData (or the header around it) does not follow the IBFT layout. */
export class IbftExtraError extends IbftError {
  override name = 'IbftExtraError'
  readonly reason: IbftExtraErrorReason

  constructor(reason: IbftExtraErrorReason, details: string, cause?: unknown) {
    super(`invalid IBFT extraData (${reason})`, { details, cause })
    this.reason = reason
  }
}

/** Why a header's seals were rejected. */
export type IbftSealErrorReason =
  | 'missing-proposer-seal' // proposerSeal is empty
  | 'bad-proposer-seal' // proposerSeal is not a valid recoverable signature
  | 'proposer-not-validator' // proposerSeal recovers to an address outside the validator set
  | 'bad-committed-seal' // a committed seal is not a valid recoverable signature
  | 'committer-not-validator' // a committed seal recovers to an address outside the set
  | 'duplicate-committer' // two committed seals recover to the same validator
  | 'insufficient-committed-seals' // fewer distinct committers than the quorum
  | 'signer-not-validator' // sealHeader was asked to seal with a key outside the set
  | 'bad-message-signature' // a consensus message's signature is not a valid recoverable signature

/** IbftSealError: a proposer or committed seal is invalid, or there are too few of them. */
export class IbftSealError extends IbftError {
  override name = 'IbftSealError'
  readonly reason: IbftSealErrorReason

  constructor(reason: IbftSealErrorReason, details: string, cause?: unknown) {
    super(`invalid IBFT seal (${reason})`, { details, cause })
    this.reason = reason
  }
}

/** What made a consensus message (messages.ts) unacceptable. */
export type IbftMessageErrorReason =
  | 'too-large' // more bytes than IBFT_MAX_MESSAGE_BYTES
  | 'bad-rlp' // not well-formed RLP, or not the [body, signature, proposal, certificate] shape
  | 'bad-field' // a body field has the wrong type or length, or an unknown message code
  | 'bad-signature' // the signature does not recover
  | 'bad-proposal' // the attached block does not decode or does not hash to the digest
  | 'bad-certificate' // a prepared or round-change certificate does not prove what it claims

/** IbftMessageError: bytes from the network that are not a valid IBFT consensus message. */
export class IbftMessageError extends IbftError {
  override name = 'IbftMessageError'
  readonly reason: IbftMessageErrorReason

  constructor(reason: IbftMessageErrorReason, details: string, cause?: unknown) {
    super(`invalid IBFT message (${reason})`, { details, cause })
    this.reason = reason
  }
}

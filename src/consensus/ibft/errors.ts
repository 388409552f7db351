/**
 * Errors of the IBFT codec and seal checks. Each carries a machine-readable `reason` so callers
 * (block import, the IBFT state machine, peer scoring) can branch without parsing messages.
 */
import { IbftError } from '../../chain/ibft/errors.js'

export { IbftError, IbftExtraError, type IbftExtraErrorReason } from '../../chain/ibft/errors.js'

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

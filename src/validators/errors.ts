/**
 * Errors of the validator layer. Each carries a machine-readable `reason`, so block import can
 * refuse a span switch (and log why) without parsing messages.
 */

/** ValidatorLayerError is the base of every error src/validators throws on bad input. */
export class ValidatorLayerError extends Error {
  override name = 'ValidatorLayerError'
  /** One-line summary without details. */
  readonly shortMessage: string
  /** What exactly was wrong, if known. */
  readonly details: string | undefined

  constructor(shortMessage: string, opts: { details?: string; cause?: unknown } = {}) {
    super(opts.details === undefined ? shortMessage : `${shortMessage}: ${opts.details}`, { cause: opts.cause })
    this.shortMessage = shortMessage
    this.details = opts.details
  }
}

/** What made the answer of ValidatorSigners.validatorSet() unusable. */
export type ValidatorSetErrorReason =
  | 'bad-abi' // not the ABI encoding of (uint256[], address[], uint256[])
  | 'length-mismatch' // the three arrays differ in length
  | 'unsorted' // signers not in strictly ascending order (a signer named twice included)
  | 'zero-power' // a seat with power 0
  | 'call-failed' // the view call reverted or could not run

/** ValidatorSetError: the validator set at a block could not be read. */
export class ValidatorSetError extends ValidatorLayerError {
  override name = 'ValidatorSetError'
  readonly reason: ValidatorSetErrorReason
  constructor(reason: ValidatorSetErrorReason, details: string, cause?: unknown) {
    super(`invalid validator set (${reason})`, { details, cause })
    this.reason = reason
  }
}

/** Why a span record does not prove its switch. */
export type SpanConsentErrorReason =
  | 'wrong-span' // span id, start or end is not the one this block starts
  | 'wrong-reference' // refBlockHash is not the reference block of the span
  | 'wrong-committee' // committee is not the draw from the set at the reference block
  | 'empty-set' // no validators at the reference block: nothing to draw from, no switch possible
  | 'bad-signature' // a signature does not recover (length, v, high s)
  | 'not-a-validator' // a signature recovers to an address outside the set at the reference block
  | 'unordered-signatures' // signers not strictly ascending (a duplicate included)
  | 'insufficient-power' // signers hold 2/3 of the power or less

/** SpanConsentError: a span record's consent does not hold. */
export class SpanConsentError extends ValidatorLayerError {
  override name = 'SpanConsentError'
  readonly reason: SpanConsentErrorReason
  constructor(reason: SpanConsentErrorReason, details: string, cause?: unknown) {
    super(`span consent refused (${reason})`, { details, cause })
    this.reason = reason
  }
}

/**
 * Errors of eth_simulateV1 (geth's internal/ethapi/errors.go): a request-level failure (bad
 * block order, a call that cannot be a valid transaction, …) aborts the whole simulation with a
 * SimulationError; a call that merely fails (revert, out of gas) is reported in its call result
 * instead. Each names its kind; src/rpc/errors.ts gives geth's -380xx code to each.
 */
import { IbexError } from '../util/errors.js'

/** What went wrong, by geth's error names. */
export const SIM_ERROR = {
  nonceTooLow: 'simNonceTooLow',
  nonceTooHigh: 'simNonceTooHigh',
  feeCapTooLow: 'simFeeCapTooLow',
  intrinsicGas: 'simIntrinsicGas',
  insufficientFunds: 'simInsufficientFunds',
  blockGasLimitReached: 'simBlockGasLimitReached',
  blockNumberInvalid: 'simBlockNumberInvalid',
  blockTimestampInvalid: 'simBlockTimestampInvalid',
  senderIsNotEOA: 'simSenderIsNotEOA',
  maxInitCodeSizeExceeded: 'simMaxInitCodeSizeExceeded',
  clientLimitExceeded: 'simClientLimitExceeded',
  /** The request itself is malformed (`empty input`). */
  invalidParams: 'simInvalidParams',
  /** A message geth's ApplyMessage refuses for another reason (`err: … (supplied gas …)`). */
  internal: 'simInternal',
  /** A call's own VM failure (not a request error): reported inside the call result. */
  vmError: 'simVmError',
  /** Plain errors (state override conflicts …). */
  server: 'simServer',
} as const

export type SimErrorKind = (typeof SIM_ERROR)[keyof typeof SIM_ERROR]

/** A simulation refused as a whole; the message is geth's, built from the facts at the throw site. */
export class SimulationError extends IbexError {
  readonly kind: SimErrorKind
  constructor(kind: SimErrorKind, message: string) {
    super(message)
    this.kind = kind
  }
}

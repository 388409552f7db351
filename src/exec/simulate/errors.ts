/**
 * Errors of eth_simulateV1 with geth's codes (internal/ethapi/errors.go): a request-level
 * failure (bad block order, a call that cannot be a valid transaction, …) aborts the whole
 * simulation with one of these; a call that merely fails (revert, out of gas) is reported in its
 * call result instead.
 */

/** geth's simulation error codes. */
export const SIM_ERROR = {
  nonceTooLow: -38010,
  nonceTooHigh: -38011,
  feeCapTooLow: -38012,
  intrinsicGas: -38013,
  insufficientFunds: -38014,
  blockGasLimitReached: -38015,
  blockNumberInvalid: -38020,
  blockTimestampInvalid: -38021,
  senderIsNotEOA: -38024,
  maxInitCodeSizeExceeded: -38025,
  clientLimitExceeded: -38026,
  invalidParams: -32602,
  internal: -32603,
  /** A call's own VM failure (not a request error): reported inside the call result. */
  vmError: -32015,
  /** Plain errors (state override conflicts …). */
  server: -32000,
} as const

export class SimulationError extends Error {
  override name = 'SimulationError'
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.code = code
  }
}

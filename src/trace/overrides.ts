/**
 * The error kind of a malformed state override. debug_traceCall's `stateOverrides` are decoded
 * by src/rpc/params (geth's override.StateOverride, shared with eth_call) and applied by
 * src/simulate/overrides.ts through the message runner (src/evm/overrides.ts), so nothing here
 * decodes or applies them any more; the class stays while src/rpc/errors.ts' table names its kind.
 */
import { IbexError } from '../util/errors.js'

/** A malformed override object (the message follows `invalid argument N: `). */
export class OverrideError extends IbexError {
  readonly kind = 'stateOverride'
}

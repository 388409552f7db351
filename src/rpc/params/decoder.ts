/**
 * Building blocks for ParamDecoders: turning Go-style decode failures into InvalidParamsError and
 * the `optional` wrapper (geth's pointer params: missing or null means "use the default").
 */
import { InvalidParamsError } from '../errors.js'
import type { ParamDecoder } from '../types.js'
import { GoDecodeError } from './gojson.js'

/** A required decoder from a function that throws GoDecodeError (or any RpcError) on bad input. */
export function goDecoder<T>(decodeValue: (raw: unknown) => T): ParamDecoder<T> {
  return {
    optional: false,
    decode(raw: unknown): T {
      try {
        return decodeValue(raw)
      } catch (err) {
        throw toParamsError(err)
      }
    },
  }
}

/** GoDecodeError → InvalidParamsError with geth's text; anything else unchanged. */
export function toParamsError(err: unknown): unknown {
  return err instanceof GoDecodeError ? new InvalidParamsError(err.render(), { cause: err }) : err
}

/**
 * Makes a param optional: when the client leaves it out (or sends null) the handler receives
 * `defaultValue`, as geth does for pointer-typed params. Present values go through `decoder`.
 */
export function optional<T, D = undefined>(decoder: ParamDecoder<T>, defaultValue?: D): ParamDecoder<T | D> {
  return { optional: true, defaultValue: defaultValue as D, decode: (raw) => decoder.decode(raw) }
}

/** Positional params of a call, decoded as geth's rpc package does (the dispatcher's and eth_subscribe's). */
import { InvalidParamsError, NonArrayArgsError, RpcError } from '../errors.js'
import type { ParamDecoder } from '../types.js'

/**
 * Positional params, geth's parsePositionalArguments: absent or null params mean none; other
 * non-arrays are `non-array args`; each value goes through its decoder in order; extra values are
 * `too many arguments, want at most N`; missing required ones `missing value for required argument N`.
 * A decoder's non-params RpcError (a check geth makes in the handler) is raised after all decode.
 */
export function decodeParams(decoders: readonly ParamDecoder<unknown>[], raw: unknown): unknown[] {
  let given: readonly unknown[]
  if (raw === undefined || raw === null) given = []
  else if (Array.isArray(raw)) given = raw
  else throw new NonArrayArgsError()
  const want = decoders.length
  const out = new Array<unknown>(want)
  let deferred: RpcError | undefined
  for (let i = 0; i < given.length; i++) {
    if (i >= want) throw new InvalidParamsError(`too many arguments, want at most ${want}`)
    const decoder = decoders[i]
    const value = given[i]
    if (value === null && decoder.optional) {
      out[i] = decoder.defaultValue
      continue
    }
    try {
      out[i] = decoder.decode(value)
    } catch (err) {
      if (err instanceof InvalidParamsError) {
        throw new InvalidParamsError(`invalid argument ${i}: ${err.shortMessage}`, { cause: err })
      }
      if (!(err instanceof RpcError)) throw err
      deferred ??= err
    }
  }
  for (let i = given.length; i < want; i++) {
    const decoder = decoders[i]
    if (!decoder.optional) throw new InvalidParamsError(`missing value for required argument ${i}`)
    out[i] = decoder.defaultValue
  }
  if (deferred !== undefined) throw deferred
  return out
}

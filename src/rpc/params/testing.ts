/** Test support for the decoders: what a decoder answers for bad input, as `<code> <message>`. */
import { RpcError } from '../errors.js'
import type { ParamDecoder } from '../types.js'

/** The error a decoder raises for `raw`, as `<code> <message>`; throws when it decodes. */
export function failure(decoder: ParamDecoder<unknown>, raw: unknown): string {
  try {
    decoder.decode(raw)
  } catch (err) {
    if (err instanceof RpcError) return `${err.code} ${err.shortMessage}`
    throw err
  }
  throw new Error(`decoded without error: ${JSON.stringify(raw)}`)
}

/**
 * Scalar param decoders, each with the Go type geth declares for the param (the type name shows
 * up in its error messages): QUANTITY (`*hexutil.Big`), `hexutil.Uint64`, `hexutil.Uint`, DATA
 * (`hexutil.Bytes`), `common.Hash`, `common.Address`, bool and strings.
 *
 * Representations: quantities are bigint, byte strings and hashes Uint8Array, addresses the
 * lowercase 0x string (map keys, logs and ethereumjs's createAddressFromString all take it;
 * hexToBytes gives the bytes when needed).
 */
import { ERROR_CODE, RpcError } from '../errors.js'
import { decodeHexInto, hasHexPrefix, isHexDigits } from '../../util/hex.js'
import type { ParamDecoder } from '../types.js'
import { goDecoder } from './decoder.js'
import {
  bigText,
  bytesText,
  GoDecodeError,
  kindMismatch,
  plainError,
  uint64Text,
  unmarshalAddress,
  unmarshalHash,
  unmarshalHex,
} from './gojson.js'

/** QUANTITY up to 256 bits (geth `hexutil.Big`): `"0x0"`, no leading zeros; `""` reads as 0. */
export const Quantity: ParamDecoder<bigint> = goDecoder((raw) => unmarshalHex(raw, '*hexutil.Big', bigText))

/** QUANTITY up to 64 bits (geth `hexutil.Uint64`): gas, nonces, counts. */
export const Uint64: ParamDecoder<bigint> = goDecoder((raw) => unmarshalHex(raw, 'hexutil.Uint64', uint64Text))

/**
 * A plain Go `uint64` param (Bor's bor_getRootHash(start, end uint64)): a bare JSON number, as
 * encoding/json reads it. A string, a negative, fractional or over-64-bit number is
 * `json: cannot unmarshal number -1 into Go value of type uint64`; null leaves the zero value.
 * Numbers are read after JSON.parse: an integer above 2^53 is taken as the double it parses to, and
 * `1e3` or `5.0` as the integers they denote (Go refuses both spellings).
 */
export const GoUint64: ParamDecoder<bigint> = goDecoder((raw) => {
  if (raw === null) return 0n
  if (typeof raw !== 'number') throw kindMismatch(raw, 'uint64')
  if (!Number.isInteger(raw) || raw < 0 || BigInt(raw) > MAX_UINT64) {
    throw new GoDecodeError(`number ${JSON.stringify(raw)}`, 'uint64', true)
  }
  return BigInt(raw)
})

/** QUANTITY up to 64 bits under geth's `hexutil.Uint` name (indices such as a transaction's position in a block). */
export const Uint: ParamDecoder<bigint> = goDecoder((raw) => unmarshalHex(raw, 'hexutil.Uint', uint64Text))

/** DATA of any length (geth `hexutil.Bytes`): `"0x"` and `""` are empty. */
export const Data: ParamDecoder<Uint8Array> = goDecoder((raw) => unmarshalHex(raw, 'hexutil.Bytes', bytesText))

/** DATA, 32 bytes (geth `common.Hash`). */
export const Hash: ParamDecoder<Uint8Array> = goDecoder(unmarshalHash)

/** DATA, 20 bytes (geth `common.Address`), as a lowercase 0x string. Mixed case is accepted unchecked, as geth does. */
export const Address: ParamDecoder<string> = goDecoder(unmarshalAddress)

/** JSON boolean. null reads as false (Go ignores null for a bool). */
export const Bool: ParamDecoder<boolean> = goDecoder((raw) => {
  if (typeof raw === 'boolean') return raw
  if (raw === null) return false
  throw kindMismatch(raw, 'bool')
})

/** A string param under geth's Go type name `typeName` (`string`, `rpc.ID`…). null reads as "". */
export function stringParam(typeName: string): ParamDecoder<string> {
  return goDecoder((raw) => {
    if (typeof raw === 'string') return raw
    if (raw === null) return ''
    throw kindMismatch(raw, typeName)
  })
}

/** Filter and subscription ids (geth `rpc.ID`). */
export const FilterId: ParamDecoder<string> = stringParam('rpc.ID')

const STORAGE_KEY_BYTES = 32

/**
 * eth_getStorageAt's slot: a hex string of at most 32 bytes, `0x` optional, odd length allowed,
 * left-padded to 32 bytes. geth decodes it inside the handler and answers a bad key with a
 * -32602 that quotes the input and carries no `invalid argument N:` prefix
 * (`invalid hex in storage key: "0xasdf"`); the dispatcher reports it only if every param decodes.
 */
export const StorageKey: ParamDecoder<Uint8Array> = goDecoder((raw) => {
  const input = typeof raw === 'string' ? raw : raw === null ? '' : undefined
  if (input === undefined) throw kindMismatch(raw, 'string')
  let s = input
  if (hasHexPrefix(s)) s = s.slice(2)
  if (s.length % 2 !== 0) s = `0${s}`
  const quoted = JSON.stringify(input)
  if (s.length > STORAGE_KEY_BYTES * 2) {
    throw new RpcError(ERROR_CODE.invalidParams, `storage key too long (want at most 32 bytes): ${quoted}`)
  }
  if (!isHexDigits(s, 0)) throw new RpcError(ERROR_CODE.invalidParams, `invalid hex in storage key: ${quoted}`)
  const size = s.length / 2
  const out = new Uint8Array(STORAGE_KEY_BYTES)
  decodeHexInto(s, 0, out.subarray(STORAGE_KEY_BYTES - size))
  return out
})

/**
 * geth's `math.HexOrDecimal64` (eth_feeHistory's block count): a JSON string or bare number,
 * `0x` hex or decimal, `""` is 0; anything else `invalid hex or decimal integer "<input>"`.
 */
export const HexOrDecimal64: ParamDecoder<bigint> = goDecoder((raw) => {
  const text = typeof raw === 'string' ? raw : JSON.stringify(raw)
  const n = parseHexOrDecimal64(text)
  if (n === undefined) throw plainError(`invalid hex or decimal integer ${JSON.stringify(text)}`)
  return n
})

const DECIMAL_RE = /^[0-9]+$/
const MAX_UINT64 = (1n << 64n) - 1n

function parseHexOrDecimal64(s: string): bigint | undefined {
  if (s === '') return 0n
  const hex = hasHexPrefix(s)
  const digits = hex ? s.slice(2) : s
  if (digits === '' || !(hex ? isHexDigits(digits, 0) : DECIMAL_RE.test(digits))) return undefined
  const n = BigInt(hex ? `0x${digits}` : digits)
  return n <= MAX_UINT64 ? n : undefined
}

/** A JSON array of numbers (geth `[]float64`, eth_feeHistory's reward percentiles). null reads as []. */
export const FloatArray: ParamDecoder<number[]> = goDecoder((raw) => {
  if (raw === null) return []
  if (!Array.isArray(raw)) throw kindMismatch(raw, '[]float64')
  const out = new Array<number>(raw.length)
  let soft: GoDecodeError | undefined
  for (let i = 0; i < raw.length; i++) {
    const v = raw[i]
    if (typeof v === 'number') out[i] = v
    else {
      out[i] = 0
      if (v !== null) soft ??= kindMismatch(v, 'float64')
    }
  }
  if (soft !== undefined) throw soft
  return out
})

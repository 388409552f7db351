/**
 * The one hex / bigint codec of the RPC layer. Output follows geth's hexutil encoding rules:
 * quantities are `0x`-prefixed lowercase hex without leading zeros (`0x0` for zero), byte strings
 * are `0x`-prefixed lowercase hex of even length (`0x` when empty).
 *
 * Decoding of untrusted input with geth's error wording lives in src/rpc/params; the decoders here
 * are for trusted values (fixtures, storage, internal plumbing) and only throw on malformed input.
 */

/** Quantities below this are served from a precomputed table (block numbers, counts, indices, small gas values). */
const SMALL_QUANTITY_CACHE_SIZE = 1024

/** Byte strings up to this length are hex-encoded with the byte table; longer ones go through Buffer's native encoder. */
const TABLE_ENCODE_MAX_BYTES = 32

const BYTE_HEX: string[] = new Array(256)
for (let i = 0; i < 256; i++) BYTE_HEX[i] = i.toString(16).padStart(2, '0')

const SMALL_QUANTITY: string[] = new Array(SMALL_QUANTITY_CACHE_SIZE)
for (let i = 0; i < SMALL_QUANTITY_CACHE_SIZE; i++) SMALL_QUANTITY[i] = `0x${i.toString(16)}`

/** Encodes a non-negative integer as a JSON-RPC QUANTITY: `0x0`, `0x1f`, never leading zeros. */
export function toQuantity(value: bigint | number): string {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`not a non-negative safe integer: ${value}`)
    return value < SMALL_QUANTITY_CACHE_SIZE ? SMALL_QUANTITY[value] : `0x${value.toString(16)}`
  }
  if (value < 0n) throw new RangeError(`negative quantity: ${value}`)
  return value < BigInt(SMALL_QUANTITY_CACHE_SIZE) ? SMALL_QUANTITY[Number(value)] : `0x${value.toString(16)}`
}

/** Encodes bytes as JSON-RPC DATA: lowercase `0x`-prefixed hex, `0x` for empty input. */
export function toData(bytes: Uint8Array): string {
  const n = bytes.length
  if (n === 0) return '0x'
  if (n <= TABLE_ENCODE_MAX_BYTES) {
    let out = '0x'
    for (let i = 0; i < n; i++) out += BYTE_HEX[bytes[i]]
    return out
  }
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, n).toString('hex')}`
}

/** Same as toData; the name the rest of the ecosystem (viem, ethereumjs) uses. */
export const bytesToHex: (bytes: Uint8Array) => string = toData

/**
 * Decodes hex (with or without `0x`/`0X`, either case) into a fresh, unpooled Uint8Array, safe to
 * transfer to a worker. Throws a SyntaxError on odd length or a non-hex character.
 */
export function hexToBytes(hex: string): Uint8Array {
  const start = hasHexPrefix(hex) ? 2 : 0
  const digits = hex.length - start
  if (digits % 2 !== 0) throw new SyntaxError(`hex string of odd length: ${abbreviate(hex)}`)
  const out = new Uint8Array(digits / 2)
  if (!decodeHexInto(hex, start, out)) throw new SyntaxError(`invalid hex string: ${abbreviate(hex)}`)
  return out
}

/** Decodes a QUANTITY-like hex string (`0x` prefix optional) into a bigint; `0x` alone is zero. */
export function hexToBigInt(hex: string): bigint {
  const start = hasHexPrefix(hex) ? 2 : 0
  if (hex.length === start) return 0n
  if (!isHexDigits(hex, start)) throw new SyntaxError(`invalid hex string: ${abbreviate(hex)}`)
  return BigInt(start === 2 ? hex : `0x${hex}`)
}

/** True when `s` starts with `0x` or `0X`. */
export function hasHexPrefix(s: string): boolean {
  return s.length >= 2 && s.charCodeAt(0) === 48 && (s.charCodeAt(1) | 0x20) === 120
}

const HEX_DIGITS_RE = /^[0-9a-fA-F]*$/

/** True when every character of `s` from `start` on is a hex digit (an empty tail is true). */
export function isHexDigits(s: string, start: number): boolean {
  return HEX_DIGITS_RE.test(start === 0 ? s : s.slice(start))
}

/**
 * Decodes the hex digits of `hex` from `start` into `out` (exactly `out.length` bytes, the caller
 * checked the digit count). Returns false on a non-hex character. Uses Buffer's native decoder,
 * which stops at the first bad pair, so a short write means bad input.
 */
export function decodeHexInto(hex: string, start: number, out: Uint8Array): boolean {
  const n = out.length
  if (n === 0) return true
  const digits = start === 0 ? hex : hex.slice(start)
  return Buffer.from(out.buffer, out.byteOffset, n).write(digits, 'hex') === n
}

/** Error messages quote at most this many characters of the offending input. */
const ABBREVIATE_MAX_CHARS = 32

function abbreviate(s: string): string {
  return s.length <= ABBREVIATE_MAX_CHARS ? s : `${s.slice(0, ABBREVIATE_MAX_CHARS)}…`
}

/**
 * Revert reasons, decoded as go-ethereum's abi.UnpackRevert does: the string of Error(string), or
 * geth's text for a Panic(uint256) code. Used by the JSON-RPC errors (src/rpc/errors.ts), the call
 * tracer's revertReason and eth_simulateV1's call errors.
 */
import { toData } from './hex.js'

/** Selector of Error(string). */
const ERROR_SELECTOR = 0x08c379a0
/** Selector of Panic(uint256). */
const PANIC_SELECTOR = 0x4e487b71
const WORD_BYTES = 32

/** Solidity's panic codes and geth's wording for them. */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
])

/**
 * The human reason inside revert data: the string of Error(string), or geth's text for a
 * Panic(uint256) code (`unknown panic code: 0x..` when not a Solidity one). Undefined for any
 * other or malformed data, exactly where geth falls back to a bare `execution reverted`.
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = ((data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]) >>> 0
  const body = data.subarray(4)
  if (selector === PANIC_SELECTOR) {
    if (body.length < WORD_BYTES) return undefined
    const code = readWord(body, 0)
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`
  }
  if (selector !== ERROR_SELECTOR || body.length < WORD_BYTES) return undefined
  // ABI string: a head word with the offset of the tail, the tail is a length word then the bytes.
  const lengthEnd = readWord(body, 0) + BigInt(WORD_BYTES)
  if (lengthEnd > BigInt(body.length)) return undefined
  const start = Number(lengthEnd)
  const end = lengthEnd + readWord(body, start - WORD_BYTES)
  if (end > BigInt(body.length)) return undefined
  return decodeUtf8LikeGo(body.subarray(start, Number(end)))
}

function readWord(bytes: Uint8Array, offset: number): bigint {
  return BigInt(toData(bytes.subarray(offset, offset + WORD_BYTES)))
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })

/** UTF-8 to string, replacing each invalid byte by U+FFFD as Go's JSON encoder does. */
function decodeUtf8LikeGo(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes)
  } catch {
    let out = ''
    let i = 0
    while (i < bytes.length) {
      const size = validSequenceLength(bytes, i)
      if (size === 0) {
        out += '\uFFFD'
        i += 1
      } else {
        out += STRICT_UTF8.decode(bytes.subarray(i, i + size))
        i += size
      }
    }
    return out
  }
}

/** Length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune ranges), 0 when invalid. */
function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]
  if (c < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0
  return 0
}

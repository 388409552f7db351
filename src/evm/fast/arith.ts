/**
 * The fast interpreter's word arithmetic: 256-bit unsigned words as bigints, two's complement for
 * the signed opcodes, every result reduced mod 2^256.
 */

const MAX = (1n << 256n) - 1n
const SIGN = 1n << 255n

function signed(x: bigint): bigint {
  return x >= SIGN ? x - (1n << 256n) : x
}

export function byteLength(x: bigint): number {
  return Math.ceil(x.toString(16).length / 2)
}

/** The result of a two-operand opcode: `a` was on top of the stack, `b` below it. */
export function binary(op: number, a: bigint, b: bigint): bigint {
  switch (op) {
    case 0x01:
      return (a + b) & MAX
    case 0x02:
      return (a * b) & MAX
    case 0x03:
      return (a - b) & MAX
    case 0x04:
      return b === 0n ? 0n : a / b
    case 0x05:
      return b === 0n ? 0n : (signed(a) / signed(b)) & MAX
    case 0x06:
      return b === 0n ? 0n : a % b
    case 0x07:
      return b === 0n ? 0n : (signed(a) % signed(b)) & MAX
    case 0x0b: {
      // SIGNEXTEND(a = byte index, b = value)
      if (a >= 31n) return b
      const bit = a * 8n + 7n
      const mask = (1n << bit) - 1n
      return ((b >> bit) & 1n) === 1n ? b | (MAX ^ mask) : b & mask
    }
    case 0x10:
      return a < b ? 1n : 0n
    case 0x11:
      return a > b ? 1n : 0n
    case 0x12:
      return signed(a) < signed(b) ? 1n : 0n
    case 0x13:
      return signed(a) > signed(b) ? 1n : 0n
    case 0x14:
      return a === b ? 1n : 0n
    case 0x16:
      return a & b
    case 0x17:
      return a | b
    case 0x18:
      return a ^ b
    case 0x1a:
      // BYTE(a = index, b = word)
      return a >= 32n ? 0n : (b >> (248n - a * 8n)) & 0xffn
    case 0x1b:
      return a >= 256n ? 0n : (b << a) & MAX
    case 0x1c:
      return a >= 256n ? 0n : b >> a
    default: {
      // SAR
      const v = signed(b)
      if (a >= 256n) return v < 0n ? MAX : 0n
      return (v >> a) & MAX
    }
  }
}

export function exp(base: bigint, e: bigint): bigint {
  let result = 1n
  let b = base & MAX
  let x = e
  while (x > 0n) {
    if ((x & 1n) === 1n) result = (result * b) & MAX
    x >>= 1n
    if (x > 0n) b = (b * b) & MAX
  }
  return result
}

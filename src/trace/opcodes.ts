/**
 * What tracers need to know about opcodes beyond ethereumjs' step event: geth's names where they
 * differ, the stack arity geth words its stack errors with, the call family, and geth's JSON
 * string encoding for free text.
 */

/** geth names 0x44 DIFFICULTY in every fork (core/vm/opcodes.go), ethereumjs PREVRANDAO after the merge. */
const GETH_NAMES: Record<string, string> = { PREVRANDAO: 'DIFFICULTY' }

/** geth's name of an opcode, given ethereumjs' name for it. */
export function gethOpName(name: string, code: number): string {
  if (name === 'INVALID' && code !== 0xfe) return `opcode 0x${code.toString(16)} not defined`
  return GETH_NAMES[name] ?? name
}

export const OP_CALL = 0xf1
export const OP_CALLCODE = 0xf2
export const OP_DELEGATECALL = 0xf4
export const OP_STATICCALL = 0xfa
export const OP_CREATE = 0xf0
export const OP_CREATE2 = 0xf5
export const OP_SLOAD = 0x54
export const OP_SSTORE = 0x55

/** CALL, CALLCODE, DELEGATECALL, STATICCALL: geth's gasCost includes the gas handed to the callee. */
export function isCallOp(code: number): boolean {
  return code === OP_CALL || code === OP_CALLCODE || code === OP_DELEGATECALL || code === OP_STATICCALL
}

/** Stack items an opcode pops (geth's minStack). */
export function stackPops(code: number): number {
  if (code >= 0x80 && code <= 0x8f) return code - 0x7f // DUPn
  if (code >= 0x90 && code <= 0x9f) return code - 0x8e // SWAPn
  if (code >= 0xa0 && code <= 0xa4) return code - 0x9e // LOGn
  return POPS[code] ?? 0
}

/** Stack items an opcode pushes. */
function stackPushes(code: number): number {
  if (code >= 0x80 && code <= 0x8f) return code - 0x7e
  if (code >= 0x90 && code <= 0x9f) return code - 0x8e
  return NO_PUSH.has(code) || (code >= 0xa0 && code <= 0xa4) ? 0 : 1
}

/** geth's ErrStackUnderflow / ErrStackOverflow text for `code` with `stackLen` items. */
export function stackErrorMessage(kind: 'underflow' | 'overflow', code: number, stackLen: number): string {
  if (kind === 'underflow') return `stack underflow (${stackLen} <=> ${stackPops(code)})`
  return `stack limit reached ${stackLen} (${1024 + stackPops(code) - stackPushes(code)})`
}

const POPS: Record<number, number> = {}
const set = (n: number, codes: number[]) => {
  for (const c of codes) POPS[c] = n
}
set(1, [0x15, 0x19, 0x1e, 0x31, 0x35, 0x3b, 0x3f, 0x40, 0x49, 0x50, 0x51, 0x54, 0x56, 0x5c, 0xff])
set(2, [0x01, 0x02, 0x03, 0x04, 0x05, 0x06, 0x07, 0x0a, 0x0b, 0x10, 0x11, 0x12, 0x13, 0x14, 0x16, 0x17, 0x18])
set(2, [0x1a, 0x1b, 0x1c, 0x1d, 0x20, 0x52, 0x53, 0x55, 0x57, 0x5d, 0xf3, 0xfd])
set(3, [0x08, 0x09, 0x37, 0x39, 0x3e, 0x5e, 0xf0])
set(4, [0x3c, 0xf5])
set(6, [0xf4, 0xfa])
set(7, [0xf1, 0xf2])

const NO_PUSH = new Set([
  0x00, 0x37, 0x39, 0x3c, 0x3e, 0x50, 0x52, 0x53, 0x55, 0x56, 0x57, 0x5b, 0x5d, 0x5e, 0xf3, 0xfd, 0xfe, 0xff,
])

const GO_ESCAPE_RE = /[<>&\u2028\u2029\u007f-\uffff]/g

function escapeChar(c: string): string {
  return `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`
}

/**
 * A JSON value as Go's encoder writes it, in pure ASCII: `<`, `>`, `&`, U+2028/9 escaped as Go
 * does, every other non-ASCII character as `\uXXXX` (the same JSON string Go writes as UTF-8).
 */
export function goJson(value: unknown): string {
  return JSON.stringify(value).replace(GO_ESCAPE_RE, escapeChar)
}

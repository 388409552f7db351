/**
 * How geth's Go decoding fails, so our decoders fail with the same words.
 *
 * Two layers, as in go-ethereum:
 *  - text rules (common/hexutil): `hex string without 0x prefix`, `hex number > 64 bits`, ...
 *    thrown as HexRuleError (Go's *decError);
 *  - JSON rules (encoding/json + the types' UnmarshalJSON): a HexRuleError inside a JSON string is
 *    wrapped as `json: cannot unmarshal <msg> into Go value of type <T>`, a wrong JSON kind is
 *    `json: cannot unmarshal <kind> into Go value of type <T>`, and inside a struct field the
 *    error reads `... into Go struct field <Struct>.<field> of type <T>`.
 *
 * encoding/json keeps decoding after a wrong JSON kind for a built-in Go type ("soft" error, the
 * first one is reported at the end) but stops at once on an error returned by an UnmarshalJSON
 * method ("hard" error); struct decoders here follow the same order.
 */
import { decodeHexInto, hasHexPrefix, isHexDigits } from '../../util/hex.js'

/** A hexutil text-rule failure (Go's *decError); JSON unmarshalers wrap these with the Go type. */
export class HexRuleError extends Error {
  override name = 'HexRuleError'
}

/** hexutil's messages, verbatim. */
export const HEX_ERR = {
  emptyString: 'empty hex string',
  syntax: 'invalid hex string',
  missingPrefix: 'hex string without 0x prefix',
  oddLength: 'hex string of odd length',
  emptyNumber: 'hex string "0x"',
  leadingZero: 'hex number with leading zero digits',
  uint64Range: 'hex number > 64 bits',
  big256Range: 'hex number > 256 bits',
} as const

/**
 * A decode failure as encoding/json reports it. With `goType` it is a json.UnmarshalTypeError
 * (`value` is what was found: a JSON kind or a wrapped hexutil message); without, a plain error
 * whose message is `value`.
 */
export class GoDecodeError extends Error {
  override name = 'GoDecodeError'
  structName = ''
  fieldName = ''
  constructor(
    readonly value: string,
    readonly goType: string | undefined,
    /** True for a wrong JSON kind for a built-in Go type: decoding of the enclosing struct goes on. */
    readonly soft: boolean,
  ) {
    super(value)
  }

  /** The text geth prints. */
  render(): string {
    if (this.goType === undefined) return this.value
    if (this.structName !== '' || this.fieldName !== '') {
      return `json: cannot unmarshal ${this.value} into Go struct field ${this.structName}.${this.fieldName} of type ${this.goType}`
    }
    return `json: cannot unmarshal ${this.value} into Go value of type ${this.goType}`
  }
}

/** A plain (non-type) error, as returned by fmt.Errorf / errors.New inside an UnmarshalJSON. */
export function plainError(message: string): GoDecodeError {
  return new GoDecodeError(message, undefined, false)
}

/** Go's name for the JSON kind of a value, as used in UnmarshalTypeError. */
export function jsonKind(v: unknown): string {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  switch (typeof v) {
    case 'string':
      return 'string'
    case 'number':
      return 'number'
    case 'boolean':
      return 'bool'
    default:
      return 'object'
  }
}

/** A wrong JSON kind for a built-in Go type (struct, slice, string, bool): soft. */
export function kindMismatch(v: unknown, goType: string): GoDecodeError {
  return new GoDecodeError(jsonKind(v), goType, true)
}

/** Sets the struct/field context of a type error, as encoding/json's addErrorContext does (it overwrites). */
export function inField(err: unknown, structName: string, fieldName: string): unknown {
  if (err instanceof GoDecodeError && err.goType !== undefined) {
    err.structName = structName
    err.fieldName = fieldName
  }
  return err
}

export function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Maps JSON keys to struct fields the way encoding/json does: exact name first, else a
 * case-insensitive match (`blockhash` fills `blockHash`). Built once per struct type.
 */
export class FieldMatcher<F extends string> {
  private readonly byLower: Map<string, F>
  constructor(fields: readonly F[]) {
    this.byLower = new Map()
    for (const f of fields) this.byLower.set(f.toLowerCase(), f)
  }
  field(key: string): F | undefined {
    return this.byLower.get(key.toLowerCase())
  }
}

// ---------------------------------------------------------------------------------------------
// hexutil text rules. Inputs are the JSON string's contents.

/** hexutil checkNumberText: `null` for the empty string (which decodes as zero), else the digits. */
function numberDigits(s: string): string | null {
  if (s.length === 0) return null
  if (!hasHexPrefix(s)) throw new HexRuleError(HEX_ERR.missingPrefix)
  if (s.length === 2) throw new HexRuleError(HEX_ERR.emptyNumber)
  if (s.length > 3 && s.charCodeAt(2) === 48) throw new HexRuleError(HEX_ERR.leadingZero)
  return s
}

/** hexutil.Big / uint256 text: empty is zero, at most 64 digits. */
export function bigText(s: string): bigint {
  const digits = numberDigits(s)
  if (digits === null) return 0n
  if (digits.length - 2 > 64) throw new HexRuleError(HEX_ERR.big256Range)
  if (!isHexDigits(digits, 2)) throw new HexRuleError(HEX_ERR.syntax)
  return BigInt(digits)
}

/** hexutil.Uint64 text: empty is zero, at most 16 digits (length checked before syntax). */
export function uint64Text(s: string): bigint {
  const digits = numberDigits(s)
  if (digits === null) return 0n
  if (digits.length - 2 > 16) throw new HexRuleError(HEX_ERR.uint64Range)
  if (!isHexDigits(digits, 2)) throw new HexRuleError(HEX_ERR.syntax)
  return BigInt(digits)
}

/** hexutil.DecodeUint64 (used by rpc.BlockNumber): empty is an error; strconv order of syntax vs range. */
export function decodeUint64(s: string): bigint {
  if (s.length === 0) throw new HexRuleError(HEX_ERR.emptyString)
  numberDigits(s)
  // strconv.ParseUint walks left to right: a bad digit before the 17th is a syntax error, the
  // 17th digit overflows (the first digit is non-zero here).
  for (let i = 2; i < s.length; i++) {
    if (!isHexCode(s.charCodeAt(i))) throw new HexRuleError(HEX_ERR.syntax)
    if (i - 2 >= 16) throw new HexRuleError(HEX_ERR.uint64Range)
  }
  return BigInt(s)
}

/** hexutil.Bytes text: empty string is empty bytes; prefix, then even length, then syntax. */
export function bytesText(s: string): Uint8Array {
  if (s.length === 0) return new Uint8Array(0)
  if (!hasHexPrefix(s)) throw new HexRuleError(HEX_ERR.missingPrefix)
  if (s.length % 2 !== 0) throw new HexRuleError(HEX_ERR.oddLength)
  const out = new Uint8Array((s.length - 2) / 2)
  if (!decodeHexInto(s, 2, out)) throw new HexRuleError(HEX_ERR.syntax)
  return out
}

/**
 * hexutil.UnmarshalFixedText: exactly `size` bytes. A wrong length is a plain error
 * (`hex string has length 3, want 40 for common.Address`), not wrapped with the JSON type.
 */
export function fixedText(s: string, size: number, typeName: string): Uint8Array {
  checkFixedText(s, size, typeName)
  const out = new Uint8Array(size)
  decodeHexInto(s, 2, out)
  return out
}

/** The checks of fixedText without decoding (for values kept as strings, such as addresses). */
export function checkFixedText(s: string, size: number, typeName: string): void {
  let digits = 0
  if (s.length > 0) {
    if (!hasHexPrefix(s)) throw new HexRuleError(HEX_ERR.missingPrefix)
    if (s.length % 2 !== 0) throw new HexRuleError(HEX_ERR.oddLength)
    digits = s.length - 2
  }
  if (digits !== size * 2) throw plainError(`hex string has length ${digits}, want ${size * 2} for ${typeName}`)
  if (!isHexDigits(s, 2)) throw new HexRuleError(HEX_ERR.syntax)
}

/** hexutil.Decode: empty is an error; a bad digit anywhere wins over odd length (encoding/hex order). */
export function decodeHex(s: string): Uint8Array {
  if (s.length === 0) throw new HexRuleError(HEX_ERR.emptyString)
  if (!hasHexPrefix(s)) throw new HexRuleError(HEX_ERR.missingPrefix)
  if (!isHexDigits(s, 2)) throw new HexRuleError(HEX_ERR.syntax)
  if (s.length % 2 !== 0) throw new HexRuleError(HEX_ERR.oddLength)
  const out = new Uint8Array((s.length - 2) / 2)
  decodeHexInto(s, 2, out)
  return out
}

function isHexCode(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102)
}

// ---------------------------------------------------------------------------------------------
// UnmarshalJSON of hexutil-backed types: a JSON string, else `non-string`; text-rule errors are
// wrapped with the Go type. All failures are hard.

/** Runs a text rule on a JSON value the way hexutil's UnmarshalJSON methods do. */
export function unmarshalHex<T>(v: unknown, goType: string, text: (s: string) => T): T {
  if (typeof v !== 'string') throw new GoDecodeError('non-string', goType, false)
  try {
    return text(v)
  } catch (err) {
    if (err instanceof HexRuleError) throw new GoDecodeError(err.message, goType, false)
    throw err
  }
}

/** Runs a text rule whose errors geth returns unwrapped (rpc.BlockNumber, common.Hash.UnmarshalText). */
export function plainHex<T>(s: string, text: (s: string) => T): T {
  try {
    return text(s)
  } catch (err) {
    if (err instanceof HexRuleError) throw plainError(err.message)
    throw err
  }
}

/** common.Address from JSON: lowercase 0x string. */
export function unmarshalAddress(v: unknown): string {
  unmarshalHex(v, 'common.Address', checkAddressText)
  return `0x${(v as string).slice(2).toLowerCase()}`
}

function checkAddressText(s: string): void {
  checkFixedText(s, 20, 'common.Address')
}

function hashText(s: string): Uint8Array {
  return fixedText(s, 32, 'common.Hash')
}

/** common.Hash from JSON: 32 bytes. */
export function unmarshalHash(v: unknown): Uint8Array {
  return unmarshalHex(v, 'common.Hash', hashText)
}

/**
 * EIP-712 typed structured data: the digest eth_signTypedData_v4 signs,
 *
 *   keccak256(0x19 0x01 ‖ hashStruct("EIP712Domain", domain) ‖ hashStruct(primaryType, message))
 *   hashStruct(T, v) = keccak256(typeHash(T) ‖ enc(v.field₁) ‖ … ‖ enc(v.fieldₙ))
 *   typeHash(T)      = keccak256("T(type₁ name₁,…)" then every struct T references, sorted by name)
 *
 * as geth's signer/core/apitypes computes it (values: numbers as JSON numbers, decimal or 0x
 * strings; bytes as 0x strings; a struct value is an object with no more keys than fields). Where
 * the types leave `EIP712Domain` out (clients add it, some do not), it is derived from the domain's
 * fields in the EIP's order. Bad input is an InvalidParamsError naming what does not fit.
 */
import { keccak256 } from '../../../util/crypto.js'
import { decodeHexInto, hasHexPrefix } from '../../../util/hex.js'
import { InvalidParamsError } from '../../errors.js'
import type { ParamDecoder } from '../../types.js'

export interface TypedDataField {
  name: string
  type: string
}

/** An eth_signTypedData_v4 payload, shape-checked (the values are checked while hashing). */
export interface TypedData {
  types: Record<string, TypedDataField[]>
  primaryType: string
  domain: Record<string, unknown>
  message: Record<string, unknown>
}

/** The domain fields the EIP names, in its order, with their types (used when `types` omits EIP712Domain). */
const DOMAIN_FIELDS: readonly TypedDataField[] = [
  { name: 'name', type: 'string' },
  { name: 'version', type: 'string' },
  { name: 'chainId', type: 'uint256' },
  { name: 'verifyingContract', type: 'address' },
  { name: 'salt', type: 'bytes32' },
]

/** MAX_TYPED_DATA_DEPTH: structs nested deeper than this are refused (a recursive type would not end). */
export const MAX_TYPED_DATA_DEPTH = 64

const DOMAIN_TYPE = 'EIP712Domain'
const WORD_BYTES = 32
const UTF8 = new TextEncoder()
const INTEGER = /^(u?)int(\d*)$/
const FIXED_BYTES = /^bytes(\d+)$/
const ARRAY_SUFFIX = /\[(\d*)\]$/

export class TypedDataError extends InvalidParamsError {}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

function describe(v: unknown): string {
  return typeof v === 'string' ? v : (JSON.stringify(v) ?? String(v))
}

function mismatch(type: string, value: unknown): TypedDataError {
  return new TypedDataError(`provided data '${describe(value)}' doesn't match type '${type}'`)
}

/** Checks the payload's shape: a JSON string (ethers, viem) or the object itself (wallet tests, scripts). */
export function parseTypedData(raw: unknown): TypedData {
  let value = raw
  if (typeof raw === 'string') {
    try {
      value = JSON.parse(raw)
    } catch {
      throw new TypedDataError('typed data is not valid JSON')
    }
  }
  if (!isRecord(value))
    throw new TypedDataError('typed data must be an object with types, primaryType, domain and message')
  const { types, primaryType, domain, message } = value
  if (!isRecord(types)) throw new TypedDataError('typed data: types must be an object')
  if (typeof primaryType !== 'string') throw new TypedDataError('typed data: primaryType must be a string')
  if (!isRecord(domain)) throw new TypedDataError('typed data: domain must be an object')
  if (message !== undefined && !isRecord(message)) throw new TypedDataError('typed data: message must be an object')
  const checked: Record<string, TypedDataField[]> = {}
  for (const [name, fields] of Object.entries(types)) {
    if (!Array.isArray(fields)) throw new TypedDataError(`typed data: type ${name} must be a list of fields`)
    checked[name] = fields.map((f) => {
      if (!isRecord(f) || typeof f.name !== 'string' || typeof f.type !== 'string') {
        throw new TypedDataError(`typed data: a field of ${name} lacks a string name or type`)
      }
      return { name: f.name, type: f.type }
    })
  }
  if (checked[DOMAIN_TYPE] === undefined)
    checked[DOMAIN_TYPE] = DOMAIN_FIELDS.filter((f) => domain[f.name] !== undefined)
  if (checked[primaryType] === undefined)
    throw new TypedDataError(`typed data: primaryType ${primaryType} is not among the types`)
  return { types: checked, primaryType, domain, message: message ?? {} }
}

/** The struct a (possibly array) type names: `Person[2][]` → `Person`. */
function baseType(type: string): string {
  const bracket = type.indexOf('[')
  return bracket === -1 ? type : type.slice(0, bracket)
}

/** encodeType: the struct's signature, then those of the structs it references, sorted by name. */
export function encodeType(types: TypedData['types'], primaryType: string): string {
  const found = new Set<string>()
  const visit = (type: string) => {
    const name = baseType(type)
    const fields = types[name]
    if (fields === undefined || found.has(name)) return
    found.add(name)
    for (const f of fields) visit(f.type)
  }
  visit(primaryType)
  found.delete(primaryType)
  return [primaryType, ...[...found].sort()]
    .map((name) => `${name}(${(types[name] ?? []).map((f) => `${f.type} ${f.name}`).join(',')})`)
    .join('')
}

function concat(parts: Uint8Array[]): Uint8Array {
  let length = 0
  for (const p of parts) length += p.length
  const out = new Uint8Array(length)
  let offset = 0
  for (const p of parts) {
    out.set(p, offset)
    offset += p.length
  }
  return out
}

/** hashStruct(type, data) of the EIP. */
export function hashStruct(types: TypedData['types'], type: string, data: unknown, depth = 1): Uint8Array {
  if (depth > MAX_TYPED_DATA_DEPTH)
    throw new TypedDataError(`typed data nests deeper than ${MAX_TYPED_DATA_DEPTH} structs`)
  const fields = types[type]
  if (fields === undefined) throw new TypedDataError(`unrecognized type '${type}'`)
  if (!isRecord(data)) throw mismatch(type, data)
  const given = Object.keys(data).length
  if (given > fields.length) {
    throw new TypedDataError(`there is extra data provided in the message (${fields.length} < ${given})`)
  }
  const words = [keccak256(UTF8.encode(encodeType(types, type)))]
  for (const f of fields) words.push(encodeValue(types, f.type, data[f.name], depth))
  return keccak256(concat(words))
}

/** enc(value) of one field: 32 bytes. */
function encodeValue(types: TypedData['types'], type: string, value: unknown, depth: number): Uint8Array {
  const array = ARRAY_SUFFIX.exec(type)
  if (array !== null) {
    if (!Array.isArray(value)) throw mismatch(type, value)
    const length = array[1] === '' ? undefined : Number(array[1])
    if (length !== undefined && value.length !== length) throw mismatch(type, value)
    const element = type.slice(0, array.index)
    return keccak256(concat(value.map((v) => encodeValue(types, element, v, depth + 1))))
  }
  if (types[type] !== undefined) return hashStruct(types, type, value, depth + 1)
  return encodeAtomic(type, value)
}

function bytesOf(value: unknown): Uint8Array | undefined {
  if (typeof value !== 'string' || !hasHexPrefix(value) || value.length % 2 !== 0) return undefined
  const out = new Uint8Array((value.length - 2) / 2)
  return decodeHexInto(value, 2, out) ? out : undefined
}

function word(n: bigint): Uint8Array {
  const out = new Uint8Array(WORD_BYTES)
  let v = BigInt.asUintN(256, n)
  for (let i = WORD_BYTES - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

/** An integer value: a safe JSON number, or a decimal or 0x string (geth's math.HexOrDecimal256). */
function integerOf(type: string, value: unknown): bigint {
  if (typeof value === 'number') {
    if (!Number.isSafeInteger(value)) throw new TypedDataError(`invalid float value ${value} for type ${type}`)
    return BigInt(value)
  }
  if (typeof value === 'bigint') return value
  if (typeof value === 'string') {
    const text = value.trim()
    const negative = text.startsWith('-')
    const digits = negative ? text.slice(1) : text
    if (/^0x[0-9a-fA-F]+$/.test(digits) || /^[0-9]+$/.test(digits)) {
      const n = BigInt(digits)
      return negative ? -n : n
    }
  }
  throw new TypedDataError(`invalid integer value ${describe(value)} for type ${type}`)
}

function encodeAtomic(type: string, value: unknown): Uint8Array {
  switch (type) {
    case 'address': {
      const bytes = bytesOf(value)
      if (bytes === undefined || bytes.length !== 20) throw mismatch(type, value)
      const out = new Uint8Array(WORD_BYTES)
      out.set(bytes, 12)
      return out
    }
    case 'bool':
      if (typeof value !== 'boolean') throw mismatch(type, value)
      return word(value ? 1n : 0n)
    case 'string':
      if (typeof value !== 'string') throw mismatch(type, value)
      return keccak256(UTF8.encode(value))
    case 'bytes': {
      const bytes = bytesOf(value)
      if (bytes === undefined) throw mismatch(type, value)
      return keccak256(bytes)
    }
  }
  const fixed = FIXED_BYTES.exec(type)
  if (fixed !== null) {
    const length = Number(fixed[1])
    if (length < 1 || length > WORD_BYTES) throw new TypedDataError(`invalid size on bytes: ${length}`)
    const bytes = bytesOf(value)
    if (bytes === undefined || bytes.length !== length) throw mismatch(type, value)
    const out = new Uint8Array(WORD_BYTES)
    out.set(bytes)
    return out
  }
  const integer = INTEGER.exec(type)
  if (integer !== null) {
    const bits = integer[2] === '' ? 256 : Number(integer[2])
    if (bits < 8 || bits > 256 || bits % 8 !== 0) throw new TypedDataError(`invalid size on integer: ${integer[2]}`)
    const n = integerOf(type, value)
    const unsigned = integer[1] === 'u'
    if (unsigned && n < 0n) throw new TypedDataError(`invalid negative value for unsigned type ${type}`)
    const limit = unsigned ? 1n << BigInt(bits) : 1n << BigInt(bits - 1)
    if (n >= limit || n < -limit) throw new TypedDataError(`integer larger than '${type}'`)
    return word(n)
  }
  throw new TypedDataError(`unrecognized type '${type}'`)
}

/** The digest eth_signTypedData_v4 signs (a primaryType of EIP712Domain signs the domain alone, as eth-sig-util does). */
export function typedDataDigest(data: TypedData): Uint8Array {
  const domain = hashStruct(data.types, DOMAIN_TYPE, data.domain)
  const parts = [Uint8Array.of(0x19, 0x01), domain]
  if (data.primaryType !== DOMAIN_TYPE) parts.push(hashStruct(data.types, data.primaryType, data.message))
  return keccak256(concat(parts))
}

/** Param decoder: typed data as a JSON string or an object → its EIP-712 digest (decoding is validation). */
export const TypedDataDigest: ParamDecoder<Uint8Array> = {
  optional: false,
  decode: (raw) => typedDataDigest(parseTypedData(raw)),
}

/**
 * The transaction-call object of eth_call / eth_estimateGas / debug_traceCall, decoded as geth's
 * `ethapi.TransactionArgs`: every field optional, keys matched case-insensitively, unknown keys
 * ignored, errors named after the struct field (`json: cannot unmarshal hex string without 0x
 * prefix into Go struct field TransactionArgs.from of type common.Address`); and the call
 * methods' state and block override parameters.
 */
import type { BlockOverrides, StateOverrides } from '../../exec/pool/index.js'
import { sameBytes } from '../../util/bytes.js'
import { ServerError } from '../errors.js'
import type { ParamDecoder } from '../types.js'
import { goDecoder, optional } from './decoder.js'
import { unmarshalSimulatePayload } from './simulate.js'
import {
  bigText,
  bytesText,
  FieldMatcher,
  GoDecodeError,
  inField,
  isPlainObject,
  kindMismatch,
  plainError,
  uint64Text,
  unmarshalAddress,
  unmarshalHash,
  unmarshalHex,
} from './gojson.js'

export interface AccessListEntry {
  /** Lowercase 0x address. */
  address: string
  storageKeys: Uint8Array[]
}

/** An EIP-7702 authorization tuple. */
export interface Authorization {
  chainId: bigint
  /** Lowercase 0x address. */
  address: string
  nonce: bigint
  /** geth keeps the low byte of the decoded uint64. */
  yParity: number
  r: bigint
  s: bigint
}

/** A decoded transaction-call object. `undefined` = not given (geth's nil pointer). */
export interface CallArgs {
  from: string | undefined
  to: string | undefined
  gas: bigint | undefined
  gasPrice: bigint | undefined
  maxFeePerGas: bigint | undefined
  maxPriorityFeePerGas: bigint | undefined
  maxFeePerBlobGas: bigint | undefined
  value: bigint | undefined
  nonce: bigint | undefined
  /** The call data: `input` when given, else `data` (geth's TransactionArgs.data()). */
  input: Uint8Array | undefined
  /** True when both `data` and `input` were given with different bytes (see rejectDataInputConflict). */
  dataInputConflict: boolean
  accessList: AccessListEntry[] | undefined
  authorizationList: Authorization[] | undefined
  chainId: bigint | undefined
  blobVersionedHashes: Uint8Array[] | undefined
  /**
   * The `type` member when it is a valid QUANTITY. geth's TransactionArgs has no such field and
   * ignores it, so a malformed one is ignored here too (undefined).
   */
  type: number | undefined
}

const STRUCT = 'TransactionArgs'
const FIELDS = new FieldMatcher([
  'from',
  'to',
  'gas',
  'gasPrice',
  'maxFeePerGas',
  'maxPriorityFeePerGas',
  'maxFeePerBlobGas',
  'value',
  'nonce',
  'data',
  'input',
  'accessList',
  'authorizationList',
  'chainId',
  'blobVersionedHashes',
  'type',
] as const)

/** geth's message when both are set and differ; it checks this only when it builds a transaction. */
export const DATA_INPUT_CONFLICT =
  'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data'

function big(v: unknown): bigint {
  return unmarshalHex(v, '*hexutil.Big', bigText)
}

function u64(v: unknown): bigint {
  return unmarshalHex(v, 'hexutil.Uint64', uint64Text)
}

function bytes(v: unknown): Uint8Array {
  return unmarshalHex(v, 'hexutil.Bytes', bytesText)
}

/** Decodes a TransactionArgs value; throws GoDecodeError (hard errors at once, the first soft one at the end). */
export function unmarshalCallArgs(raw: unknown): CallArgs {
  const out: CallArgs = {
    from: undefined,
    to: undefined,
    gas: undefined,
    gasPrice: undefined,
    maxFeePerGas: undefined,
    maxPriorityFeePerGas: undefined,
    maxFeePerBlobGas: undefined,
    value: undefined,
    nonce: undefined,
    input: undefined,
    dataInputConflict: false,
    accessList: undefined,
    authorizationList: undefined,
    chainId: undefined,
    blobVersionedHashes: undefined,
    type: undefined,
  }
  if (raw === null) return out
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'ethapi.TransactionArgs')
  let data: Uint8Array | undefined
  let input: Uint8Array | undefined
  let soft: GoDecodeError | undefined
  for (const key of Object.keys(raw)) {
    const field = FIELDS.field(key)
    if (field === undefined) continue
    const v = raw[key]
    try {
      switch (field) {
        case 'from':
          out.from = v === null ? undefined : unmarshalAddress(v)
          break
        case 'to':
          out.to = v === null ? undefined : unmarshalAddress(v)
          break
        case 'gas':
          out.gas = v === null ? undefined : u64(v)
          break
        case 'nonce':
          out.nonce = v === null ? undefined : u64(v)
          break
        case 'gasPrice':
        case 'maxFeePerGas':
        case 'maxPriorityFeePerGas':
        case 'maxFeePerBlobGas':
        case 'value':
        case 'chainId':
          out[field] = v === null ? undefined : big(v)
          break
        case 'data':
          data = v === null ? undefined : bytes(v)
          break
        case 'input':
          input = v === null ? undefined : bytes(v)
          break
        case 'accessList':
          out.accessList = v === null ? undefined : decodeList(v, 'types.AccessList', decodeAccessTuple)
          break
        case 'authorizationList':
          out.authorizationList =
            v === null ? undefined : decodeList(v, '[]types.SetCodeAuthorization', decodeAuthorization)
          break
        case 'blobVersionedHashes':
          out.blobVersionedHashes = v === null ? undefined : decodeList(v, '[]common.Hash', unmarshalHash)
          break
        case 'type':
          out.type = lenientType(v)
          break
      }
    } catch (err) {
      inField(err, STRUCT, field)
      if (err instanceof GoDecodeError && err.soft) soft ??= err
      else throw err
    }
  }
  if (soft !== undefined) throw soft
  out.input = input ?? data
  out.dataInputConflict = data !== undefined && input !== undefined && !sameBytes(data, input)
  return out
}

/**
 * Decodes a JSON array into a Go slice: another JSON kind is a soft error. Elements decode through
 * an UnmarshalJSON method, so whatever fails inside one is a hard error for the enclosing struct.
 */
function decodeList<T>(v: unknown, goType: string, element: (e: unknown) => T): T[] {
  if (!Array.isArray(v)) throw kindMismatch(v, goType)
  const out = new Array<T>(v.length)
  try {
    for (let i = 0; i < v.length; i++) out[i] = element(v[i])
  } catch (err) {
    throw err instanceof GoDecodeError && err.soft ? hardened(err) : err
  }
  return out
}

const ACCESS_TUPLE_FIELDS = new FieldMatcher(['address', 'storageKeys'] as const)

/** types.AccessTuple.UnmarshalJSON (gencodec, both fields required). */
function decodeAccessTuple(v: unknown): AccessListEntry {
  let address: string | undefined
  let storageKeys: Uint8Array[] | undefined
  if (v !== null) {
    if (!isPlainObject(v)) throw kindMismatch(v, 'types.AccessTuple')
    let soft: GoDecodeError | undefined
    for (const key of Object.keys(v)) {
      const field = ACCESS_TUPLE_FIELDS.field(key)
      const e = v[key]
      try {
        if (field === 'address') address = e === null ? undefined : unmarshalAddress(e)
        else if (field === 'storageKeys')
          storageKeys = e === null ? undefined : decodeList(e, '[]common.Hash', unmarshalHash)
      } catch (err) {
        if (err instanceof GoDecodeError && err.soft) soft ??= err
        else throw err
      }
    }
    if (soft !== undefined) throw soft
  }
  if (address === undefined) throw plainError("missing required field 'address' for AccessTuple")
  if (storageKeys === undefined) throw plainError("missing required field 'storageKeys' for AccessTuple")
  return { address, storageKeys }
}

const AUTHORIZATION_KEYS = ['chainId', 'address', 'nonce', 'yParity', 'r', 's'] as const
const AUTHORIZATION_FIELDS = new FieldMatcher(AUTHORIZATION_KEYS)

function u256(v: unknown): bigint {
  return unmarshalHex(v, '*uint256.Int', bigText)
}

/** types.SetCodeAuthorization.UnmarshalJSON (gencodec, all fields required). */
function decodeAuthorization(v: unknown): Authorization {
  const got: Partial<Authorization> = {}
  if (v !== null) {
    if (!isPlainObject(v)) throw kindMismatch(v, 'types.SetCodeAuthorization')
    for (const key of Object.keys(v)) {
      const field = AUTHORIZATION_FIELDS.field(key)
      const e = v[key]
      if (field === undefined) continue
      if (e === null) {
        got[field] = undefined
        continue
      }
      if (field === 'address') got.address = unmarshalAddress(e)
      else if (field === 'nonce') got.nonce = u64(e)
      else if (field === 'yParity') got.yParity = Number(u64(e) & 0xffn)
      else got[field] = u256(e)
    }
  }
  for (const field of AUTHORIZATION_KEYS) {
    if (got[field] === undefined) throw plainError(`missing required field '${field}' for SetCodeAuthorization`)
  }
  return got as Authorization
}

/** An error returned from an UnmarshalJSON method is hard for the enclosing decoder. */
function hardened(err: GoDecodeError): GoDecodeError {
  const out = new GoDecodeError(err.value, err.goType, false)
  out.structName = err.structName
  out.fieldName = err.fieldName
  return out
}

function lenientType(v: unknown): number | undefined {
  if (typeof v !== 'string') return undefined
  try {
    const n = uint64Text(v)
    return n <= 0xffn ? Number(n) : undefined
  } catch {
    return undefined
  }
}

/**
 * The transaction-call object (geth `ethapi.TransactionArgs`). null reads as an empty object.
 * Like geth's eth_call, a `data`/`input` mismatch is not an error here (input wins): methods that
 * build a transaction call rejectDataInputConflict.
 */
export const CallObject: ParamDecoder<CallArgs> = goDecoder(unmarshalCallArgs)

/**
 * The state override parameter of eth_call, eth_estimateGas and eth_createAccessList (geth's
 * `*override.StateOverride`: address → balance, nonce, code, state, stateDiff,
 * movePrecompileToAddress). Decoded by the one decoder of that type, eth_simulateV1's
 * (src/rpc/params/simulate.ts), as a block's `stateOverrides`: the errors are the type's own.
 */
export function unmarshalStateOverride(raw: unknown): StateOverrides | undefined {
  if (raw === null) return undefined
  return asTopLevel('StateOverrides', () => unmarshalSimulatePayload({ blockStateCalls: [{ stateOverrides: raw }] }))
    .blockStateCalls[0]?.stateOverrides
}

/** The block override parameter of eth_call and eth_estimateGas (geth's `*override.BlockOverrides`), likewise. */
export function unmarshalBlockOverrides(raw: unknown): BlockOverrides | undefined {
  if (raw === null) return undefined
  return asTopLevel('BlockOverrides', () => unmarshalSimulatePayload({ blockStateCalls: [{ blockOverrides: raw }] }))
    .blockStateCalls[0]?.blockOverrides
}

/**
 * A decode error of a value decoded inside eth_simulateV1's payload, as encoding/json words it
 * for the value decoded on its own: the path through the payload (`BlockStateCalls.<member>`)
 * taken off, and a failure of the value itself named as a Go value, not a struct field.
 */
function asTopLevel<T>(member: 'StateOverrides' | 'BlockOverrides', decode: () => T): T {
  try {
    return decode()
  } catch (err) {
    if (err instanceof GoDecodeError) {
      const path = `BlockStateCalls.${member}`
      if (err.fieldName === path) {
        err.structName = ''
        err.fieldName = ''
      } else if (err.fieldName.startsWith(`${path}.`)) {
        err.fieldName = err.fieldName.slice(path.length + 1)
      }
    }
    throw err
  }
}

/** An optional state override parameter (absent or null: none). */
export const StateOverrideParam: ParamDecoder<StateOverrides | undefined> = optional(
  goDecoder(unmarshalStateOverride),
  undefined,
)

/** An optional block override parameter (absent or null: none). */
export const BlockOverridesParam: ParamDecoder<BlockOverrides | undefined> = optional(
  goDecoder(unmarshalBlockOverrides),
  undefined,
)

/** geth's check for methods that build a transaction: both `data` and `input`, different → -32000. */
export function rejectDataInputConflict(args: CallArgs): void {
  if (args.dataInputConflict) throw new ServerError(DATA_INPUT_CONFLICT)
}

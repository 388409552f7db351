/**
 * eth_simulateV1's payload, decoded as geth decodes `ethapi.simOpts`: `blockStateCalls` of
 * `{blockOverrides, stateOverrides, calls}`, and the `traceTransfers`, `validation`,
 * `returnFullTransactions` flags. Keys match case-insensitively, unknown keys are ignored.
 *
 * Errors read as encoding/json writes them: the innermost struct, then the path of field names
 * from the top (a tagged field by its tag, an untagged one by its Go name; arrays and maps add
 * nothing), e.g. `Go struct field TransactionArgs.BlockStateCalls.Calls.gas`. A wrong JSON kind
 * for a struct, slice or bool is "soft": decoding goes on and the first one is reported unless an
 * UnmarshalJSON method fails later ("hard", reported at once).
 */
import {
  type BlockOverrides,
  emptyBlockOverrides,
  type SimAccountOverride as AccountOverride,
  type SimBlock,
  type SimCall,
  type SimulateRequest,
  type StateOverrides,
  type Withdrawal,
} from '../../exec/pool/index.js'
import type { ParamDecoder } from '../types.js'
import { type CallArgs, unmarshalCallArgs } from './call.js'
import { goDecoder } from './decoder.js'
import {
  bigText,
  bytesText,
  FieldMatcher,
  GoDecodeError,
  isPlainObject,
  kindMismatch,
  uint64Text,
  unmarshalAddress,
  unmarshalHash,
  unmarshalHex,
} from './gojson.js'

function hexToBytes(address: string): Uint8Array {
  return Buffer.from(address.slice(2), 'hex')
}

/**
 * encoding/json's error context for a failure inside field `name` of `struct`: a type error with
 * no struct yet names this one; one from deeper keeps its struct and gets `name` before its path.
 */
function nest(err: unknown, struct: string, name: string): unknown {
  if (err instanceof GoDecodeError && err.goType !== undefined) {
    if (err.structName === '') {
      // first context: this struct; a path from inside an UnmarshalJSON method follows the name
      err.structName = struct
      err.fieldName = err.fieldName === '' ? name : `${name}.${err.fieldName}`
    } else {
      err.fieldName = `${name}.${err.fieldName}`
    }
  }
  return err
}

/** Collects a struct's or slice's soft errors (the first one wins); anything else is thrown at once. */
class SoftErrors {
  private first: GoDecodeError | undefined
  keep(err: unknown): void {
    if (err instanceof GoDecodeError && err.soft) this.first ??= err
    else throw err
  }
  /** Throws the first soft error, if any. */
  done(): void {
    if (this.first !== undefined) throw this.first
  }
}

/** A field of `struct`: decodes it, nesting any failure under `name`; soft failures are kept. */
function field<T>(soft: SoftErrors, struct: string, name: string, decode: () => T): T | undefined {
  try {
    return decode()
  } catch (err) {
    soft.keep(nest(err, struct, name))
    return undefined
  }
}

/** A Go slice of `goType` from a JSON array (another kind is soft); elements decode in order. */
function slice<T>(v: unknown, goType: string, element: (e: unknown) => T): T[] {
  if (!Array.isArray(v)) throw kindMismatch(v, goType)
  const soft = new SoftErrors()
  const out: T[] = []
  for (const e of v) {
    try {
      out.push(element(e))
    } catch (err) {
      soft.keep(err)
    }
  }
  soft.done()
  return out
}

function bool(v: unknown): boolean {
  if (typeof v === 'boolean') return v
  if (v === null) return false
  throw kindMismatch(v, 'bool')
}

const big = (v: unknown) => unmarshalHex(v, '*hexutil.Big', bigText)
const u64 = (v: unknown) => unmarshalHex(v, 'hexutil.Uint64', uint64Text)
const bytes = (v: unknown) => unmarshalHex(v, 'hexutil.Bytes', bytesText)
const address = (v: unknown) => hexToBytes(unmarshalAddress(v))

const OPTS_FIELDS = new FieldMatcher([
  'blockStateCalls',
  'traceTransfers',
  'validation',
  'returnFullTransactions',
] as const)

export function unmarshalSimulatePayload(raw: unknown): SimulateRequest {
  const out: SimulateRequest = {
    blockStateCalls: [],
    traceTransfers: false,
    validation: false,
    returnFullTransactions: false,
  }
  if (raw === null) return out
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'ethapi.simOpts')
  const S = 'simOpts'
  const soft = new SoftErrors()
  for (const key of Object.keys(raw)) {
    const name = OPTS_FIELDS.field(key)
    const v = raw[key]
    if (name === undefined || v === null) continue
    const Go = goName(name)
    if (name === 'blockStateCalls') {
      out.blockStateCalls = field(soft, S, Go, () => slice(v, '[]ethapi.simBlock', simBlock)) ?? []
    } else {
      out[name] = field(soft, S, Go, () => bool(v)) ?? false
    }
  }
  soft.done()
  return out
}

/** An untagged Go field's name: the JSON key with its first letter upper case. */
function goName(key: string): string {
  return key.charAt(0).toUpperCase() + key.slice(1)
}

const BLOCK_FIELDS = new FieldMatcher(['blockOverrides', 'stateOverrides', 'calls'] as const)

function simBlock(raw: unknown): SimBlock {
  const out: SimBlock = { blockOverrides: undefined, stateOverrides: undefined, calls: [] }
  if (raw === null) return out
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'ethapi.simBlock')
  const S = 'simBlock'
  const soft = new SoftErrors()
  for (const key of Object.keys(raw)) {
    const name = BLOCK_FIELDS.field(key)
    const v = raw[key]
    if (name === undefined || v === null) continue
    const Go = goName(name)
    switch (name) {
      case 'blockOverrides':
        out.blockOverrides = field(soft, S, Go, () => blockOverrides(v))
        break
      case 'stateOverrides':
        out.stateOverrides = field(soft, S, Go, () => stateOverrides(v))
        break
      case 'calls':
        out.calls =
          field(soft, S, Go, () => slice(v, '[]ethapi.TransactionArgs', (c) => toSimCall(unmarshalCallArgs(c)))) ?? []
        break
    }
  }
  soft.done()
  return out
}

function toSimCall(a: CallArgs): SimCall {
  return {
    from: a.from === undefined ? undefined : hexToBytes(a.from),
    to: a.to === undefined ? undefined : hexToBytes(a.to),
    gas: a.gas,
    gasPrice: a.gasPrice,
    maxFeePerGas: a.maxFeePerGas,
    maxPriorityFeePerGas: a.maxPriorityFeePerGas,
    maxFeePerBlobGas: a.maxFeePerBlobGas,
    value: a.value,
    nonce: a.nonce,
    data: a.input,
    accessList: a.accessList?.map((e) => ({ address: hexToBytes(e.address), storageKeys: e.storageKeys })),
    authorizationList: a.authorizationList?.map((x) => ({ ...x, address: hexToBytes(x.address) })),
    chainId: a.chainId,
    blobVersionedHashes: a.blobVersionedHashes,
  }
}

const OVERRIDE_FIELDS = new FieldMatcher([
  'number',
  'difficulty',
  'time',
  'gasLimit',
  'feeRecipient',
  'prevRandao',
  'baseFeePerGas',
  'blobBaseFee',
  'beaconRoot',
  'withdrawals',
] as const)

/** override.BlockOverrides (untagged fields: errors name them by their Go names). */
function blockOverrides(raw: unknown): BlockOverrides {
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'override.BlockOverrides')
  const out = emptyBlockOverrides()
  const S = 'BlockOverrides'
  const soft = new SoftErrors()
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    const name = OVERRIDE_FIELDS.field(key)
    if (name === undefined || v === null) continue
    const Go = goName(name)
    switch (name) {
      case 'number':
      case 'difficulty':
      case 'baseFeePerGas':
      case 'blobBaseFee':
        out[name] = field(soft, S, Go, () => big(v))
        break
      case 'time':
      case 'gasLimit':
        out[name] = field(soft, S, Go, () => u64(v))
        break
      case 'feeRecipient':
        out.feeRecipient = field(soft, S, Go, () => address(v))
        break
      case 'prevRandao':
      case 'beaconRoot':
        out[name] = field(soft, S, Go, () => unmarshalHash(v))
        break
      case 'withdrawals':
        out.withdrawals = field(soft, S, Go, () => slice(v, 'types.Withdrawals', withdrawal))
        break
    }
  }
  soft.done()
  return out
}

const WITHDRAWAL_FIELDS = new FieldMatcher(['index', 'validatorIndex', 'address', 'amount'] as const)

/**
 * types.Withdrawal.UnmarshalJSON (gencodec, no field required). Its own decode names its local
 * `Withdrawal` type; the enclosing decoder then overwrites the struct name and puts its path
 * first, and any failure is hard for it.
 */
function withdrawal(raw: unknown): Withdrawal {
  const out: Withdrawal = { index: 0n, validatorIndex: 0n, address: new Uint8Array(20), amount: 0n }
  try {
    if (raw === null) return out
    if (!isPlainObject(raw)) throw kindMismatch(raw, 'types.Withdrawal')
    const soft = new SoftErrors()
    for (const key of Object.keys(raw)) {
      const v = raw[key]
      const name = WITHDRAWAL_FIELDS.field(key)
      if (name === undefined || v === null) continue
      if (name === 'address') out.address = field(soft, 'Withdrawal', name, () => address(v)) ?? out.address
      else out[name] = field(soft, 'Withdrawal', name, () => u64(v)) ?? 0n
    }
    soft.done()
    return out
  } catch (err) {
    throw fromUnmarshaler(err)
  }
}

/**
 * An error returned by an UnmarshalJSON method, as the enclosing decoder sees it: hard, and its
 * struct name is the enclosing one's (nest() sets it: the inner struct name is dropped here).
 */
function fromUnmarshaler(err: unknown): unknown {
  if (!(err instanceof GoDecodeError) || err.goType === undefined) return err
  const out = new GoDecodeError(err.value, err.goType, false)
  out.fieldName = err.fieldName
  return out
}

const ACCOUNT_FIELDS = new FieldMatcher([
  'nonce',
  'code',
  'balance',
  'state',
  'stateDiff',
  'movePrecompileToAddress',
] as const)

/**
 * override.StateOverride: a map keyed by address (a map adds nothing to the error path). Go
 * decodes each value before its key, the key through common.Address's UnmarshalJSON.
 */
function stateOverrides(raw: unknown): StateOverrides {
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'override.StateOverride')
  const out: StateOverrides = new Map()
  const soft = new SoftErrors()
  for (const [key, value] of Object.entries(raw)) {
    let account: AccountOverride | undefined
    try {
      account = accountOverride(value)
    } catch (err) {
      soft.keep(err)
    }
    const addr = unmarshalAddress(key)
    if (account !== undefined) out.set(addr, account)
  }
  soft.done()
  return out
}

/** override.OverrideAccount (tagged fields: errors name them by their JSON tags). */
function accountOverride(raw: unknown): AccountOverride {
  const out: AccountOverride = {
    nonce: undefined,
    code: undefined,
    balance: undefined,
    state: undefined,
    stateDiff: undefined,
    movePrecompileTo: undefined,
  }
  if (raw === null) return out
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'override.OverrideAccount')
  const S = 'OverrideAccount'
  const soft = new SoftErrors()
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    const name = ACCOUNT_FIELDS.field(key)
    if (name === undefined || v === null) continue
    switch (name) {
      case 'nonce':
        out.nonce = field(soft, S, name, () => u64(v))
        break
      case 'code':
        out.code = field(soft, S, name, () => bytes(v))
        break
      case 'balance':
        out.balance = field(soft, S, name, () => big(v))
        break
      case 'state':
      case 'stateDiff':
        out[name] = field(soft, S, name, () => storageMap(v))
        break
      case 'movePrecompileToAddress':
        out.movePrecompileTo = field(soft, S, name, () => address(v))
        break
    }
  }
  soft.done()
  return out
}

/** map[common.Hash]common.Hash: each value, then its key, through common.Hash's UnmarshalJSON. */
function storageMap(v: unknown): [Uint8Array, Uint8Array][] {
  if (!isPlainObject(v)) throw kindMismatch(v, 'map[common.Hash]common.Hash')
  return Object.entries(v).map(([slot, value]) => {
    const word = unmarshalHash(value)
    return [unmarshalHash(slot), word]
  })
}

/** The simulation payload (geth `ethapi.simOpts`). */
export const SimulatePayload: ParamDecoder<SimulateRequest> = goDecoder(unmarshalSimulatePayload)

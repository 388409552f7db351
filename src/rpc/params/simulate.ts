/**
 * eth_simulateV1's payload, decoded as geth decodes `ethapi.simOpts`: `blockStateCalls` of
 * `{blockOverrides, stateOverrides, calls}`, and the `traceTransfers`, `validation`,
 * `returnFullTransactions` flags. Keys match case-insensitively, unknown keys are ignored;
 * errors name the Go struct field as encoding/json does.
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
  fixedText,
  inField,
  isPlainObject,
  kindMismatch,
  plainHex,
  uint64Text,
  unmarshalAddress,
  unmarshalHash,
  unmarshalHex,
} from './gojson.js'

function hexToBytes(address: string): Uint8Array {
  return Buffer.from(address.slice(2), 'hex')
}

function bool(v: unknown, struct: string, field: string): boolean {
  if (typeof v === 'boolean') return v
  if (v === null) return false
  throw inField(kindMismatch(v, 'bool'), struct, field)
}

function field<T>(struct: string, name: string, decode: () => T): T {
  try {
    return decode()
  } catch (err) {
    throw inField(err, struct, name)
  }
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
  for (const key of Object.keys(raw)) {
    const name = OPTS_FIELDS.field(key)
    const v = raw[key]
    if (name === 'blockStateCalls') {
      if (v === null) continue
      if (!Array.isArray(v)) throw inField(kindMismatch(v, '[]ethapi.simBlock'), 'simOpts', 'BlockStateCalls')
      out.blockStateCalls = v.map(simBlock)
    } else if (name !== undefined) {
      out[name] = bool(v, 'simOpts', name.charAt(0).toUpperCase() + name.slice(1))
    }
  }
  return out
}

const BLOCK_FIELDS = new FieldMatcher(['blockOverrides', 'stateOverrides', 'calls'] as const)

function simBlock(raw: unknown): SimBlock {
  const out: SimBlock = { blockOverrides: undefined, stateOverrides: undefined, calls: [] }
  if (raw === null) return out
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'ethapi.simBlock')
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    switch (BLOCK_FIELDS.field(key)) {
      case 'blockOverrides':
        out.blockOverrides = v === null ? undefined : blockOverrides(v)
        break
      case 'stateOverrides':
        out.stateOverrides = v === null ? undefined : stateOverrides(v)
        break
      case 'calls':
        if (v === null) break
        if (!Array.isArray(v)) throw inField(kindMismatch(v, '[]ethapi.TransactionArgs'), 'simBlock', 'Calls')
        out.calls = v.map((c) => toSimCall(unmarshalCallArgs(c)))
        break
    }
  }
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
    dataInputConflict: a.dataInputConflict,
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

function blockOverrides(raw: unknown): BlockOverrides {
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'override.BlockOverrides')
  const out = emptyBlockOverrides()
  const S = 'BlockOverrides'
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    const name = OVERRIDE_FIELDS.field(key)
    if (name === undefined || v === null) continue
    const Go = name.charAt(0).toUpperCase() + name.slice(1)
    switch (name) {
      case 'number':
      case 'difficulty':
      case 'baseFeePerGas':
      case 'blobBaseFee':
        out[name] = field(S, Go, () => big(v))
        break
      case 'time':
      case 'gasLimit':
        out[name] = field(S, Go, () => u64(v))
        break
      case 'feeRecipient':
        out.feeRecipient = field(S, Go, () => address(v))
        break
      case 'prevRandao':
      case 'beaconRoot':
        out[name] = field(S, Go, () => unmarshalHash(v))
        break
      case 'withdrawals':
        if (!Array.isArray(v)) throw inField(kindMismatch(v, 'types.Withdrawals'), S, 'Withdrawals')
        out.withdrawals = v.map(withdrawal)
        break
    }
  }
  return out
}

const WITHDRAWAL_FIELDS = new FieldMatcher(['index', 'validatorIndex', 'address', 'amount'] as const)

function withdrawal(raw: unknown): Withdrawal {
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'types.Withdrawal')
  const out: Withdrawal = { index: 0n, validatorIndex: 0n, address: new Uint8Array(20), amount: 0n }
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    const name = WITHDRAWAL_FIELDS.field(key)
    if (name === undefined || v === null) continue
    if (name === 'address') out.address = address(v)
    else out[name] = u64(v)
  }
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

function stateOverrides(raw: unknown): StateOverrides {
  if (!isPlainObject(raw)) throw kindMismatch(raw, 'override.StateOverride')
  const out: StateOverrides = new Map()
  for (const [key, value] of Object.entries(raw)) {
    const addr = `0x${Buffer.from(plainHex(key, (s) => fixedText(s, 20, 'common.Address'))).toString('hex')}`
    out.set(addr, accountOverride(value))
  }
  return out
}

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
  for (const key of Object.keys(raw)) {
    const v = raw[key]
    const name = ACCOUNT_FIELDS.field(key)
    if (name === undefined || v === null) continue
    switch (name) {
      case 'nonce':
        out.nonce = field(S, 'Nonce', () => u64(v))
        break
      case 'code':
        out.code = field(S, 'Code', () => bytes(v))
        break
      case 'balance':
        out.balance = field(S, 'Balance', () => big(v))
        break
      case 'state':
      case 'stateDiff':
        out[name] = storageMap(v, name === 'state' ? 'State' : 'StateDiff')
        break
      case 'movePrecompileToAddress':
        out.movePrecompileTo = field(S, 'MovePrecompileTo', () => address(v))
        break
    }
  }
  return out
}

function storageMap(v: unknown, goField: string): [Uint8Array, Uint8Array][] {
  if (!isPlainObject(v)) throw inField(kindMismatch(v, 'map[common.Hash]common.Hash'), 'OverrideAccount', goField)
  return Object.entries(v).map(([slot, value]) => {
    const key = plainHex(slot, (s) => fixedText(s, 32, 'common.Hash'))
    return [key, field('OverrideAccount', goField, () => unmarshalHash(value))]
  })
}

/** The simulation payload (geth `ethapi.simOpts`). */
export const SimulatePayload: ParamDecoder<SimulateRequest> = goDecoder(unmarshalSimulatePayload)

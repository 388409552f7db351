/**
 * What geth (v1.17) answers for a transaction-call object, per method, from the object's fields
 * alone: the oracle of the call-object fuzz test (test/callFuzz.test.ts). It follows geth's order
 * of checks and its wording:
 *
 *   decode (TransactionArgs)                                   -32602 invalid argument 0: …
 *   setFeeDefaults            (eth_createAccessList only)      -32000 maxFeePerGas (0x1) < …
 *   CallDefaults: fee styles, chainId                          -32000, bare sentence
 *   estimate only: funds for value / blob gas, allowance       -32000, bare sentence
 *   preCheck: fees, blobs, authorizations, funds (buyGas)      ┐ eth_call:   err: <why> (supplied gas N)
 *   execute:  intrinsic gas, EIP-7623 floor                    ┘ traceCall:  tracing failed: <why>
 *                                                                createAccessList: failed to apply transaction: <hash> err: <why>
 *                                                                estimateGas: failed with N gas: <why> (intrinsic gas: gas required exceeds allowance (N))
 *                                                                simulateV1: err: <why> (supplied gas N), code by txValidationError
 *
 * Sources: internal/ethapi/transaction_args.go (CallDefaults, setFeeDefaults, ToMessage),
 * internal/ethapi/api.go (doCall, applyMessageWithEVM, AccessList), eth/gasestimator,
 * core/state_transition.go (preCheck, buyGas, execute), internal/ethapi/errors.go, simulate.go.
 * The chain is the dev preset (Prague rules: EIP-7623 floor, EIP-7702, blobs; no EIP-7825 cap).
 */
import { getAddress } from 'viem'

/** The JSON-RPC methods the fuzz drives. */
export type FuzzMethod = 'eth_call' | 'eth_estimateGas' | 'eth_createAccessList' | 'debug_traceCall' | 'eth_simulateV1'

/** A call object's fields as the oracle reads them (undefined = absent). */
export interface CallFields {
  from?: string
  to?: string
  gas?: bigint
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
  maxFeePerBlobGas?: bigint
  value?: bigint
  /** The bytes that run: `input`, else `data`. */
  input?: Uint8Array
  nonce?: bigint
  accessList?: { address: string; storageKeys: string[] }[]
  authorizationList?: unknown[]
  chainId?: bigint
  blobVersionedHashes?: string[]
  /** A field whose text geth refuses: what encoding/json says about it. */
  decodeError?: { what: string; field: string; goType: string }
}

/** What the chain looks like at the pinned block. */
export interface ChainFacts {
  chainId: bigint
  baseFee: bigint
  blobBaseFee: bigint
  blockGasLimit: bigint
  /** eth_maxPriorityFeePerGas (geth's SuggestGasTipCap), for eth_createAccessList's defaults. */
  suggestedTip: bigint
  gasCap: bigint
  /** Balances by lowercase address; absent = 0. */
  balances: Map<string, bigint>
}

/** geth's answer: any result, or this error (a RegExp where a part cannot be predicted). */
export type Expected = { ok: true } | { ok: false; code: number; message: string | RegExp }

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const U256 = 1n << 256n
const TX_GAS = 21_000n
const TX_GAS_CREATE = 53_000n
const ACCESS_LIST_ADDRESS_GAS = 2_400n
const ACCESS_LIST_KEY_GAS = 1_900n
const AUTHORIZATION_GAS = 25_000n
const FLOOR_PER_TOKEN = 10n
const BLOB_GAS_PER_BLOB = 131_072n

const hex = (n: bigint) => `0x${n.toString(16)}`

/** A failure of geth's pipeline: where it happened decides the wrapping. */
class Refusal {
  constructor(
    readonly stage: 'defaults' | 'estimate' | 'message',
    readonly message: string,
    /** simulateV1's code (txValidationError), for stage 'message'. */
    readonly simCode = -32603,
  ) {}
}

function intrinsicGas(f: CallFields): { intrinsic: bigint; floor: bigint } {
  const data = f.input ?? new Uint8Array(0)
  let zeros = 0n
  for (const b of data) if (b === 0) zeros++
  const nonZeros = BigInt(data.length) - zeros
  let intrinsic = f.to === undefined ? TX_GAS_CREATE : TX_GAS
  intrinsic += zeros * 4n + nonZeros * 16n
  if (f.to === undefined) intrinsic += 2n * ((BigInt(data.length) + 31n) / 32n)
  for (const e of f.accessList ?? []) {
    intrinsic += ACCESS_LIST_ADDRESS_GAS + ACCESS_LIST_KEY_GAS * BigInt(e.storageKeys.length)
  }
  intrinsic += AUTHORIZATION_GAS * BigInt(f.authorizationList?.length ?? 0)
  const floor = TX_GAS + FLOOR_PER_TOKEN * (zeros + nonZeros * 4n)
  return { intrinsic, floor }
}

/** CallDefaults' checks (both fee styles, chainId). */
function callDefaults(f: CallFields, chain: ChainFacts): Refusal | undefined {
  if (f.gasPrice !== undefined && (f.maxFeePerGas !== undefined || f.maxPriorityFeePerGas !== undefined)) {
    return new Refusal('defaults', 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (f.chainId !== undefined && f.chainId !== chain.chainId) {
    return new Refusal('defaults', `chainId does not match node's (have=${f.chainId}, want=${chain.chainId})`)
  }
  return undefined
}

interface Message {
  from: string
  gas: bigint
  feeCap: bigint
  tipCap: bigint
  value: bigint
  blobFeeCap: bigint
  baseFee: bigint
  /** eth_call's NoBaseFee: fee checks skipped for an all-zero message. */
  noBaseFee: boolean
}

/** ToMessage with a base fee: gasPrice wins; else the 1559 fields, absent = 0. */
function toMessage(f: CallFields, gas: bigint, baseFee: bigint, noBaseFee: boolean): Message {
  const feeCap = f.gasPrice ?? f.maxFeePerGas ?? 0n
  const tipCap = f.gasPrice ?? f.maxPriorityFeePerGas ?? 0n
  return {
    from: f.from ?? ZERO_ADDRESS,
    gas,
    feeCap,
    tipCap,
    value: f.value ?? 0n,
    blobFeeCap: f.maxFeePerBlobGas ?? 0n,
    baseFee,
    noBaseFee,
  }
}

/** core preCheck + buyGas + execute's gas checks, in geth's order. */
function applyMessage(f: CallFields, m: Message, chain: ChainFacts): Refusal | undefined {
  const sender = getAddress(m.from)
  const skipFees = m.noBaseFee && m.feeCap === 0n && m.tipCap === 0n
  if (!skipFees) {
    if (m.feeCap < m.tipCap) {
      return new Refusal(
        'message',
        `max priority fee per gas higher than max fee per gas: address ${sender}, maxPriorityFeePerGas: ${m.tipCap}, maxFeePerGas: ${m.feeCap}`,
        -32602,
      )
    }
    if (m.feeCap < m.baseFee) {
      return new Refusal(
        'message',
        `max fee per gas less than block base fee: address ${sender}, maxFeePerGas: ${m.feeCap}, baseFee: ${m.baseFee}`,
        -38012,
      )
    }
  }
  const blobs = f.blobVersionedHashes
  if (blobs !== undefined) {
    if (f.to === undefined) return new Refusal('message', 'blob transaction of type create')
    if (blobs.length === 0) return new Refusal('message', 'blob transaction missing blob hashes')
    const bad = blobs.findIndex((h) => !h.startsWith('0x01'))
    if (bad >= 0) return new Refusal('message', `blob ${bad} has invalid hash version`)
  }
  const blobGas = BLOB_GAS_PER_BLOB * BigInt(blobs?.length ?? 0)
  if (blobGas > 0n && !(m.noBaseFee && m.blobFeeCap === 0n) && m.blobFeeCap < chain.blobBaseFee) {
    return new Refusal(
      'message',
      `max fee per blob gas less than block blob gas fee: address ${sender} blobGasFeeCap: ${m.blobFeeCap}, blobBaseFee: ${chain.blobBaseFee}`,
    )
  }
  if (f.authorizationList !== undefined) {
    if (f.to === undefined) {
      return new Refusal('message', `EIP-7702 transaction cannot be used to create contract (sender ${sender})`)
    }
    if (f.authorizationList.length === 0) {
      return new Refusal('message', `EIP-7702 transaction with empty auth list (sender ${sender})`)
    }
  }
  const want = m.gas * m.feeCap + m.value + blobGas * m.blobFeeCap
  if (m.gas * m.feeCap >= U256 || want >= U256) {
    return new Refusal(
      'message',
      `insufficient funds for gas * price + value: address ${sender} required balance exceeds 256 bits`,
      -38014,
    )
  }
  const have = chain.balances.get(m.from.toLowerCase()) ?? 0n
  if (have < want) {
    return new Refusal(
      'message',
      `insufficient funds for gas * price + value: address ${sender} have ${have} want ${want}`,
      -38014,
    )
  }
  const { intrinsic, floor } = intrinsicGas(f)
  if (m.gas < intrinsic)
    return new Refusal('message', `intrinsic gas too low: have ${m.gas}, want ${intrinsic}`, -38013)
  if (m.gas < floor)
    return new Refusal('message', `insufficient gas for floor data gas cost: have ${m.gas}, want ${floor}`)
  return undefined
}

const SERVER = -32000
const fail = (code: number, message: string | RegExp): Expected => ({ ok: false, code, message })

function callGas(f: CallFields, chain: ChainFacts): bigint {
  const gas = f.gas ?? chain.gasCap
  return chain.gasCap > 0n && gas > chain.gasCap ? chain.gasCap : gas
}

/** eth_call: CallDefaults bare, the message's refusals as `err: <why> (supplied gas N)`. */
function ethCall(f: CallFields, chain: ChainFacts): Expected {
  const d = callDefaults(f, chain)
  if (d !== undefined) return fail(SERVER, d.message)
  const gas = callGas(f, chain)
  const r = applyMessage(f, toMessage(f, gas, chain.baseFee, true), chain)
  return r === undefined ? { ok: true } : fail(SERVER, `err: ${r.message} (supplied gas ${gas})`)
}

/** debug_traceCall: CallDefaults bare, the message's refusals as `tracing failed: <why>`. */
function traceCall(f: CallFields, chain: ChainFacts): Expected {
  const d = callDefaults(f, chain)
  if (d !== undefined) return fail(SERVER, d.message)
  const r = applyMessage(f, toMessage(f, callGas(f, chain), chain.baseFee, true), chain)
  return r === undefined ? { ok: true } : fail(SERVER, `tracing failed: ${r.message}`)
}

/**
 * eth_estimateGas: gasestimator.Estimate's funds and allowance, then attempts at `hi`; a refusal
 * of the message reads `failed with <hi> gas: <why>` (gasestimator.run).
 */
function estimateGas(f: CallFields, chain: ChainFacts): Expected {
  const d = callDefaults(f, chain)
  if (d !== undefined) return fail(SERVER, d.message)
  const given = f.gas ?? 0n
  const capped = chain.gasCap > 0n && given > chain.gasCap ? chain.gasCap : given
  let hi = capped >= TX_GAS ? capped : chain.blockGasLimit
  const m = toMessage(f, hi, chain.baseFee, true)
  if (m.feeCap !== 0n) {
    let available = chain.balances.get(m.from.toLowerCase()) ?? 0n
    if (m.value >= available) return fail(SERVER, 'insufficient funds for transfer')
    available -= m.value
    const blobs = BigInt(f.blobVersionedHashes?.length ?? 0)
    if (blobs > 0n) {
      const usage = blobs * BLOB_GAS_PER_BLOB * m.blobFeeCap
      if (usage >= available) return fail(SERVER, 'insufficient funds for gas * price + value')
      available -= usage
    }
    const allowance = available / m.feeCap
    if (allowance < 1n << 64n && hi > allowance) hi = allowance
  }
  if (chain.gasCap > 0n && hi > chain.gasCap) hi = chain.gasCap
  const r = applyMessage(f, { ...m, gas: hi }, chain)
  if (r === undefined) return { ok: true }
  if (r.message.startsWith('intrinsic gas too low')) {
    // a plain transfer first tries 21000, whose intrinsic failure is ignored; then `hi` fails the same way
    return fail(SERVER, `gas required exceeds allowance (${hi})`)
  }
  // gasestimator.run wraps what ApplyMessage refused
  return fail(SERVER, `failed with ${hi} gas: ${r.message}`)
}

/** eth_createAccessList: setFeeDefaults first (its own wording), then the message at the gas cap. */
function createAccessList(f: CallFields, chain: ChainFacts): Expected {
  if (f.maxFeePerBlobGas === 0n) return fail(SERVER, 'maxFeePerBlobGas, if specified, must be non-zero')
  const filled: CallFields = { ...f }
  if (f.blobVersionedHashes !== undefined && f.maxFeePerBlobGas === undefined) {
    filled.maxFeePerBlobGas = 2n * chain.blobBaseFee
  }
  const hasGasPrice = f.gasPrice !== undefined
  if (hasGasPrice && (f.maxFeePerGas !== undefined || f.maxPriorityFeePerGas !== undefined)) {
    return fail(SERVER, 'both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
  if (hasGasPrice && f.authorizationList !== undefined) {
    return fail(SERVER, 'both gasPrice and authorizationList specified')
  }
  const tooLow = (fee: bigint, tip: bigint) =>
    fail(SERVER, `maxFeePerGas (${hex(fee)}) < maxPriorityFeePerGas (${hex(tip)})`)
  if (!hasGasPrice && f.maxFeePerGas !== undefined && f.maxPriorityFeePerGas !== undefined) {
    if (f.maxFeePerGas === 0n) return fail(SERVER, 'maxFeePerGas must be non-zero')
    if (f.maxFeePerGas < f.maxPriorityFeePerGas) return tooLow(f.maxFeePerGas, f.maxPriorityFeePerGas)
  } else if (hasGasPrice) {
    if (f.gasPrice === 0n) return fail(SERVER, 'gasPrice must be non-zero after london fork')
  } else {
    filled.maxPriorityFeePerGas ??= chain.suggestedTip
    filled.maxFeePerGas ??= filled.maxPriorityFeePerGas + 2n * chain.baseFee
    if (filled.maxFeePerGas < filled.maxPriorityFeePerGas) {
      return tooLow(filled.maxFeePerGas, filled.maxPriorityFeePerGas)
    }
  }
  const d = callDefaults(filled, chain)
  if (d !== undefined) return fail(SERVER, d.message)
  // the first run carries the request's list less the addresses never listed (sender, recipient)
  const excluded = new Set([(f.from ?? ZERO_ADDRESS).toLowerCase(), f.to?.toLowerCase()])
  filled.accessList = f.accessList?.filter((e) => !excluded.has(e.address.toLowerCase()))
  const gas = callGas(filled, chain)
  if (BigInt(f.authorizationList?.length ?? 0) > gas / AUTHORIZATION_GAS) {
    return fail(SERVER, 'insufficient gas to process all authorizations')
  }
  const r = applyMessage(filled, toMessage(filled, gas, chain.baseFee, true), chain)
  if (r === undefined) return { ok: true }
  return fail(SERVER, new RegExp(`^failed to apply transaction: 0x[0-9a-f]{64} err: ${escapeRegExp(r.message)}$`))
}

/**
 * eth_simulateV1, one block of one call, validation off: the block's base fee is 0, the gas
 * defaults to the block's and is clamped to the RPC gas cap, CallDefaults refusals are -32000,
 * the message's refusals carry txValidationError's code and `err: <why> (supplied gas N)`.
 */
function simulate(f: CallFields, chain: ChainFacts): Expected {
  const required = f.gas ?? chain.blockGasLimit
  if (required > chain.blockGasLimit) {
    return fail(-38015, `block gas limit reached: remaining: ${chain.blockGasLimit}, required: ${required}`)
  }
  // sanitizeCall then clamps it to the request's gas budget (the RPC gas cap)
  const gas = chain.gasCap > 0n && required > chain.gasCap ? chain.gasCap : required
  const d = callDefaults(f, chain)
  if (d !== undefined) return fail(SERVER, d.message)
  const r = applyMessage(f, toMessage(f, gas, 0n, true), chain)
  return r === undefined ? { ok: true } : fail(r.simCode, `err: ${r.message} (supplied gas ${gas})`)
}

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

/** geth's answer to `method` for the call object `f` on the chain `chain`. */
export function gethAnswer(method: FuzzMethod, f: CallFields, chain: ChainFacts): Expected {
  const bad = f.decodeError
  if (bad !== undefined) {
    // inside simOpts, encoding/json names the field by its path from the top struct (simOpts and
    // simBlock have no json tags: their Go names)
    const path = method === 'eth_simulateV1' ? `BlockStateCalls.Calls.${bad.field}` : bad.field
    return fail(
      -32602,
      `invalid argument 0: json: cannot unmarshal ${bad.what} into Go struct field TransactionArgs.${path} of type ${bad.goType}`,
    )
  }
  switch (method) {
    case 'eth_call':
      return ethCall(f, chain)
    case 'eth_estimateGas':
      return estimateGas(f, chain)
    case 'eth_createAccessList':
      return createAccessList(f, chain)
    case 'debug_traceCall':
      return traceCall(f, chain)
    case 'eth_simulateV1':
      return simulate(f, chain)
  }
}

/** The intrinsic gas of a call object (EIP-7623's floor aside): a gas value at the edge. */
export function intrinsicGasOf(f: CallFields): bigint {
  return intrinsicGas(f).intrinsic
}

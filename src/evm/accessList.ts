/**
 * eth_createAccessList: the EIP-2930 access list a message would touch, found as geth finds it
 * (internal/ethapi AccessList, v1.17.5):
 *
 *   state overrides ─▶ fee defaults (setFeeDefaults: suggested tip, 2 × base fee, 2 × blob base
 *   fee; its refusals in its own words) ─▶ CallDefaults (chain id, gas) ─▶ run the message,
 *   collect what it warmed, run again with that list ─▶ … until the list stops changing
 *
 * The sender, the recipient (or the created contract: the sender's and the request's nonce, else
 * the state's), the precompiles and the authorities of valid-looking authorizations are never
 * listed: they are warm anyway. A message geth's ApplyMessage refuses answers
 * `failed to apply transaction: <hash of the unsigned transaction> err: <why>`. geth applies these
 * state overrides without the precompile table, so a movePrecompileToAddress is refused here.
 */
import { getActivePrecompiles } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import {
  Address,
  bigIntToUnpaddedBytes,
  bytesToHex,
  type EOACode7702AuthorizationListBytesItem,
  eoaCode7702RecoverAuthority,
  SECP256K1_ORDER_DIV_2,
} from '@ethereumjs/util'
import type { BlockHeader } from '@ethereumjs/block'
import { keccak256 } from '../util/crypto.js'
import { type CallLimits, callGas } from './call.js'
import { ExecutionError, FeeStylesConflictError, isMessageRefusal } from './errors.js'
import { buildTx, type CallRequest, callDefaultsError } from './message.js'
import type { MessageOverrides } from './overrides.js'
import { type Env, readOverriddenState, runMessage } from './runMessage.js'

/** Rounds of re-execution before giving up on a list that keeps growing (geth loops until stable). */
export const MAX_ACCESS_LIST_ROUNDS = 32
/** Gas each authorization costs at least (geth params.CallNewAccountGas): more than gas / this is refused. */
const GAS_PER_AUTHORIZATION = 25_000n
const MAX_UINT64 = (1n << 64n) - 1n

export interface AccessListEntry {
  address: string
  storageKeys: string[]
}

export interface AccessListResult {
  accessList: AccessListEntry[]
  gasUsed: bigint
  /** The execution error (e.g. `execution reverted`), when the message fails. */
  error: string | undefined
}

export interface AccessListOptions {
  /** geth's SuggestGasTipCap (eth_maxPriorityFeePerGas) when the request came: the default tip. */
  suggestedTip: bigint
  /** State overrides (geth takes no block overrides here). */
  overrides?: MessageOverrides
}

function key(list: AccessListEntry[]): string {
  return list
    .map((e) => `${e.address}:${[...e.storageKeys].sort().join(',')}`)
    .sort()
    .join(';')
}

const hex = (n: bigint) => `0x${n.toString(16)}`

/**
 * geth's setFeeDefaults against the requested block's header: blob fee cap 2 × blob base fee;
 * after London a tip of `tip` and a fee cap of tip + 2 × base fee, each only where not given;
 * before London a gas price of `tip`. Its refusals are bare -32000 sentences.
 */
export function feeDefaults(req: CallRequest, header: BlockHeader, tip: bigint): CallRequest {
  const out: CallRequest = { ...req }
  if (req.maxFeePerBlobGas === 0n) throw new ExecutionError('maxFeePerBlobGas, if specified, must be non-zero')
  if (header.excessBlobGas !== undefined && req.blobVersionedHashes !== undefined) {
    out.maxFeePerBlobGas ??= 2n * header.getBlobGasPrice()
  }
  const { gasPrice, maxFeePerGas, maxPriorityFeePerGas } = req
  if (gasPrice !== undefined && (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined)) {
    throw new FeeStylesConflictError()
  }
  if (gasPrice !== undefined && req.authorizationList !== undefined) {
    throw new ExecutionError('both gasPrice and authorizationList specified')
  }
  if (gasPrice === undefined && maxFeePerGas !== undefined && maxPriorityFeePerGas !== undefined) {
    if (maxFeePerGas === 0n) throw new ExecutionError('maxFeePerGas must be non-zero')
    if (maxFeePerGas < maxPriorityFeePerGas) throw tipAboveCap(maxFeePerGas, maxPriorityFeePerGas)
    return out
  }
  const london = header.baseFeePerGas !== undefined
  if (gasPrice !== undefined) {
    if (gasPrice === 0n && london) throw new ExecutionError('gasPrice must be non-zero after london fork')
    return out
  }
  if (!london) {
    if (maxFeePerGas !== undefined || maxPriorityFeePerGas !== undefined) {
      throw new ExecutionError('maxFeePerGas and maxPriorityFeePerGas are not valid before London is active')
    }
    out.gasPrice = tip
    return out
  }
  out.maxPriorityFeePerGas ??= tip
  out.maxFeePerGas ??= out.maxPriorityFeePerGas + 2n * (header.baseFeePerGas ?? 0n)
  if (out.maxFeePerGas < out.maxPriorityFeePerGas) throw tipAboveCap(out.maxFeePerGas, out.maxPriorityFeePerGas)
  return out
}

function tipAboveCap(feeCap: bigint, tip: bigint): ExecutionError {
  return new ExecutionError(`maxFeePerGas (${hex(feeCap)}) < maxPriorityFeePerGas (${hex(tip)})`)
}

/** Authorities of the authorizations runTx would try (chain id 0 or ours, nonce not at the top, a signature that recovers). */
function authorities(req: CallRequest, chainId: bigint): string[] {
  const out: string[] = []
  for (const a of req.authorizationList ?? []) {
    if ((a.chainId !== 0n && a.chainId !== chainId) || a.nonce === MAX_UINT64) continue
    if (a.yParity > 1 || a.s > SECP256K1_ORDER_DIV_2) continue
    try {
      const tuple = [a.chainId, a.address, a.nonce, BigInt(a.yParity), a.r, a.s].map((v) =>
        typeof v === 'bigint' ? bigIntToUnpaddedBytes(v) : v,
      ) as EOACode7702AuthorizationListBytesItem
      out.push(eoaCode7702RecoverAuthority(tuple).toString())
    } catch {
      // a signature that does not recover names no authority
    }
  }
  return out
}

/** The address a creation by `from` at `nonce` deploys to. */
function createdAddress(from: Uint8Array, nonce: bigint): Uint8Array {
  return keccak256(RLP.encode([from, bigIntToUnpaddedBytes(nonce)])).subarray(12)
}

/** geth's args.ToTransaction(LegacyTxType).Hash(): a gas price makes it legacy (fields it lacks dropped). */
function unsignedHash(req: CallRequest, gas: bigint, nonce: bigint, env: Env): string {
  const shape: CallRequest =
    req.gasPrice !== undefined
      ? { ...req, accessList: undefined, authorizationList: undefined, blobVersionedHashes: undefined }
      : { ...req, maxFeePerGas: req.maxFeePerGas ?? 0n, maxPriorityFeePerGas: req.maxPriorityFeePerGas ?? 0n }
  return bytesToHex(keccak256(buildTx(shape, gas, nonce, env.block.header.common).serialize()))
}

export async function createAccessList(
  env: Env,
  request: CallRequest,
  limits: CallLimits,
  opts: AccessListOptions,
): Promise<AccessListResult> {
  const overrides = opts.overrides
  const from = request.from ?? new Uint8Array(20)
  // the overrides apply first: their refusals come before the fee defaults'
  const stateNonce = await readOverriddenState(
    env,
    overrides,
    async (sm) => (await sm.getAccount(new Address(from)))?.nonce ?? 0n,
  )
  const req = feeDefaults(request, env.block.header, opts.suggestedTip)
  const nonce = req.nonce ?? stateNonce
  const chainId = env.block.header.common.chainId()
  const refused = callDefaultsError(req, chainId)
  if (refused !== undefined) throw refused
  const gas = callGas(req, limits, env.block)
  if (BigInt(req.authorizationList?.length ?? 0) > gas / GAS_PER_AUTHORIZATION) {
    throw new ExecutionError('insufficient gas to process all authorizations')
  }
  const excluded = new Set<string>([bytesToHex(from), ...authorities(req, chainId)])
  // a creation: the new contract's address is the sender's and the nonce's (the request's, as geth)
  const to = req.to ?? createdAddress(from, nonce)
  excluded.add(bytesToHex(to))
  for (const address of getActivePrecompiles(env.block.header.common).keys()) excluded.add(`0x${address}`)
  // the contract really created (at the state's nonce) is in ethereumjs' report of what was warmed
  // even when no opcode touched it; geth's tracer lists it only for the slots its code touched
  const created = req.to === undefined && nonce !== stateNonce ? bytesToHex(createdAddress(from, stateNonce)) : ''
  const listed = (e: AccessListEntry) =>
    !excluded.has(e.address) && !(e.address === created && e.storageKeys.length === 0)
  let list: AccessListEntry[] = (req.accessList ?? []).filter((e) => !excluded.has(e.address))
  // the message runs with the state's nonce, whatever the request says (geth skips the check)
  const msg: CallRequest = { ...req, nonce: undefined }
  for (let round = 0; round < MAX_ACCESS_LIST_ROUNDS; round++) {
    let outcome: Awaited<ReturnType<typeof runMessage>>
    try {
      outcome = await runMessage(env, { ...msg, accessList: list }, gas, { want: 'accessList', overrides })
    } catch (err) {
      if (!isMessageRefusal(err)) throw err
      const hash = unsignedHash({ ...req, accessList: list }, gas, nonce, env)
      throw new ExecutionError(`failed to apply transaction: ${hash} err: ${err.shortMessage}`, { cause: err })
    }
    const next = (outcome.accessList ?? []).filter(listed)
    if (key(next) === key(list)) return { accessList: list, gasUsed: outcome.gasUsed, error: outcome.error }
    list = next
  }
  throw new Error(`access list did not settle after ${MAX_ACCESS_LIST_ROUNDS} rounds`)
}

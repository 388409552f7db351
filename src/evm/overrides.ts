/**
 * State and block overrides of a call, as the message runner applies them (geth's
 * override.StateOverride.Apply and BlockOverrides.Apply / MakeHeader in internal/ethapi):
 *
 *   StateEdit        edits the state a message runs on and its precompile table (balance,
 *                    nonce, code, storage, movePrecompileToAddress). The edit comes from the
 *                    module that owns the override format (src/simulate/overrides.ts, wired in
 *                    src/exec/pool/tasks.ts): this layer only runs it, inside the attempt's
 *                    checkpoint, and installs and restores the precompile table around it.
 *   HeaderOverrides  the header fields a call may replace: number, difficulty, time, gas limit,
 *                    fee recipient, prevRandao, base fee, blob base fee. `beaconRoot` and
 *                    `withdrawals` are refused, in geth's words.
 *
 * What must hold: nothing an override changes outlives the message (the state is reverted with
 * its checkpoint, the precompile table and warm-set hook restored in `finally`).
 */
import { type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { EVM, PrecompileFunc } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { ExecutionError } from './errors.js'
import { replacePrecompiles, warmOnFirstUse } from './patches.js'

/** An EVM's precompiles by unprefixed lowercase address. */
export type PrecompileTable = Map<string, PrecompileFunc>

/** Edits the state a message runs on, and the precompile table it will run with. */
export type StateEdit = (sm: MerkleStateManager, precompiles: PrecompileTable) => Promise<void>

/** geth's BlockOverrides as a call takes them (src/simulate's BlockOverrides has this shape). */
export interface HeaderOverrides {
  number?: bigint
  difficulty?: bigint
  time?: bigint
  gasLimit?: bigint
  feeRecipient?: Uint8Array
  prevRandao?: Uint8Array
  baseFeePerGas?: bigint
  blobBaseFee?: bigint
  /** Refused for calls (geth: only eth_simulateV1 takes it). */
  beaconRoot?: Uint8Array
  /** Refused for calls (geth: only eth_simulateV1 takes them). */
  withdrawals?: unknown[]
}

/** What a call replaces before its message runs. */
export interface MessageOverrides {
  state?: StateEdit
  block?: HeaderOverrides
}

/** geth's BlockOverrides.Apply refusals (bare -32000), or undefined. */
export function blockOverridesError(o: HeaderOverrides | undefined): ExecutionError | undefined {
  if (o?.beaconRoot !== undefined) {
    return new ExecutionError('block override "beaconRoot" is not supported for this RPC method')
  }
  if (o?.withdrawals !== undefined) {
    return new ExecutionError('block override "withdrawals" is not supported for this RPC method')
  }
  return undefined
}

/** The base fee a message is checked against under `o` (undefined before London). */
export function overriddenBaseFee(header: BlockHeader, o: HeaderOverrides | undefined): bigint | undefined {
  if (header.baseFeePerGas === undefined) return undefined
  return o?.baseFeePerGas ?? header.baseFeePerGas
}

/** The blob base fee a message is checked against under `o` (undefined before Cancun). */
export function overriddenBlobBaseFee(header: BlockHeader, o: HeaderOverrides | undefined): bigint | undefined {
  if (header.excessBlobGas === undefined) return undefined
  return o?.blobBaseFee ?? header.getBlobGasPrice()
}

/**
 * The header a message runs under: `o` applied, the base fee 0 when the message pays nothing per
 * gas and the blob base fee 0 when its blob fee cap is 0 (geth lowers both for calls). Not frozen,
 * so the blob base fee can be replaced on the instance.
 */
export function runHeader(
  header: BlockHeader,
  common: Common,
  o: HeaderOverrides | undefined,
  zeroBaseFee: boolean,
  zeroBlobFee: boolean,
): BlockHeader {
  const fields: Record<string, unknown> = { ...header.toJSON() }
  if (o?.number !== undefined) fields.number = o.number
  if (o?.difficulty !== undefined) fields.difficulty = o.difficulty
  if (o?.time !== undefined) fields.timestamp = o.time
  if (o?.gasLimit !== undefined) fields.gasLimit = o.gasLimit
  if (o?.feeRecipient !== undefined) fields.coinbase = o.feeRecipient
  if (o?.prevRandao !== undefined) fields.mixHash = o.prevRandao
  if (header.baseFeePerGas !== undefined) fields.baseFeePerGas = zeroBaseFee ? 0n : overriddenBaseFee(header, o)
  const out = createBlockHeader(fields, { common, skipConsensusFormatValidation: true, freeze: false })
  if (header.excessBlobGas !== undefined) {
    const blobBaseFee = zeroBlobFee ? 0n : overriddenBlobBaseFee(header, o)
    if (blobBaseFee !== header.getBlobGasPrice()) out.getBlobGasPrice = () => blobBaseFee as bigint
  }
  return out
}

/**
 * Runs `edit` on `sm` and installs the precompile table it leaves; the fork's precompile
 * addresses stay warm from the start, moved or not, as geth's Prepare warms them. Returns the
 * undo (the table and warm-set hook as they were; the state is the caller's checkpoint's).
 */
export async function applyStateEdit(evm: EVM, sm: MerkleStateManager, edit: StateEdit): Promise<() => void> {
  const saved = evm.precompiles as PrecompileTable
  const table: PrecompileTable = new Map(saved)
  await edit(sm, table)
  replacePrecompiles(evm, table)
  const unwarm = warmOnFirstUse(evm, [...saved.keys()])
  return () => {
    unwarm()
    replacePrecompiles(evm, saved)
  }
}

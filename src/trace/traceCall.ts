/**
 * debug_traceCall: an unsigned message on the state of a block, as geth's TraceCall runs it
 * (eth/tracers/api.go, v1.17.5):
 *
 *   block overrides (header fields; number = n + 1 keeps BLOCKHASH(n) answering) ─▶ state
 *   overrides (the caller's StateEdit, precompile moves included) ─▶ CallDefaults (both fee
 *   styles, a foreign chain id: bare -32000) ─▶ preCheck and buyGas, intrinsic gas and floor
 *   (`tracing failed: <why>`) ─▶ the traced run
 *
 * Gas is the request's, else the RPC gas cap; a message paying nothing per gas runs with a zero
 * base fee, one with a zero blob fee cap with a zero blob base fee; the sender's nonce is the
 * state's (the request's is ignored, as geth's message skips nonce checks). Nothing is committed.
 */
import { Address } from '@ethereumjs/util'
import type { EVM } from '@ethereumjs/evm'
import { callGas } from '../evm/call.js'
import { FloorDataGasError, IntrinsicGasError } from '../evm/errors.js'
import { buildTx, type CallRequest, callDefaultsError, messagePrices, precheckError } from '../evm/message.js'
import {
  applyStateEdit,
  blockOverridesError,
  type MessageOverrides,
  overriddenBaseFee,
  overriddenBlobBaseFee,
  runHeader,
} from '../evm/overrides.js'
import type { ChainBlock } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import { createChainVM } from '../evm/vm.js'
import type { TraceOptions } from './options.js'
import { TraceError, type TraceChain, traceMessage } from './run.js'

const ZERO_ADDRESS = new Address(new Uint8Array(20))

export interface TraceCallParams {
  block: ChainBlock
  request: CallRequest
  overrides: MessageOverrides | undefined
  gasCap: bigint
}

/** EIP-7623: 21000 + the fork's cost per calldata token (a zero byte 1 token, any other 4). */
function floorGas(tx: ReturnType<typeof buildTx>, data: Uint8Array): bigint | undefined {
  const c = tx.common
  if (!c.isActivatedEIP(7623)) return undefined
  let tokens = 0n
  for (const b of data) tokens += b === 0 ? 1n : 4n
  return c.param('txGas') + c.param('totalCostFloorPerToken') * tokens
}

export async function traceCall(
  chain: TraceChain,
  p: TraceCallParams,
  opts: TraceOptions,
  maxBytes: number,
): Promise<Uint8Array[]> {
  const { block, request: req } = p
  const blockOverrides = p.overrides?.block
  const early = blockOverridesError(blockOverrides)
  if (early !== undefined) throw early
  const common = block.header.common.copy()
  const state = stateAt(chain.db, common, block.header.stateRoot)
  const vm = await createChainVM(chain.store, common, state)
  if (p.overrides?.state !== undefined) await applyStateEdit(vm.evm as EVM, state, p.overrides.state)
  const refused = callDefaultsError(req, common.chainId())
  if (refused !== undefined) throw refused
  const gas = callGas(req, { gasCap: p.gasCap, timeoutMs: opts.timeoutMs }, block)
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  const account = await state.getAccount(from)
  const baseFee = overriddenBaseFee(block.header, blockOverrides)
  const blobBaseFee = overriddenBlobBaseFee(block.header, blockOverrides)
  const why = precheckError(req, gas, account?.balance ?? 0n, { common, baseFee, blobBaseFee })
  if (why !== undefined) throw new TraceError(`tracing failed: ${why.shortMessage}`, { cause: why })
  const prices = messagePrices(req, baseFee)
  const zeroBlobFee = req.blobVersionedHashes !== undefined && prices.blobFeeCap === 0n
  const header = runHeader(block.header, common, blockOverrides, prices.gasPrice === 0n, zeroBlobFee)
  const tx = buildTx(req, gas, account?.nonce ?? 0n, common)
  const intrinsic = tx.getIntrinsicGas()
  const floor = floorGas(tx, req.data ?? new Uint8Array(0))
  const short =
    gas < intrinsic
      ? new IntrinsicGasError(gas, intrinsic)
      : floor !== undefined && gas < floor
        ? new FloorDataGasError(gas, floor)
        : undefined
  if (short !== undefined) throw new TraceError(`tracing failed: ${short.shortMessage}`, { cause: short })
  return traceMessage({ tx, header, state, vm }, opts, maxBytes)
}

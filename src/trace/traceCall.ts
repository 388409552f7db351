/**
 * debug_traceCall: an unsigned message on the state of a block, with geth's call defaults
 * (eth/tracers/api.go TraceCall): gas = the request's, else the RPC gas cap; no fee fields =
 * price 0 and a zero base fee; nonce from state unless given; the sender must afford
 * value (+ gas × price). State overrides apply before the message runs; nothing is committed.
 */
import { createBlockHeader } from '@ethereumjs/block'
import { Address } from '@ethereumjs/util'
import { callGas } from '../evm/call.js'
import { InsufficientFundsError, messageFeeError, senderText } from '../evm/errors.js'
import { buildTx, type CallRequest, hasFees } from '../evm/runMessage.js'
import type { ChainBlock } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import { createChainVM } from '../evm/vm.js'
import type { TraceOptions } from './options.js'
import { type AccountOverride, applyStateOverrides } from './overrides.js'
import { TraceError, type TraceChain, traceMessage } from './run.js'

const ZERO_ADDRESS = new Address(new Uint8Array(20))

export interface TraceCallParams {
  block: ChainBlock
  request: CallRequest
  overrides: AccountOverride[]
  gasCap: bigint
}

export async function traceCall(
  chain: TraceChain,
  p: TraceCallParams,
  opts: TraceOptions,
  maxBytes: number,
): Promise<Uint8Array[]> {
  const { block, request: req } = p
  const common = block.header.common.copy()
  const state = stateAt(chain.db, common, block.header.stateRoot)
  await applyStateOverrides(state, p.overrides)
  const vm = await createChainVM(chain.store, common, state)
  const gas = callGas(req, { gasCap: p.gasCap, timeoutMs: opts.timeoutMs }, block)
  const from = req.from === undefined ? ZERO_ADDRESS : new Address(req.from)
  const account = await state.getAccount(from)
  const balance = account?.balance ?? 0n
  const feeCap = req.maxFeePerGas ?? req.gasPrice ?? 0n
  const needed = gas * feeCap + (req.value ?? 0n)
  // geth's preCheck order: fees, then funds; both answer `tracing failed: <why>`
  const why =
    messageFeeError(req, block.header.baseFeePerGas) ??
    (balance < needed ? new InsufficientFundsError(senderText(req.from), balance, needed) : undefined)
  if (why !== undefined) throw new TraceError(`tracing failed: ${why.shortMessage}`, { cause: why })
  const header =
    !hasFees(req) && block.header.baseFeePerGas !== undefined
      ? createBlockHeader(
          { ...block.header.toJSON(), baseFeePerGas: 0n },
          { common, skipConsensusFormatValidation: true },
        )
      : block.header
  const tx = buildTx(req, gas, req.nonce ?? account?.nonce ?? 0n, common)
  return traceMessage({ tx, header, state, vm }, opts, maxBytes)
}

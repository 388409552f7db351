/**
 * eth_createAccessList (src/evm/accessList.ts, gas cap and timeout from config), run by the
 * execution pool's call workers: the block is resolved here, the EVM runs off the main thread.
 * Takes geth v1.17's parameters: the call object, the block and a state override. geth fills the
 * request's missing fees first (suggested tip, 2 × base fee), so the suggested tip — what
 * eth_maxPriorityFeePerGas answers now — goes with the task.
 */
import { type Backend, stateBlock } from '../../backend.js'
import { toQuantity } from '../../../util/hex.js'
import { BlockTag, CallObject, LATEST, optional } from '../../params/index.js'
import { StateOverrideParam } from '../../params/call.js'
import { method, type MethodTable } from '../../types.js'
import { toCallRequest, toOverrides } from './call.js'
import { feeMethods } from './fee.js'

/** geth's SuggestGasTipCap: eth_maxPriorityFeePerGas's own answer (fee.ts keeps the oracle to itself). */
function suggestedTip(b: Backend): bigint {
  return BigInt(feeMethods.eth_maxPriorityFeePerGas?.handler(b, []) as string)
}

export const createAccessListMethods: MethodTable<Backend> = {
  eth_createAccessList: method(
    [CallObject, optional(BlockTag, LATEST), StateOverrideParam],
    async (b, [args, ref, state]) => {
      const result = await b.createAccessList(
        stateBlock(b, ref),
        toCallRequest(args),
        suggestedTip(b),
        toOverrides(state, undefined),
      )
      const out: Record<string, unknown> = { accessList: result.accessList, gasUsed: toQuantity(result.gasUsed) }
      if (result.error !== undefined) out.error = result.error
      return out
    },
  ),
}

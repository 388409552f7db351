/**
 * eth_createAccessList (src/evm/accessList.ts, gas cap and timeout from config), run by the
 * execution pool's call workers: the block is resolved here, the EVM runs off the main thread.
 */
import { type Backend, stateBlock } from '../../backend.js'
import { toQuantity } from '../../../util/hex.js'
import { BlockTag, CallObject, LATEST, optional } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'
import { toRequest } from './call.js'

export const createAccessListMethods: MethodTable<Backend> = {
  eth_createAccessList: method([CallObject, optional(BlockTag, LATEST)], async (b, [args, ref]) => {
    const result = await b.createAccessList(stateBlock(b, ref), toRequest(args))
    const out: Record<string, unknown> = { accessList: result.accessList, gasUsed: toQuantity(result.gasUsed) }
    if (result.error !== undefined) out.error = result.error
    return out
  }),
}

/** eth_createAccessList over src/exec/accessList.ts (gas cap and timeout from config). */
import { createAccessList } from '../../../exec/accessList.js'
import type { Backend } from '../../backend.js'
import { toQuantity } from '../../hex.js'
import { type BlockRef, BlockTag, type CallArgs, CallObject, LATEST, optional } from '../../params/index.js'
import type { MethodTable } from '../../types.js'
import { envFor, limits, toRequest } from './call.js'

export const createAccessListMethods: MethodTable<Backend> = {
  eth_createAccessList: {
    params: [CallObject, optional(BlockTag, LATEST)],
    handler: async (b, [args, ref]) => {
      const result = await createAccessList(envFor(b, ref as BlockRef), toRequest(args as CallArgs), limits(b))
      const out: Record<string, unknown> = { accessList: result.accessList, gasUsed: toQuantity(result.gasUsed) }
      if (result.error !== undefined) out.error = result.error
      return out
    },
  },
}

/**
 * eth_simulateV1 over src/exec/simulate, run by the execution pool's call workers: the base
 * block is resolved here; the blocks are simulated, and formatted (src/rpc/format/simulated.ts:
 * geth's RPCMarshalBlock plus each block's `calls`), off the main thread.
 */
import type { SimulateRequest } from '../../../exec/pool/index.js'
import { type Backend, stateBlock } from '../../backend.js'
import { type BlockRef, BlockTag, LATEST, optional } from '../../params/index.js'
import { SimulatePayload } from '../../params/simulate.js'
import type { MethodTable } from '../../types.js'

export const simulateMethods: MethodTable<Backend> = {
  eth_simulateV1: {
    params: [SimulatePayload, optional(BlockTag, LATEST)],
    handler: async (b, [payload, ref]) => b.simulate(stateBlock(b, ref as BlockRef), payload as SimulateRequest),
  },
}

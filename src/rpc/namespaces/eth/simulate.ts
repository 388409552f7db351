/**
 * eth_simulateV1 over src/simulate, run by the execution pool's call workers: the base
 * block is resolved here; the blocks are simulated, and formatted (src/rpc/format/simulated.ts:
 * geth's RPCMarshalBlock plus each block's `calls`), off the main thread.
 */
import { type Backend, stateBlock } from '../../backend.js'
import { BlockTag, LATEST, optional } from '../../params/index.js'
import { SimulatePayload } from '../../params/simulate.js'
import { method, type MethodTable } from '../../types.js'

export const simulateMethods: MethodTable<Backend> = {
  eth_simulateV1: method([SimulatePayload, optional(BlockTag, LATEST)], async (b, [payload, ref]) =>
    b.simulate(stateBlock(b, ref), payload),
  ),
}

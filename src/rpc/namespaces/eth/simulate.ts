/**
 * eth_simulateV1 over src/simulate, run by the execution pool's call workers: the base
 * block is resolved here; the blocks are simulated, and formatted (src/rpc/format/simulated.ts:
 * geth's RPCMarshalBlock plus each block's `calls`), off the main thread.
 *
 * A simulation refused as a whole answers with geth's code and words — -32603 included, geth's
 * txValidationError default for a message refusal it has no code for. That answer is not a
 * failure of the node, so it leaves here as an RpcError, which the dispatcher does not report.
 */
import { type Backend, stateBlock } from '../../backend.js'
import { RpcError, toJsonRpcError } from '../../errors.js'
import { SimulationError } from '../../../exec/pool/index.js'
import { BlockTag, LATEST, optional } from '../../params/index.js'
import { SimulatePayload } from '../../params/simulate.js'
import { method, type MethodTable } from '../../types.js'

export const simulateMethods: MethodTable<Backend> = {
  eth_simulateV1: method([SimulatePayload, optional(BlockTag, LATEST)], async (b, [payload, ref]) => {
    try {
      return await b.simulate(stateBlock(b, ref), payload)
    } catch (err) {
      if (!(err instanceof SimulationError)) throw err
      const { code, message } = toJsonRpcError(err)
      throw new RpcError(code, message, { cause: err })
    }
  }),
}

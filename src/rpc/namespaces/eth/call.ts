/**
 * eth_call and eth_estimateGas (src/evm/call.ts, gas cap and timeout from config), run by the
 * execution pool's call workers: the block is resolved here, the EVM runs off the main thread.
 */
import type { CallRequest } from '../../../exec/pool/index.js'
import { type Backend, stateBlock } from '../../backend.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { BlockTag, type CallArgs, CallObject, LATEST, optional, rejectDataInputConflict } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

function addressBytes(hex: string | undefined): Uint8Array | undefined {
  return hex === undefined ? undefined : Buffer.from(hex.slice(2), 'hex')
}

export function toRequest(args: CallArgs): CallRequest {
  rejectDataInputConflict(args)
  return {
    from: addressBytes(args.from),
    to: addressBytes(args.to),
    gas: args.gas,
    gasPrice: args.gasPrice,
    maxFeePerGas: args.maxFeePerGas,
    maxPriorityFeePerGas: args.maxPriorityFeePerGas,
    value: args.value,
    data: args.input,
    nonce: args.nonce,
    accessList: args.accessList?.map((e) => ({ address: e.address, storageKeys: e.storageKeys.map((k) => toData(k)) })),
  }
}

export const callMethods: MethodTable<Backend> = {
  eth_call: method([CallObject, optional(BlockTag, LATEST)], async (b, [args, ref]) => {
    const block = stateBlock(b, ref)
    return toData(await b.call(block, toRequest(args)))
  }),
  eth_estimateGas: method([CallObject, optional(BlockTag, LATEST)], async (b, [args, ref]) => {
    const block = stateBlock(b, ref)
    return toQuantity(await b.estimateGas(block, toRequest(args)))
  }),
}

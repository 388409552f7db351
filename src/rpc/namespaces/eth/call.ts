/** eth_call and eth_estimateGas over src/exec/call.ts (gas cap and timeout from config). */
import { call, estimateGas, type CallRequest } from '../../../exec/call.js'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import { type BlockRef, BlockTag, type CallArgs, CallObject, LATEST, optional, rejectDataInputConflict } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

function addressBytes(hex: string | undefined): Uint8Array | undefined {
  return hex === undefined ? undefined : Buffer.from(hex.slice(2), 'hex')
}

function toRequest(args: CallArgs): CallRequest {
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

function envFor(b: Backend, ref: BlockRef) {
  return { db: b.db, store: b.store, common: b.common, block: b.stateBlock(ref) }
}

function limits(b: Backend) {
  return { gasCap: b.config.jsonrpc.gasCap, timeoutMs: b.config.jsonrpc.evmTimeoutMs }
}

export const callMethods: MethodTable<Backend> = {
  eth_call: {
    params: [CallObject, optional(BlockTag, LATEST)],
    handler: async (b, [args, ref]) =>
      toData(await call(envFor(b, ref as BlockRef), toRequest(args as CallArgs), limits(b))),
  },
  eth_estimateGas: {
    params: [CallObject, optional(BlockTag, LATEST)],
    handler: async (b, [args, ref]) =>
      toQuantity(await estimateGas(envFor(b, ref as BlockRef), toRequest(args as CallArgs), limits(b))),
  },
}

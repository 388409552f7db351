/**
 * eth_call and eth_estimateGas (src/exec/call.ts, gas cap and timeout from config), run by the
 * execution pool's call workers: the block is resolved here, the EVM runs off the main thread.
 */
import type { CallRequest } from '../../../exec/call.js'
import type { CallJob } from '../../../exec/pool/index.js'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import { type BlockRef, BlockTag, type CallArgs, CallObject, LATEST, optional, rejectDataInputConflict } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

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

export function envFor(b: Backend, ref: BlockRef) {
  return { db: b.db, store: b.store, common: b.common, block: b.stateBlock(ref) }
}

export function limits(b: Backend) {
  return { gasCap: b.config.jsonrpc.gasCap, timeoutMs: b.config.jsonrpc.evmTimeoutMs }
}

/** A call task for the execution pool: the block by hash, the head the worker must know. */
function callTask(b: Backend, kind: CallJob['kind'], args: CallArgs, ref: BlockRef): CallJob {
  const block = b.stateBlock(ref)
  const request = toRequest(args)
  return { kind, head: b.store.head.header.number, blockHash: block.hash, request, limits: limits(b) }
}

export const callMethods: MethodTable<Backend> = {
  eth_call: {
    params: [CallObject, optional(BlockTag, LATEST)],
    handler: async (b, [args, ref]) =>
      toData((await b.exec.call(callTask(b, 'call', args as CallArgs, ref as BlockRef))) as Uint8Array),
  },
  eth_estimateGas: {
    params: [CallObject, optional(BlockTag, LATEST)],
    handler: async (b, [args, ref]) =>
      toQuantity((await b.exec.call(callTask(b, 'estimateGas', args as CallArgs, ref as BlockRef))) as bigint),
  },
}

/**
 * eth_call and eth_estimateGas (src/evm/call.ts, gas cap and timeout from config), run by the
 * execution pool's call workers: the block is resolved here, the EVM runs off the main thread.
 * Both take geth v1.17's parameters: the call object, the block, a state override and a block
 * override (`*override.StateOverride`, `*override.BlockOverrides`).
 */
import type { CallOverrides, CallRequest } from '../../../exec/pool/index.js'
import { type Backend, stateBlock } from '../../backend.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { BlockTag, type CallArgs, CallObject, LATEST, optional, rejectDataInputConflict } from '../../params/index.js'
import { BlockOverridesParam, StateOverrideParam } from '../../params/call.js'
import type { BlockOverrides, StateOverrides } from '../../../exec/pool/index.js'
import { method, type MethodTable } from '../../types.js'

function addressBytes(hex: string | undefined): Uint8Array | undefined {
  return hex === undefined ? undefined : Buffer.from(hex.slice(2), 'hex')
}

/**
 * The message of a call object, every field geth's call methods read. A `data`/`input` mismatch
 * is no error here (`input` wins): geth refuses it only when it builds a transaction to send.
 */
export function toCallRequest(args: CallArgs): CallRequest {
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
    chainId: args.chainId,
    maxFeePerBlobGas: args.maxFeePerBlobGas,
    blobVersionedHashes: args.blobVersionedHashes,
    authorizationList: args.authorizationList?.map((a) => ({ ...a, address: Buffer.from(a.address.slice(2), 'hex') })),
  }
}

/** The request of a transaction to send (eth_sendTransaction …): geth's setDefaults refuses data ≠ input. */
export function toRequest(args: CallArgs): CallRequest {
  rejectDataInputConflict(args)
  return toCallRequest(args)
}

/** The overrides of a call, or undefined when none was given (such a call may be answered from the cache). */
export function toOverrides(
  state: StateOverrides | undefined,
  block: BlockOverrides | undefined,
): CallOverrides | undefined {
  return state === undefined && block === undefined ? undefined : { state, block }
}

export const callMethods: MethodTable<Backend> = {
  eth_call: method(
    [CallObject, optional(BlockTag, LATEST), StateOverrideParam, BlockOverridesParam],
    async (b, [args, ref, state, block]) => {
      const at = stateBlock(b, ref)
      return toData(await b.call(at, toCallRequest(args), toOverrides(state, block)))
    },
  ),
  eth_estimateGas: method(
    [CallObject, optional(BlockTag, LATEST), StateOverrideParam, BlockOverridesParam],
    async (b, [args, ref, state, block]) => {
      const at = stateBlock(b, ref)
      return toQuantity(await b.estimateGas(at, toCallRequest(args), toOverrides(state, block)))
    },
  ),
}

/**
 * The `testing` namespace (geth eth/catalyst/api_testing.go), served only when `[jsonrpc] api`
 * lists it: testing_buildBlockV1(parentHash, payloadAttributes, transactions?, extraData?) builds
 * the block this node would put on its head — from `transactions` (every one must apply; `[]`:
 * an empty block) or, when they are null, from the pool's pending ones — and answers geth's
 * ExecutionPayloadEnvelope. The block is executed on a call worker and thrown away: not sealed,
 * not inserted, not announced. How the payload attributes map onto an IBFT header:
 * src/exec/simulate/buildTestingBlock.ts.
 */
import type { Backend, PayloadAttributes } from '../backend.js'
import { InvalidParamsError } from '../errors.js'
import { Address, Data, Hash, optional, Uint64 } from '../params/index.js'
import { RpcError } from '../errors.js'
import { method, type Namespace, type ParamDecoder } from '../types.js'

function member<T>(decoder: ParamDecoder<T>, raw: unknown, name: string): T {
  try {
    return decoder.decode(raw)
  } catch (err) {
    if (err instanceof RpcError) throw new InvalidParamsError(`${err.message} for PayloadAttributes.${name}`)
    throw err
  }
}

/** geth's gencodec wording for a required member left out. */
function required(o: Record<string, unknown>, name: string): unknown {
  const v = o[name]
  if (v === undefined || v === null)
    throw new InvalidParamsError(`missing required field '${name}' for PayloadAttributes`)
  return v
}

const PayloadAttributesParam: ParamDecoder<PayloadAttributes> = {
  optional: false,
  decode(raw: unknown): PayloadAttributes {
    if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) {
      throw new InvalidParamsError('json: cannot unmarshal non-object into Go value of type engine.PayloadAttributes')
    }
    const o = raw as Record<string, unknown>
    const withdrawals = o.withdrawals
    if (withdrawals !== undefined && withdrawals !== null && !Array.isArray(withdrawals)) {
      throw new InvalidParamsError(
        'json: cannot unmarshal non-array into Go struct field PayloadAttributes.withdrawals',
      )
    }
    return {
      timestamp: member(Uint64, required(o, 'timestamp'), 'timestamp'),
      prevRandao: member(Hash, required(o, 'prevRandao'), 'prevRandao'),
      suggestedFeeRecipient: member(Address, required(o, 'suggestedFeeRecipient'), 'suggestedFeeRecipient'),
      withdrawals: (withdrawals as unknown[] | null | undefined) ?? undefined,
      parentBeaconBlockRoot:
        o.parentBeaconBlockRoot == null ? undefined : member(Hash, o.parentBeaconBlockRoot, 'parentBeaconBlockRoot'),
    }
  },
}

/** `[]hexutil.Bytes`, null/absent meaning "from the pool". */
const TransactionList: ParamDecoder<Uint8Array[]> = {
  optional: false,
  decode(raw: unknown): Uint8Array[] {
    if (!Array.isArray(raw))
      throw new InvalidParamsError('json: cannot unmarshal non-array into Go value of type []hexutil.Bytes')
    return raw.map((t) => Data.decode(t))
  },
}

export const testingNamespace: Namespace<Backend> = {
  name: 'testing',
  methods: {
    testing_buildBlockV1: method(
      [Hash, PayloadAttributesParam, optional(TransactionList, undefined), optional(Data, new Uint8Array(0))],
      (b, [parentHash, attributes, transactions, extraData]) =>
        b.buildTestingBlock({ parentHash, attributes, transactions, extraData }),
    ),
  },
}

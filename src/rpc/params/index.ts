/**
 * Param decoders: decoding is validation. A method lists one decoder per positional param; the
 * dispatcher runs them in order before the handler, so handlers only see typed values.
 *
 *   raw JSON value ──decoder──▶ typed value (bigint, Uint8Array, lowercase address, BlockRef…)
 *                    └─ bad ──▶ InvalidParamsError(<geth's message>)  → dispatcher adds
 *                                                                        `invalid argument N: `
 *
 * Messages are go-ethereum's, byte for byte: its hexutil rules, encoding/json's type errors with
 * the Go type of the param (`*hexutil.Big`, `common.Address`, `ethapi.TransactionArgs`…), and the
 * custom UnmarshalJSON texts of rpc.BlockNumberOrHash and filters.FilterCriteria.
 *
 * Invariants:
 *  - a required decoder receives every present value, null included (geth hands null to the
 *    type's decoder: `null` for a Data param is `non-string`, for a Bool it is false);
 *  - optional(d, default) gives `default` for a missing or null value, as geth's pointer params;
 *  - a decoder may throw another RpcError (a ServerError) for checks geth makes in the handler
 *    (`invalid arguments; neither block nor hash specified`, storage key, address count); the
 *    dispatcher raises it unprefixed, and only when every param decoded.
 */
export {
  BLOCK_TAG,
  BlockNumber,
  LATEST,
  type BlockRef,
  BlockTag,
  type BlockTagName,
  NEITHER_BLOCK_NOR_HASH,
} from './block.js'
export {
  type AccessListEntry,
  type Authorization,
  type CallArgs,
  CallObject,
  DATA_INPUT_CONFLICT,
  rejectDataInputConflict,
} from './call.js'
export { goDecoder, optional } from './decoder.js'
export {
  type FilterArgs,
  type FilterCriteria,
  FilterOptions,
  MAX_FILTER_ADDRESSES,
  MAX_FILTER_SUB_TOPICS,
  MAX_FILTER_TOPICS,
} from './filter.js'
export {
  Address,
  Bool,
  Data,
  FilterId,
  FloatArray,
  GoUint64,
  Hash,
  HexOrDecimal64,
  Quantity,
  StorageKey,
  stringParam,
  Uint,
  Uint64,
} from './scalars.js'

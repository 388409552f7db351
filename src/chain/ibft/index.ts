/**
 * chain/ibft — the IBFT header format every node reads: the extraData layout (vanity, validators,
 * seals, round, and the optional span record of a span's first block: span.ts) and the block hash that leaves seals and round out, so that sealing does not change
 * it. The protocol that fills the seals in (state machine, messages, seal signing and checks) is
 * src/consensus/ibft; this part sits low so that block execution and the chain store can hash and
 * check headers without the consensus layer (as geth-Quorum keeps its IstanbulExtra in core/types).
 */
export { IbftError, IbftExtraError, type IbftExtraErrorReason } from './errors.js'
export {
  ADDRESS_BYTES,
  blankedExtra,
  decodeExtra,
  encodeExtra,
  IBFT_MIX_HASH,
  IBFT_MIX_HASH_HEX,
  type IbftExtra,
  MAX_ROUND,
  ROUND_BYTES,
  roundToBytes,
  SEAL_BYTES,
  VANITY_BYTES,
} from './extra.js'
export {
  type CommitteeMember,
  compareBytes,
  decodeSpanItem,
  SPAN_MAX_UINT,
  SPAN_REF_HASH_BYTES,
  SPAN_SIGNATURE_BYTES,
  SPAN_SIGNER_BYTES,
  type SpanRecord,
  spanItem,
} from './span.js'
export { EXTRA_DATA_INDEX, extraDataOf, hashWithExtra, ibftBlockHash, withExtraData } from './hash.js'

/**
 * validators — the validator layer (issue 19; VALIDATORS.md): who the validators are at a block,
 * which committee produces each span, and the consent that makes a committee switch valid.
 * It sits between p2p and consensus: IBFT (src/consensus) asks it which committee decides a
 * height; it asks the exec pool to read the DAO's state (never the EVM on the main thread).
 *
 *   set.ts        readValidatorSet(caller, blockHash): ValidatorSigners.validatorSet() at a block,
 *                 through the exec pool's call lane → [{seat, signer, power}] by signer
 *   spans.ts      span k = blocks [k·S+1, (k+1)·S]; span 0 = the genesis validators;
 *                 R(k+1) = first block of span k
 *   draw.ts       committee of span k+1 = `producers` power-weighted draws with replacement from the
 *                 set at R, x = keccak256(R.hash ‖ uint256(i) ‖ uint256(j)) with rejection sampling
 *   consent.ts    digest = keccak256(0x02 ‖ RLP([chainId, spanId, start, end, committee, refHash]));
 *                 valid with signers holding > 2/3 of the power of the set at R
 *   committees.ts committee of a height from headers alone; verifySpanRecord (the import check)
 *   importCheck.ts the same check as `ibex import`'s hook (block/importer.ts checkConsensus)
 *
 * Life of a switch (S = span_blocks):
 *
 *   block R = k·S+1 committed ──(a margin, src/consensus/spanConsent.ts)──▶ every validator of the set at R
 *     reads the set, draws, signs, gossips its consent (IBFT topic)
 *   proposer of block (k+1)·S, the last of span k ── consents over > 2/3 of the power? ──yes──▶
 *     its header carries span = [k+1, start, end, committee, R.hash, signatures]; block (k+1)·S+1,
 *     the first of span k+1, lists the new signers as `validators` and is decided by them
 *                                  └──no──▶ no span field: the committee carries on for span k+1;
 *                                           span k+2 is drawn at its own R
 *   import/sync of that block ──▶ verifySpanRecord with our own set at R (refused otherwise)
 *
 * The record rides one block before the span so the committee of every height is a function of
 * its parent chain: IBFT must know who proposes and votes at a height before any proposal exists.
 * Hence span_blocks ≥ 2 (with 1, R would have to carry the record its own hash seeds).
 *
 * What must hold: every node derives the same committee for every height from the chain alone;
 * a committee changes only at a span's first block with valid consent; with span_blocks = 0
 * nothing here runs and headers carry no span record (the chain is byte-identical to before).
 * An empty set at R (no seats in the DAO yet, or no ValidatorSigners contract) draws nothing: the
 * committee carries on.
 */
export {
  type Committee,
  drawCommittee,
  drawValue,
} from './draw.js'
export {
  consentDigest,
  hasSupermajority,
  recoverConsentSigner,
  SPAN_CONSENT_DOMAIN,
  signConsent,
  type SpanProposal,
  verifyConsent,
} from './consent.js'
export {
  committeeSigners,
  type HeaderSource,
  sameCommittee,
  SPAN_COMMITTEES_KEPT,
  type SpanCheck,
  SpanCommittees,
  spanProposal,
  verifySpanRecord,
} from './committees.js'
export {
  SpanConsentError,
  type SpanConsentErrorReason,
  ValidatorLayerError,
  ValidatorSetError,
  type ValidatorSetErrorReason,
} from './errors.js'
export { type SpanImportCheckOptions, spanImportCheck } from './importCheck.js'
export {
  decodeValidatorSet,
  execPoolCaller,
  MAX_VALIDATOR_SET_SIZE,
  readValidatorSet,
  totalPower,
  type Validator,
  VALIDATOR_SET_CALLDATA,
  VALIDATOR_SIGNERS_ADDRESS,
  type ValidatorSet,
  type ViewCaller,
} from './set.js'
export {
  isSpanStart,
  referenceBlock,
  type SpanParams,
  spanEnd,
  spanOf,
  spanStart,
  spansOn,
} from './spans.js'

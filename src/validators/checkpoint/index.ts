/**
 * checkpoint — the validator layer's checkpoints on the base chain and the proofs served against
 * them (issue 20; VALIDATORS.md "Checkpoints", "Proof of burn").
 *
 *   root.ts        checkpointRoot(hashes): Merkle root of a range's block hashes (zero-padded to a
 *                  power of two, keccak256(left ‖ right), leaves not re-hashed); blockProof /
 *                  verifyBlockProof; the length bounds (CHECKPOINT_MAX_BLOCKS, ROOT_RANGE_MAX_BLOCKS)
 *   proveBlock.ts  rangeHashes(chain, start, end) from the canonical index; proveBlock(chain,
 *                  checkpoint, n): the block's proof after checking the checkpoint's root is ours
 *   exitPayload.ts buildExitPayload(chain, source, {txHash, logIndex}): the RLP ExitVault.exit takes
 *                  (block proof, hashed header, receipt and its receipts-trie proof, log index)
 *   source.ts      Checkpoint and CheckpointSource: what the checkpoint service reads from the base
 *                  chain and hands to the proofs
 *   errors.ts      their IbexErrors (kinds mapped in src/rpc/errors.ts)
 *
 *   block hashes ──root.ts──▶ root ──(service: votes, base-chain contract)──▶ committed Checkpoint
 *   burn tx + Checkpoint (CheckpointSource) ──exitPayload.ts──▶ payload ──▶ ExitVault.exit(bytes)
 *
 * What must hold: the root of a range is a function of its canonical block hashes alone, the
 * same on every node, in the contract's verifier and in an independent script
 * (test/checkpoint/rootCheck.ts); a proof is never handed out against a checkpoint whose root the
 * local chain does not reproduce.
 */
export {
  type CheckpointError,
  CheckpointBlockMissingError,
  CheckpointRangeError,
  CheckpointRootMismatchError,
  ExitLogIndexError,
  ExitUnknownTxError,
  NoCheckpointServiceError,
  NotABurnError,
  NotCheckpointedError,
  ReceiptsRootMismatchError,
} from './errors.js'
export {
  buildExitPayload,
  type ExitChainReader,
  type ExitPayloadParams,
  type ExitPayloadResult,
  hashedHeaderRlp,
  isBurnLog,
  type LogIndexScope,
  TRANSFER_TOPIC_HEX,
} from './exitPayload.js'
export { type BlockProofResult, type CanonicalHashReader, proveBlock, rangeHashes } from './proveBlock.js'
export {
  blockProof,
  CHECKPOINT_MAX_BLOCKS,
  checkpointRoot,
  HASH_BYTES,
  MAX_PROOF_DEPTH,
  nextPowerOfTwo,
  proofDepth,
  ROOT_RANGE_MAX_BLOCKS,
  rootFromProof,
  verifyBlockProof,
  ZERO_HASH,
} from './root.js'
export { type Checkpoint, type CheckpointSource, CHILD_BLOCK_INTERVAL } from './source.js'

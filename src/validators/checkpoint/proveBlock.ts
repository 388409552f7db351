/**
 * Block proofs against a committed checkpoint, from the local chain: read the canonical hashes of
 * the checkpoint's range, check they rebuild its root (else this node is on another chain and
 * must not hand out a proof), and take the block's siblings.
 */
import { CheckpointBlockMissingError, CheckpointRangeError, CheckpointRootMismatchError } from './errors.js'
import { blockProof, checkpointRoot, ROOT_RANGE_MAX_BLOCKS } from './root.js'
import type { Checkpoint } from './source.js'

/** The canonical-index read proofs and roots need (the RPC Backend has it). */
export interface CanonicalHashReader {
  /** The canonical block hash at `number`; undefined beyond the head. */
  canonicalHash(number: bigint): Uint8Array | undefined
}

/**
 * rangeHashes returns the canonical hashes of blocks start..end, in order. Throws
 * CheckpointRangeError when end < start or the range is over ROOT_RANGE_MAX_BLOCKS, and
 * CheckpointBlockMissingError for the first block the chain lacks.
 */
export function rangeHashes(chain: CanonicalHashReader, start: bigint, end: bigint): Uint8Array[] {
  if (end < start) throw new CheckpointRangeError(`range [${start}, ${end}] ends before it starts`)
  if (end - start + 1n > BigInt(ROOT_RANGE_MAX_BLOCKS)) {
    throw new CheckpointRangeError(`range [${start}, ${end}] is over the maximum of ${ROOT_RANGE_MAX_BLOCKS} blocks`)
  }
  const hashes = new Array<Uint8Array>(Number(end - start + 1n))
  for (let n = start; n <= end; n++) {
    const hash = chain.canonicalHash(n)
    if (hash === undefined) throw new CheckpointBlockMissingError(n)
    hashes[Number(n - start)] = hash
  }
  return hashes
}

/** A block's place in a checkpoint and its proof (the exit payload's first two fields). */
export interface BlockProofResult {
  checkpoint: Checkpoint
  blockNumber: bigint
  blockHash: Uint8Array
  /** number − start: the leaf's position. */
  index: number
  /** Siblings from the leaf level up, 32 bytes each (root.ts). */
  proof: Uint8Array
}

/**
 * proveBlock returns block `number`'s proof against `checkpoint`, after checking the checkpoint's
 * root is the local chain's root of its range. Throws CheckpointRangeError when the block is
 * outside the range, CheckpointBlockMissingError when the chain lacks a block of it,
 * CheckpointRootMismatchError when the roots differ.
 */
export function proveBlock(chain: CanonicalHashReader, checkpoint: Checkpoint, number: bigint): BlockProofResult {
  if (number < checkpoint.start || number > checkpoint.end) {
    throw new CheckpointRangeError(
      `block ${number} is outside checkpoint ${checkpoint.id} [${checkpoint.start}, ${checkpoint.end}]`,
    )
  }
  const hashes = rangeHashes(chain, checkpoint.start, checkpoint.end)
  if (Buffer.compare(checkpointRoot(hashes), checkpoint.root) !== 0)
    throw new CheckpointRootMismatchError(checkpoint.id)
  const index = Number(number - checkpoint.start)
  return {
    checkpoint,
    blockNumber: number,
    blockHash: hashes[index] as Uint8Array,
    index,
    proof: blockProof(hashes, index),
  }
}

/**
 * The checkpoint root: a binary Merkle tree over the block hashes of a range [start, end]
 * (VALIDATORS.md "Checkpoints"; the format is shared with the base-chain contracts and the
 * checkpoint service, so it never changes).
 *
 *   leaves  = hash(start), hash(start+1) … hash(end)   (ibex's IBFT block hashes, as stored)
 *             padded with ZERO_HASH to the next power of two; leaves are NOT hashed again
 *   node    = keccak256(left ‖ right), unsorted
 *   root    = the one node left; a range of one block: its hash
 *
 *   depth 2, range of 3:        root
 *                             /      \
 *                      k(h0‖h1)      k(h2‖0x00…)
 *                       /   \         /   \
 *                     h0    h1      h2    ZERO
 *
 * A block proof is the siblings from the leaf level up, concatenated (32 bytes each), with
 * index = number − start; it has depth = log2(padded width) siblings. This is Bor's tree
 * (go-merkle with DisableHashLeaves and no sorting, consensus/bor/api.go GetRootHash) with a
 * different leaf: Bor hashes keccak256(number ‖ time ‖ txRoot ‖ receiptsRoot) per block, ibex
 * takes the block hash itself, which already commits to every header field a proof of burn needs.
 */
import { keccak256 } from '../../util/keccak.js'
import { CheckpointRangeError } from './errors.js'

/** Bytes of a block hash, a tree node and a proof element. */
export const HASH_BYTES = 32

/** The padding leaf (32 zero bytes). Do not mutate. */
export const ZERO_HASH: Uint8Array = new Uint8Array(HASH_BYTES)

/**
 * CHECKPOINT_MAX_BLOCKS is the longest range one checkpoint covers: Heimdall's default
 * max_checkpoint_length (1,024). A proof is then at most 10 siblings (320 bytes of calldata on the
 * base chain) and a vote recomputes at most 1,024 hashes. A longer backlog (30 min at 1 s blocks is
 * 1,800) is split into several checkpoints proposed back to back, so the bound never holds the
 * cadence back. The checkpoint service and contract enforce it; `[checkpoint]` config may lower it.
 */
export const CHECKPOINT_MAX_BLOCKS = 1024

/**
 * ROOT_RANGE_MAX_BLOCKS is the longest range whose root the node computes on request
 * (bor_getRootHash): Bor's MaxCheckpointLength, 2^15. It bounds the work of one call (32,768
 * canonical-index reads and as many hashes) and is ≥ CHECKPOINT_MAX_BLOCKS, so every checkpoint's
 * root can be asked for.
 */
export const ROOT_RANGE_MAX_BLOCKS = 2 ** 15

/** MAX_PROOF_DEPTH: siblings in the proof of a leaf of the widest tree the node builds (log2 ROOT_RANGE_MAX_BLOCKS). */
export const MAX_PROOF_DEPTH = 15

/** nextPowerOfTwo returns the smallest power of two ≥ n (1 for n ≤ 1), as Bor's merkle.go. */
export function nextPowerOfTwo(n: number): number {
  let width = 1
  while (width < n) width *= 2
  return width
}

/** proofDepth returns the number of siblings in a block proof of a range of `length` blocks. */
export function proofDepth(length: number): number {
  return Math.log2(nextPowerOfTwo(length))
}

/** One reused input buffer for hashPair (keccak256 copies its input into its own state). */
const PAIR = new Uint8Array(2 * HASH_BYTES)

function hashPair(left: Uint8Array, right: Uint8Array): Uint8Array {
  PAIR.set(left, 0)
  PAIR.set(right, HASH_BYTES)
  return keccak256(PAIR)
}

function checkLeaves(hashes: readonly Uint8Array[]): void {
  if (hashes.length === 0) throw new CheckpointRangeError('empty range: a checkpoint covers at least one block')
  if (hashes.length > ROOT_RANGE_MAX_BLOCKS) {
    throw new CheckpointRangeError(`range of ${hashes.length} blocks is over the maximum of ${ROOT_RANGE_MAX_BLOCKS}`)
  }
  for (let i = 0; i < hashes.length; i++) {
    if ((hashes[i] as Uint8Array).length !== HASH_BYTES) {
      throw new CheckpointRangeError(`leaf ${i} is ${(hashes[i] as Uint8Array).length} bytes, expected ${HASH_BYTES}`)
    }
  }
}

/** The tree's levels, leaves (padded) first, root last. */
function levelsOf(hashes: readonly Uint8Array[]): Uint8Array[][] {
  checkLeaves(hashes)
  const width = nextPowerOfTwo(hashes.length)
  let level: Uint8Array[] = hashes.slice()
  while (level.length < width) level.push(ZERO_HASH)
  const levels = [level]
  while (level.length > 1) {
    const up = new Array<Uint8Array>(level.length / 2)
    for (let i = 0; i < up.length; i++) up[i] = hashPair(level[2 * i] as Uint8Array, level[2 * i + 1] as Uint8Array)
    levels.push(up)
    level = up
  }
  return levels
}

/**
 * checkpointRoot returns the root of the block hashes of a range, in block order.
 * Throws CheckpointRangeError for an empty range, one over ROOT_RANGE_MAX_BLOCKS or a leaf that is
 * not 32 bytes.
 */
export function checkpointRoot(hashes: readonly Uint8Array[]): Uint8Array {
  const levels = levelsOf(hashes)
  return (levels[levels.length - 1] as Uint8Array[])[0] as Uint8Array
}

/**
 * blockProof returns the proof of hashes[index] against checkpointRoot(hashes): the siblings from
 * the leaf level up, concatenated (proofDepth(hashes.length) × 32 bytes; empty for one block).
 */
export function blockProof(hashes: readonly Uint8Array[], index: number): Uint8Array {
  if (!Number.isSafeInteger(index) || index < 0 || index >= hashes.length) {
    throw new CheckpointRangeError(`leaf index ${index} is outside the range of ${hashes.length} blocks`)
  }
  const levels = levelsOf(hashes)
  const proof = new Uint8Array((levels.length - 1) * HASH_BYTES)
  let at = index
  for (let d = 0; d < levels.length - 1; d++) {
    proof.set((levels[d] as Uint8Array[])[at ^ 1] as Uint8Array, d * HASH_BYTES)
    at >>= 1
  }
  return proof
}

/**
 * rootFromProof folds a leaf up its proof: the root the proof claims. Undefined when the proof is
 * not a whole number of hashes, is deeper than MAX_PROOF_DEPTH, or `index` does not fit its depth.
 */
export function rootFromProof(leaf: Uint8Array, index: number, proof: Uint8Array): Uint8Array | undefined {
  if (leaf.length !== HASH_BYTES || proof.length % HASH_BYTES !== 0) return undefined
  const depth = proof.length / HASH_BYTES
  if (depth > MAX_PROOF_DEPTH || !Number.isSafeInteger(index) || index < 0 || index >= 2 ** depth) return undefined
  let node = leaf
  let at = index
  for (let d = 0; d < depth; d++) {
    const sibling = proof.subarray(d * HASH_BYTES, (d + 1) * HASH_BYTES)
    node = at % 2 === 0 ? hashPair(node, sibling) : hashPair(sibling, node)
    at = Math.floor(at / 2)
  }
  return node
}

/**
 * verifyBlockProof tells whether `blockHash`, at `index` (= number − start) of a checkpoint's
 * range, is under `root` by `proof`. It checks what the base-chain vault checks: a well-formed
 * proof whose fold equals the root; the caller checks the index is inside [0, end − start].
 */
export function verifyBlockProof(root: Uint8Array, blockHash: Uint8Array, index: number, proof: Uint8Array): boolean {
  const claimed = rootFromProof(blockHash, index, proof)
  return claimed !== undefined && root.length === HASH_BYTES && Buffer.compare(claimed, root) === 0
}

/**
 * Checkpoints as the base chain holds them, and the interface through which the node's reads
 * (block proofs, exit payloads) learn of them. The checkpoint service (service*.ts) implements
 * CheckpointSource from the base chain's checkpoint contract; a node without one answers the
 * methods that need it with NoCheckpointServiceError.
 */

/**
 * CHILD_BLOCK_INTERVAL is the step between checkpoint ids (RootChain's header block ids:
 * 10,000, 20,000 …), so ids stay compatible with Polygon's numbering.
 */
export const CHILD_BLOCK_INTERVAL = 10_000n

/** A checkpoint committed on the base chain. */
export interface Checkpoint {
  /** The header block id: a multiple of CHILD_BLOCK_INTERVAL, the first one 10,000. */
  id: bigint
  /** First block of the range. */
  start: bigint
  /** Last block of the range (≥ start). */
  end: bigint
  /** checkpointRoot of the block hashes start..end (root.ts), 32 bytes. */
  root: Uint8Array
  /** The validator (signer address, 20 bytes) that submitted it. */
  proposer: Uint8Array
  /** The signers whose signatures the base chain accepted (20 bytes each, ascending). */
  signers: Uint8Array[]
  /** The base-chain transaction that committed it, when known. */
  baseTxHash?: Uint8Array
}

/** Where the node reads committed checkpoints from (the checkpoint service, over the base chain). */
export interface CheckpointSource {
  /** The committed checkpoint whose range holds block `n`; undefined when none does (yet). */
  checkpointOfBlock(n: bigint): Promise<Checkpoint | undefined>
  /** The committed checkpoint with header block id `id`; undefined when there is none. */
  checkpoint(id: bigint): Promise<Checkpoint | undefined>
  /** The last committed checkpoint; undefined before the first. */
  latest(): Promise<Checkpoint | undefined>
}

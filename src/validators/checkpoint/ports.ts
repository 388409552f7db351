/**
 * What the checkpoint service (service.ts) reads and calls: the base chain's CheckpointManager as
 * a view and a submitter (baseChain.ts implements it; tests fake it), the child chain as this
 * node's store and exec pool give it, and the service's timing parameters (`[checkpoint]` config).
 */
import type { Logger } from '../../log.js'
import type { ValidatorSet } from '../set.js'
import type { CheckpointStateStore } from './serviceState.js'

/** The contract as read at one moment. */
export interface ManagerView {
  /** Checkpoints stored (currentHeaderBlock / 10000). */
  count: bigint
  /** End of the last checkpoint (0 = none). */
  lastEnd: bigint
  /** Base-chain time (s) the last checkpoint was stored; undefined before the first. */
  lastCreatedAt: bigint | undefined
  /** The contract's validator set: ascending signers and their powers. */
  signers: Uint8Array[]
  powers: bigint[]
  total: bigint
}

/** Where the state of a submission stands. */
export type SubmissionStatus =
  | { state: 'mined'; ok: boolean; blockNumber: bigint }
  | { state: 'pending' }
  | { state: 'unknown' }

/** The base chain as the service uses it (baseChain.ts implements it; tests fake it). */
export interface CheckpointBase {
  read(): Promise<ManagerView>
  /** The base chain's head number. */
  head(): Promise<bigint>
  /**
   * Estimates and signs a submitCheckpoint transaction (nonce: the submitter's pending nonce);
   * throws BaseChainError('reverted') when it would revert.
   */
  prepare(data: Uint8Array, sigs: Uint8Array): Promise<{ raw: Uint8Array; hash: Uint8Array; nonce: bigint }>
  send(raw: Uint8Array): Promise<void>
  status(txHash: Uint8Array): Promise<SubmissionStatus>
}

/** The child chain as the service reads it. */
export interface ChildChain {
  head(): bigint
  /** Canonical hash of block n; undefined past the head. */
  hashOf(n: bigint): Uint8Array | undefined
  /** Timestamp (s) of block n. */
  timeOf(n: bigint): bigint | undefined
  /** The DAO's validator set at a block (exec pool). */
  daoSetAt(blockHash: Uint8Array): Promise<ValidatorSet>
}

export interface CheckpointParams {
  intervalMs: number
  maxBlocks: number
  baseConfirmations: number
  graceMs: number
  proposerTimeoutMs: number
  pollIntervalMs: number
}

export interface CheckpointServiceOptions {
  childChainId: bigint
  baseChainId: bigint
  manager: Uint8Array
  params: CheckpointParams
  base: CheckpointBase
  chain: ChildChain
  signer: { key: Uint8Array; address: Uint8Array }
  broadcast(wire: Uint8Array): void
  store: CheckpointStateStore
  log: Logger
  now?: () => number
}

/** The proposal being voted, for validators_getCheckpointProposal. */
export interface ProposalView {
  proposer: Uint8Array
  start: bigint
  end: bigint
  root: Uint8Array
  newSigners: Uint8Array[]
  newPowers: bigint[]
  signers: Uint8Array[]
  signedPower: bigint
  totalPower: bigint
  quorum: boolean
  /** Ours and submitted (the transaction's hash), if so. */
  submitted: string | undefined
}

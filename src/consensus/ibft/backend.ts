/**
 * What the IBFT engine (engine.ts) needs from the node, and what it hands back: the backend builds,
 * verifies and inserts blocks and carries messages; the engine only decides.
 */
import type { Logger } from '../../log.js'
import type { HeightContext } from './certificates.js'
import type { Signer } from './messages.js'
import type { IbftStateStore } from './persist.js'

/** A block decided by a quorum: what the backend inserts. */
export interface Finalized {
  height: bigint
  /** The round whose COMMITs decided it (written into extraData). */
  round: bigint
  digest: Uint8Array
  /** The block as proposed (proposer-sealed RLP). */
  proposal: Uint8Array
  /** Committed seals of a quorum of distinct validators, in validator order. */
  committedSeals: Uint8Array[]
}

/** What the engine needs from the node. */
export interface IbftBackend {
  /** Validator set and last proposer deciding `height`; undefined when its parent is unknown. */
  context(height: bigint): HeightContext | undefined
  /** Earliest wall-clock time (ms) to propose round 0 of `height` (parent time + block time). */
  proposeAtMs(height: bigint): number
  /** Builds a new block for (height, round), proposer-sealed; undefined when it cannot. */
  buildProposal(height: bigint, round: bigint): Promise<Uint8Array | undefined>
  /**
   * Verifies a proposed block: header rules, execution, roots; `proposer` (lowercase hex) is who
   * must have made the proposer seal, undefined for a re-proposal of a prepared block.
   */
  verifyProposal(height: bigint, round: bigint, proposal: Uint8Array, proposer: string | undefined): Promise<boolean>
  /** Inserts a decided block; the node then calls onNewHead. */
  finalize(block: Finalized): Promise<void>
  /** Sends wire bytes to every other validator. */
  broadcast(wire: Uint8Array): void
}

export interface EngineTimers {
  now(): number
  set(fn: () => void, ms: number): unknown
  clear(handle: unknown): void
}

/** setTimeout and Date.now. */
export const REAL_TIMERS: EngineTimers = {
  now: Date.now,
  set: (fn, ms) => setTimeout(fn, ms),
  clear: (h) => clearTimeout(h as NodeJS.Timeout),
}

export interface EngineOptions {
  /** This validator's key and address. */
  signer: Signer
  backend: IbftBackend
  /** Round r times out after roundTimeoutBaseMs · 2^r + blockTimeMs. */
  roundTimeoutBaseMs: number
  blockTimeMs: number
  timers?: EngineTimers
  log?: Logger
  /** Where votes are saved before they are sent and found again after a restart (persist.ts); none: kept in memory only. */
  stateStore?: IbftStateStore
}

export type EngineState = 'idle' | 'new-round' | 'prepare' | 'commit' | 'final'

/** A logger that drops everything (the engine's default). */
export const NO_LOG: Logger = { debug() {}, info() {}, warn() {}, error() {} }

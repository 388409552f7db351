/**
 * Errors of the checkpoint service's base-chain half: talking to the base chain, and checking a
 * checkpoint vote. Each carries a machine-readable `reason` for logs and tests.
 */
import { ValidatorLayerError } from '../errors.js'

/** Why the base chain could not answer what the node asked. */
export type BaseChainErrorReason =
  | 'unreachable' // connection refused, timeout, HTTP error
  | 'rpc-error' // the node answered a JSON-RPC error
  | 'reverted' // a view call or gas estimate reverted
  | 'bad-answer' // an answer that does not decode as the contract's ABI
  | 'wrong-chain' // eth_chainId differs from [checkpoint] base_chain_id
  | 'not-deployed' // no code at the manager address

/** BaseChainError: a base-chain read or send failed; the service retries later, never blocks. */
export class BaseChainError extends ValidatorLayerError {
  override name = 'BaseChainError'
  readonly reason: BaseChainErrorReason
  /** Revert data, for 'reverted'. */
  readonly data: string | undefined
  constructor(reason: BaseChainErrorReason, details: string, opts: { cause?: unknown; data?: string } = {}) {
    super(`base chain: ${reason}`, { details, cause: opts.cause })
    this.reason = reason
    this.data = opts.data
  }
}

/** Why a checkpoint vote from a peer is not counted (the vote is dropped, never signed). */
export type CheckpointVoteErrorReason =
  | 'malformed' // not a checkpoint vote as encoded by vote.ts
  | 'bad-signature' // length, v, high s, or it does not recover
  | 'not-a-signer' // recovers to an address outside the contract's current set
  | 'not-continuous' // start is not the contract's last end + 1
  | 'too-long' // more than max_blocks blocks, or end before start
  | 'ahead' // end beyond our head (we cannot check it yet)
  | 'wrong-root' // the root is not the one our chain gives
  | 'wrong-set' // the set change is not the DAO's set at the end block (or there should be none)
  | 'wrong-proposer' // the proposer is not in turn

/** CheckpointVoteError: a vote or proposal that is not signed nor counted. */
export class CheckpointVoteError extends ValidatorLayerError {
  override name = 'CheckpointVoteError'
  readonly reason: CheckpointVoteErrorReason
  constructor(reason: CheckpointVoteErrorReason, details: string) {
    super(`checkpoint vote refused (${reason})`, { details })
    this.reason = reason
  }
}

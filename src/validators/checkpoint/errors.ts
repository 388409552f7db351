/**
 * Errors of checkpoint roots, block proofs and exit payloads. Each is an IbexError whose `kind`
 * src/rpc/errors.ts maps to a JSON-RPC code; the sentence is what a client reads.
 */
import { IbexError } from '../../util/errors.js'

/** A range or leaf index the checkpoint tree cannot be built for (empty, too long, index outside). */
export class CheckpointRangeError extends IbexError {
  readonly kind = 'checkpointRange'
}

/** validators_getExitPayload of a transaction the chain does not hold. */
export class ExitUnknownTxError extends IbexError {
  readonly kind = 'exitUnknownTx'
  constructor(readonly txHash: string) {
    super('transaction not found')
  }
}

/** The log index names no log of the transaction. */
export class ExitLogIndexError extends IbexError {
  readonly kind = 'exitLogIndex'
  constructor(
    readonly logIndex: bigint,
    readonly scope: 'block' | 'receipt',
    readonly count: number,
  ) {
    super(
      scope === 'block'
        ? `log index ${logIndex} is not a log of this transaction (block log index)`
        : `log index ${logIndex} out of range: the receipt has ${count} logs`,
    )
  }
}

/** The named log is not a burn the exit vault pays out (burn.ts). */
export class NotABurnError extends IbexError {
  readonly kind = 'notABurn'
  constructor(readonly logIndex: number) {
    super(`log ${logIndex} of the receipt is not a burn (an ERC-20 Transfer to the zero address)`)
  }
}

/** The block is not inside a checkpoint committed on the base chain (yet). */
export class NotCheckpointedError extends IbexError {
  readonly kind = 'notCheckpointed'
  constructor(
    readonly blockNumber: bigint,
    readonly lastEnd: bigint | undefined,
  ) {
    super(
      lastEnd === undefined
        ? `block ${blockNumber} is not checkpointed yet (no checkpoint on the base chain)`
        : `block ${blockNumber} is not checkpointed yet (the last checkpoint ends at block ${lastEnd})`,
    )
  }
}

/** The local chain lacks a block of a checkpoint's range (the node is behind the checkpoint). */
export class CheckpointBlockMissingError extends IbexError {
  readonly kind = 'checkpointBlockMissing'
  constructor(readonly blockNumber: bigint) {
    super(`block ${blockNumber} of the checkpoint is not in the local chain`)
  }
}

/** A checkpoint's root is not the root of the local chain's blocks: this node follows another chain. */
export class CheckpointRootMismatchError extends IbexError {
  readonly kind = 'checkpointRootMismatch'
  constructor(readonly checkpointId: bigint) {
    super(`checkpoint ${checkpointId} does not match the local chain (root differs)`)
  }
}

/** The block's stored receipts do not rebuild its header's receiptsRoot: the node's data is damaged. */
export class ReceiptsRootMismatchError extends IbexError {
  readonly kind = 'receiptsRootMismatch'
  constructor(readonly blockNumber: bigint) {
    super(`receipts of block ${blockNumber} do not match its receiptsRoot`)
  }
}

/** The node runs no checkpoint service, so it cannot tell which checkpoint holds a block. */
export class NoCheckpointServiceError extends IbexError {
  readonly kind = 'noCheckpointService'
  constructor() {
    super('no checkpoint service is configured on this node')
  }
}

/** Every error src/validators/checkpoint raises on purpose. */
export type CheckpointError =
  | CheckpointRangeError
  | ExitUnknownTxError
  | ExitLogIndexError
  | NotABurnError
  | NotCheckpointedError
  | CheckpointBlockMissingError
  | CheckpointRootMismatchError
  | ReceiptsRootMismatchError
  | NoCheckpointServiceError

/**
 * Transaction admission errors, with geth's messages (core/txpool, core/txpool/legacypool and
 * core/error.go). Each names its kind and carries its facts; src/rpc/errors.ts gives them their
 * JSON-RPC code (all -32000, as in geth). The fee-cap errors are the execution ones
 * (FeeCapTooLowError, TipAboveFeeCapError in src/evm/errors.ts): one sentence, one class.
 */
import { FeeCapTooLowError, TipAboveFeeCapError } from '../evm/errors.js'
import { IbexError } from '../util/errors.js'

/** The pool (or the chain) already holds this transaction. */
export class AlreadyKnownError extends IbexError {
  readonly kind = 'alreadyKnown'
  constructor() {
    super('already known')
  }
}

export class NonceTooLowError extends IbexError {
  readonly kind = 'nonceTooLow'
  constructor(
    /** The sender's next nonce. */
    readonly next: bigint,
    /** The transaction's nonce. */
    readonly nonce: bigint,
  ) {
    super(`nonce too low: next nonce ${next}, tx nonce ${nonce}`)
  }
}

/** The balance does not cover gas × fee cap + value (`queued`: what the sender's pooled transactions already spend). */
export class TxInsufficientFundsError extends IbexError {
  readonly kind = 'txInsufficientFunds'
  constructor(
    readonly balance: bigint,
    readonly cost: bigint,
    readonly queued?: bigint,
    /** The replaced transaction's cost is raised by this much (a pending replacement). */
    readonly bumped?: bigint,
  ) {
    super(
      queued === undefined
        ? `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`
        : bumped === undefined
          ? `insufficient funds for gas * price + value: balance ${balance}, queued cost ${queued}, tx cost ${cost}, overshot ${queued + cost - balance}`
          : `insufficient funds for gas * price + value: balance ${balance}, queued cost ${queued}, tx bumped ${bumped}, overshot ${queued + bumped - balance}`,
    )
  }
}

export class TxIntrinsicGasError extends IbexError {
  readonly kind = 'txIntrinsicGas'
  constructor(
    readonly gas: bigint,
    readonly needed: bigint,
  ) {
    super(`intrinsic gas too low: gas ${gas}, minimum needed ${needed}`)
  }
}

/** EIP-7623: the gas does not cover the calldata floor. */
export class FloorDataGasError extends IbexError {
  readonly kind = 'floorDataGas'
  constructor(
    readonly gas: bigint,
    readonly needed: bigint,
  ) {
    super(`insufficient gas for floor data gas cost: gas ${gas}, minimum needed ${needed}`)
  }
}

export class ExceedsBlockGasLimitError extends IbexError {
  readonly kind = 'exceedsBlockGasLimit'
  constructor() {
    super('exceeds block gas limit')
  }
}

/** The tip is below the node's minimum (`txpool.pricelimit`). */
export class TipBelowMinimumError extends IbexError {
  readonly kind = 'tipBelowMinimum'
  constructor(
    readonly tip: bigint,
    readonly minimum: bigint,
  ) {
    super(`transaction underpriced: gas tip cap ${tip}, minimum needed ${minimum}`)
  }
}

/** The signature does not recover. */
export class InvalidSenderError extends IbexError {
  readonly kind = 'invalidSender'
  constructor() {
    super('invalid sender')
  }
}

export class InvalidChainIdError extends IbexError {
  readonly kind = 'invalidChainId'
  constructor(
    readonly have: bigint,
    readonly want: bigint,
  ) {
    super(`invalid sender: invalid chain id for signer: have ${have} want ${want}`)
  }
}

/** A pre-EIP-155 transaction, refused over RPC. */
export class UnprotectedTxError extends IbexError {
  readonly kind = 'unprotectedTx'
  constructor() {
    super('only replay-protected (EIP-155) transactions allowed over RPC')
  }
}

export class TxTypeNotSupportedError extends IbexError {
  readonly kind = 'txTypeNotSupported'
  constructor() {
    super('transaction type not supported')
  }
}

export class OversizedTxError extends IbexError {
  readonly kind = 'oversizedTx'
  constructor(
    readonly size: number,
    readonly limit: number,
  ) {
    super(`oversized data: transaction size ${size}, limit ${limit}`)
  }
}

export class NegativeValueError extends IbexError {
  readonly kind = 'negativeValue'
  constructor() {
    super('negative value')
  }
}

export class EmptyAuthListError extends IbexError {
  readonly kind = 'emptyAuthList'
  constructor() {
    super('EIP-7702 transaction with empty auth list')
  }
}

export class SetCodeCreateError extends IbexError {
  readonly kind = 'setCodeCreate'
  constructor() {
    super('EIP-7702 transaction cannot be used to create contract')
  }
}

/**
 * The raw bytes are not a transaction. `reason` is our sentence (geth's where it has one); the
 * decoder's own text goes to `details`, never to the client.
 */
export class TxDecodeError extends IbexError {
  readonly kind = 'txDecode'
  constructor(
    readonly reason: string,
    cause?: unknown,
  ) {
    super(reason, { cause, details: cause instanceof Error ? cause.message : undefined })
  }
}

export class PoolFullError extends IbexError {
  readonly kind = 'poolFull'
  constructor() {
    super('txpool is full')
  }
}

/** The pool is full and the transaction pays no more than the cheapest one it would evict. */
export class UnderpricedError extends IbexError {
  readonly kind = 'underpriced'
  constructor() {
    super('transaction underpriced')
  }
}

export class ReplaceUnderpricedError extends IbexError {
  readonly kind = 'replaceUnderpriced'
  constructor() {
    super('replacement transaction underpriced')
  }
}

export class FutureReplacePendingError extends IbexError {
  readonly kind = 'futureReplacePending'
  constructor() {
    super('future transaction tries to replace pending')
  }
}

export class AccountLimitError extends IbexError {
  readonly kind = 'accountLimit'
  constructor(readonly pooled: number) {
    super(`account limit exceeded: pooled ${pooled} txs`)
  }
}

/** Every admission error (src/rpc/errors.ts maps each kind). */
export type TxPoolError =
  | AlreadyKnownError
  | NonceTooLowError
  | TxInsufficientFundsError
  | TxIntrinsicGasError
  | FloorDataGasError
  | ExceedsBlockGasLimitError
  | TipBelowMinimumError
  | FeeCapTooLowError
  | TipAboveFeeCapError
  | InvalidSenderError
  | InvalidChainIdError
  | UnprotectedTxError
  | TxTypeNotSupportedError
  | OversizedTxError
  | NegativeValueError
  | EmptyAuthListError
  | SetCodeCreateError
  | TxDecodeError
  | PoolFullError
  | UnderpricedError
  | ReplaceUnderpricedError
  | FutureReplacePendingError
  | AccountLimitError

/** Builders, as validate.ts and pool.ts call them. */
export const txErrors = {
  alreadyKnown: () => new AlreadyKnownError(),
  nonceTooLow: (next: bigint, nonce: bigint) => new NonceTooLowError(next, nonce),
  insufficientFunds: (balance: bigint, cost: bigint) => new TxInsufficientFundsError(balance, cost),
  intrinsicGas: (gas: bigint, needed: bigint) => new TxIntrinsicGasError(gas, needed),
  floorDataGas: (gas: bigint, needed: bigint) => new FloorDataGasError(gas, needed),
  gasLimit: () => new ExceedsBlockGasLimitError(),
  underpriced: (tip: bigint, min: bigint) => new TipBelowMinimumError(tip, min),
  feeCapTooLow: (address: string, feeCap: bigint, baseFee: bigint) => new FeeCapTooLowError(address, feeCap, baseFee),
  tipAboveFeeCap: () => new TipAboveFeeCapError(),
  invalidSender: () => new InvalidSenderError(),
  invalidChainId: (have: bigint, want: bigint) => new InvalidChainIdError(have, want),
  unprotected: () => new UnprotectedTxError(),
  typeNotSupported: () => new TxTypeNotSupportedError(),
  oversized: (size: number, max: number) => new OversizedTxError(size, max),
  negativeValue: () => new NegativeValueError(),
  emptyAuthList: () => new EmptyAuthListError(),
  createSetCode: () => new SetCodeCreateError(),
  decode: (reason: string, cause?: unknown) => new TxDecodeError(reason, cause),
  poolFull: () => new PoolFullError(),
  underpricedFull: () => new UnderpricedError(),
  replaceUnderpriced: () => new ReplaceUnderpricedError(),
  futureReplacePending: () => new FutureReplacePendingError(),
  accountLimit: (pooled: number) => new AccountLimitError(pooled),
  /** The sender's pending transactions plus this one cost more than the balance. */
  queuedCost: (balance: bigint, spent: bigint, cost: bigint) => new TxInsufficientFundsError(balance, cost, spent),
  /** A pending replacement raises the sender's pending cost above the balance. */
  bumpedCost: (balance: bigint, spent: bigint, bump: bigint) => new TxInsufficientFundsError(balance, 0n, spent, bump),
}

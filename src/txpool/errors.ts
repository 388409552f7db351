/**
 * Transaction admission errors, with geth's messages (core/txpool and core/error.go). All
 * are JSON-RPC -32000 server errors on the wire (mapped in src/rpc/errors.ts via `code`).
 */
export class TxPoolError extends Error {
  readonly code = -32000
  constructor(message: string) {
    super(message)
    this.name = 'TxPoolError'
  }
}

export const txErrors = {
  alreadyKnown: () => new TxPoolError('already known'),
  nonceTooLow: (next: bigint, nonce: bigint) => new TxPoolError(`nonce too low: next nonce ${next}, tx nonce ${nonce}`),
  insufficientFunds: (balance: bigint, cost: bigint) =>
    new TxPoolError(
      `insufficient funds for gas * price + value: balance ${balance}, tx cost ${cost}, overshot ${cost - balance}`,
    ),
  intrinsicGas: (gas: bigint, needed: bigint) =>
    new TxPoolError(`intrinsic gas too low: gas ${gas}, minimum needed ${needed}`),
  gasLimit: () => new TxPoolError('exceeds block gas limit'),
  underpriced: (tip: bigint, min: bigint) =>
    new TxPoolError(`transaction underpriced: gas tip cap ${tip}, minimum needed ${min}`),
  feeCapTooLow: (address: string, feeCap: bigint, baseFee: bigint) =>
    new TxPoolError(
      `max fee per gas less than block base fee: address ${address}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`,
    ),
  tipAboveFeeCap: () => new TxPoolError('max priority fee per gas higher than max fee per gas'),
  invalidSender: () => new TxPoolError('invalid sender'),
  invalidChainId: (have: bigint, want: bigint) =>
    new TxPoolError(`invalid sender: invalid chain id for signer: have ${have} want ${want}`),
  unprotected: () => new TxPoolError('only replay-protected (EIP-155) transactions allowed over RPC'),
  typeNotSupported: () => new TxPoolError('transaction type not supported'),
  oversized: (size: number, max: number) => new TxPoolError(`oversized data: transaction size ${size}, limit ${max}`),
  negativeValue: () => new TxPoolError('negative value'),
  emptyAuthList: () => new TxPoolError('EIP-7702 transaction with empty auth list'),
  createSetCode: () => new TxPoolError('EIP-7702 transaction cannot be used to create contract'),
  decode: (detail: string) => new TxPoolError(detail),
  poolFull: () => new TxPoolError('txpool is full'),
  /** The pool is full and the transaction pays no more than the cheapest one it would evict. */
  underpricedFull: () => new TxPoolError('transaction underpriced'),
  replaceUnderpriced: () => new TxPoolError('replacement transaction underpriced'),
  futureReplacePending: () => new TxPoolError('future transaction tries to replace pending'),
  accountLimit: (pooled: number) => new TxPoolError(`account limit exceeded: pooled ${pooled} txs`),
  /** The sender's pending transactions plus this one cost more than the balance. */
  queuedCost: (balance: bigint, spent: bigint, cost: bigint) =>
    new TxPoolError(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${spent + cost - balance}`,
    ),
  /** A pending replacement raises the sender's pending cost above the balance. */
  bumpedCost: (balance: bigint, spent: bigint, bump: bigint) =>
    new TxPoolError(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx bumped ${bump}, overshot ${spent + bump - balance}`,
    ),
}

/**
 * Errors of executing a message (eth_call, eth_estimateGas, eth_createAccessList,
 * debug_traceCall), worded as geth words them (core/error.go, core/state_transition.go,
 * core/vm/errors.go, internal/ethapi). Each names its kind and carries its facts; the JSON-RPC
 * code is chosen in src/rpc/errors.ts, nowhere here.
 *
 * ethereumjs throws plain Errors with its own text. That text never reaches a client: a message
 * is checked before ethereumjs sees it (message.ts precheckError, geth's preCheck order), and
 * whatever ethereumjs still throws goes through classifyEvmError, the one place that
 * reads its wording, which answers one of these errors or an EngineError (-32603, text in
 * `details` for the log).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { toChecksumAddress } from '@ethereumjs/util'
import { IbexError } from '../util/errors.js'

/** Every kind an execution error can have (src/rpc/errors.ts maps each to a code). */
export type ExecErrorKind = ExecError['kind']

/** The call reverted; `data` is the revert payload (code 3 with data, or -32000 without). */
export class ExecutionRevertedError extends IbexError {
  readonly kind = 'reverted'
  readonly data: Uint8Array
  constructor(data: Uint8Array) {
    super('execution reverted')
    this.data = data
  }
}

/**
 * The message failed in the EVM (out of gas, invalid opcode …) or was stopped (timeout): the
 * message is geth's text for it (gethVmError, timeoutMessage), never an engine's.
 */
export class ExecutionError extends IbexError {
  readonly kind = 'execution'
}

/** Balances and costs are uint256 in geth: a cost at or past this overflows its buyGas. */
const UINT256_LIMIT = 1n << 256n

/**
 * geth's ErrInsufficientFunds for a call: the sender cannot pay gas × price + value. A cost that
 * does not fit 256 bits is worded as geth's overflow check words it.
 */
export class InsufficientFundsError extends IbexError {
  readonly kind = 'insufficientFunds'
  constructor(
    readonly address: string,
    readonly balance: bigint,
    readonly cost: bigint,
  ) {
    super(
      cost >= UINT256_LIMIT
        ? `insufficient funds for gas * price + value: address ${address} required balance exceeds 256 bits`
        : `insufficient funds for gas * price + value: address ${address} have ${balance} want ${cost}`,
    )
  }
}

/**
 * geth's CallDefaults refusal of a message with both fee styles (`gasPrice` and a 1559 fee):
 * raised before the message runs, unwrapped by every call method; -32000 as any execution error.
 */
export class FeeStylesConflictError extends ExecutionError {
  constructor() {
    super('both gasPrice and (maxFeePerGas or maxPriorityFeePerGas) specified')
  }
}

/** geth's CallDefaults refusal of a `chainId` other than the node's (bare -32000 on every call method). */
export class ChainIdMismatchError extends ExecutionError {
  constructor(
    readonly have: bigint,
    readonly want: bigint,
  ) {
    super(`chainId does not match node's (have=${have}, want=${want})`)
  }
}

/**
 * A rule of geth's preCheck that a message breaks, in geth's words: blob fields (a creation, no
 * hashes, a hash of another version, a blob fee cap below the blob base fee), an authorization
 * list (a creation, an empty list), init code over EIP-3860's limit. -32000 as any execution error.
 */
export class MessageRuleError extends ExecutionError {}

/** geth's ErrInsufficientFundsForTransfer (eth_estimateGas: the value alone exceeds the balance). */
export class InsufficientFundsForTransferError extends IbexError {
  readonly kind = 'insufficientFundsForTransfer'
  constructor() {
    super('insufficient funds for transfer')
  }
}

/** geth's ErrIntrinsicGas: the gas does not cover the message's intrinsic cost. */
export class IntrinsicGasError extends IbexError {
  readonly kind = 'intrinsicGas'
  constructor(
    readonly gas: bigint,
    readonly intrinsic: bigint,
  ) {
    super(`intrinsic gas too low: have ${gas}, want ${intrinsic}`)
  }
}

/** geth's ErrFloorDataGas (EIP-7623): the gas covers the intrinsic cost but not the calldata floor. */
export class FloorDataGasError extends IbexError {
  readonly kind = 'messageFloorDataGas'
  constructor(
    readonly gas: bigint,
    readonly floor: bigint,
  ) {
    super(`insufficient gas for floor data gas cost: have ${gas}, want ${floor}`)
  }
}

/** geth's ErrFeeCapTooLow: the fee cap is below the block's base fee (calls and the transaction pool). */
export class FeeCapTooLowError extends IbexError {
  readonly kind = 'feeCapTooLow'
  constructor(
    readonly address: string,
    readonly feeCap: bigint,
    readonly baseFee: bigint,
  ) {
    super(`max fee per gas less than block base fee: address ${address}, maxFeePerGas: ${feeCap}, baseFee: ${baseFee}`)
  }
}

/**
 * geth's ErrTipAboveFeeCap: maxPriorityFeePerGas above maxFeePerGas. A message names its sender
 * and both fees (state_transition.go); the transaction pool says the bare sentence (no `address`).
 */
export class TipAboveFeeCapError extends IbexError {
  readonly kind = 'tipAboveFeeCap'
  constructor(
    readonly address?: string,
    readonly tipCap?: bigint,
    readonly feeCap?: bigint,
  ) {
    super(
      address === undefined
        ? 'max priority fee per gas higher than max fee per gas'
        : `max priority fee per gas higher than max fee per gas: address ${address}, maxPriorityFeePerGas: ${tipCap}, maxFeePerGas: ${feeCap}`,
    )
  }
}

/** eth_estimateGas: the message fails even with all the gas it may have. */
export class GasAllowanceExceededError extends IbexError {
  readonly kind = 'gasAllowanceExceeded'
  constructor(readonly allowance: bigint) {
    super(`gas required exceeds allowance (${allowance})`)
  }
}

/** ethereumjs failed in a way we do not recognise: -32603, its text only in `details`. */
export class EngineError extends IbexError {
  readonly kind = 'engine'
  constructor(cause: unknown) {
    super('internal error: the EVM failed to run this message', { details: messageOf(cause), cause })
  }
}

export type ExecError =
  | ExecutionRevertedError
  | ExecutionError
  | InsufficientFundsError
  | InsufficientFundsForTransferError
  | IntrinsicGasError
  | FloorDataGasError
  | FeeCapTooLowError
  | TipAboveFeeCapError
  | GasAllowanceExceededError
  | EngineError

/** The execution errors' classes, for reviving them after a worker hop (tasks.ts). */
export const EXEC_ERRORS = [
  ExecutionRevertedError,
  ExecutionError,
  FeeStylesConflictError,
  ChainIdMismatchError,
  MessageRuleError,
  InsufficientFundsError,
  InsufficientFundsForTransferError,
  IntrinsicGasError,
  FloorDataGasError,
  FeeCapTooLowError,
  TipAboveFeeCapError,
  GasAllowanceExceededError,
  EngineError,
] as const

/**
 * True for what geth's core.ApplyMessage refuses before the message runs (preCheck, buyGas, the
 * intrinsic gas and EIP-7623 floor checks): the errors each call method wraps in its own words
 * (eth_call `err: <why> (supplied gas N)`, debug_traceCall `tracing failed: <why>` …).
 */
export function isMessageRefusal(err: unknown): err is IbexError {
  return (
    err instanceof TipAboveFeeCapError ||
    err instanceof FeeCapTooLowError ||
    err instanceof InsufficientFundsError ||
    err instanceof IntrinsicGasError ||
    err instanceof FloorDataGasError ||
    err instanceof MessageRuleError
  )
}

/** A sender as geth prints it (common.Address.Hex(): EIP-55 checksummed). */
export function senderText(from: Uint8Array | undefined): string {
  if (from === undefined) return '0x0000000000000000000000000000000000000000'
  return toChecksumAddress(`0x${Buffer.from(from).toString('hex')}`)
}

/** The fee fields of a message, as eth_call takes them. */
export interface MessageFees {
  from?: Uint8Array
  gasPrice?: bigint
  maxFeePerGas?: bigint
  maxPriorityFeePerGas?: bigint
}

/** geth's CallDefaults check: `gasPrice` together with a 1559 fee field. */
export function feeStylesError(msg: MessageFees): FeeStylesConflictError | undefined {
  const conflict =
    msg.gasPrice !== undefined && (msg.maxFeePerGas !== undefined || msg.maxPriorityFeePerGas !== undefined)
  return conflict ? new FeeStylesConflictError() : undefined
}

/** What the caller knew when ethereumjs threw: the facts our errors need. */
export interface EvmFailureContext extends MessageFees {
  gas: bigint
  baseFee: bigint | undefined
  /** The message's intrinsic gas (asked only when ethereumjs complained about it). */
  intrinsicGas: () => bigint
}

/**
 * classifyEvmError: an error thrown out of ethereumjs (runTx, createTx, runCall) as one of ours.
 * The one place that reads ethereumjs' wording; unknown text becomes an EngineError (-32603)
 * instead of reaching the client.
 */
export function classifyEvmError(err: unknown, ctx: EvmFailureContext): IbexError {
  if (err instanceof IbexError) return err
  const text = messageOf(err)
  if (/gasLimit is too low|intrinsic/i.test(text)) {
    // ethereumjs says the same for EIP-7623's calldata floor, naming the floor as the minimum
    const intrinsic = ctx.intrinsicGas()
    const floor = /minimum gas limit of (\d+)/.exec(text)
    if (ctx.gas >= intrinsic && floor !== null) return new FloorDataGasError(ctx.gas, BigInt(floor[1] as string))
    return new IntrinsicGasError(ctx.gas, intrinsic)
  }
  if (/maxFeePerGas cannot be less than maxPriorityFeePerGas/.test(text)) {
    const feeCap = ctx.maxFeePerGas ?? ctx.maxPriorityFeePerGas ?? 0n
    return new TipAboveFeeCapError(senderText(ctx.from), ctx.maxPriorityFeePerGas ?? 0n, feeCap)
  }
  const low = /maxFeePerGas \((\d+)\) is less than the block's baseFeePerGas \((\d+)\)/.exec(text)
  if (low !== null)
    return new FeeCapTooLowError(senderText(ctx.from), BigInt(low[1] as string), BigInt(low[2] as string))
  return new EngineError(err)
}

/** classifyEvmError for a failure of runTx on `tx` (the facts read from the transaction). */
export function classifyTxError(err: unknown, tx: TypedTransaction, baseFee: bigint | undefined): IbexError {
  const fees = tx as Partial<Record<'gasPrice' | 'maxFeePerGas' | 'maxPriorityFeePerGas', bigint>>
  return classifyEvmError(err, {
    from: tx.getSenderAddress().bytes,
    gasPrice: fees.gasPrice,
    maxFeePerGas: fees.maxFeePerGas,
    maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
    gas: tx.gasLimit,
    baseFee,
    intrinsicGas: () => tx.getIntrinsicGas(),
  })
}

// ---------------------------------------------------------------------------------------------
// EVM failures: ethereumjs' EVMError strings (a closed list) as geth's core/vm/errors.go words them

const GETH_VM_ERRORS: Record<string, string> = {
  'out of gas': 'out of gas',
  'code store out of gas': 'contract creation code storage out of gas',
  'code size to deposit exceeds maximum code size': 'max code size exceeded',
  'stack underflow': 'stack underflow',
  'stack overflow': 'stack limit reached 1024 (1023)',
  'invalid JUMP': 'invalid jump destination',
  'invalid opcode': 'invalid opcode',
  'value out of range': 'return data out of bounds',
  'static state change': 'write protection',
  'create collision': 'contract address collision',
  'insufficient balance': 'insufficient balance for transfer',
  'initcode exceeds max initcode size': 'max initcode size exceeded',
  'invalid EOF format': 'invalid code: must not begin with 0xef',
  'invalid bytecode deployed': 'invalid code: must not begin with 0xef',
  // precompile input failures, as geth's precompiles word them (core/vm/contracts.go)
  'invalid input length': 'invalid input length',
  'kzg commitment does not match versioned hash': 'mismatched versioned hash',
  'kzg proof invalid': 'error verifying kzg proof',
}

/** What a VM failure we have no geth text for answers (no engine wording leaves the node). */
export const UNKNOWN_VM_ERROR = 'execution failed'

/** geth's message for an ethereumjs EVM error string. */
export function gethVmError(ethereumjsError: string): string {
  // ethereumjs appends the code hash, address and pc: "invalid JUMP at 0x…/0x…:12"
  if (ethereumjsError.startsWith('invalid JUMP')) return 'invalid jump destination'
  return GETH_VM_ERRORS[ethereumjsError] ?? UNKNOWN_VM_ERROR
}

function messageOf(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

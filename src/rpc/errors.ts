/**
 * The one mapping from errors to JSON-RPC error objects, and the errors only the RPC layer raises.
 *
 * Modules below rpc/ raise IbexErrors (src/util/errors.ts) that name their `kind` and carry
 * their facts and geth's sentence, and know no JSON-RPC code. CODE_OF_KIND below gives each kind
 * its code — a Record over every kind, so a new kind without a code does not compile (reth's
 * exhaustive `From<EthApiError> for ErrorObject`). The RPC layer's own errors (RpcError and its
 * subclasses: params, methods, limits) carry their code themselves, in this file only.
 *
 *   throw ─▶ toJsonRpcError ─┬─ RpcError ─────────▶ {code, shortMessage, data}
 *                            ├─ IbexError{kind} ──▶ {CODE_OF_KIND[kind], shortMessage, data of the kind}
 *                            └─ anything else ────▶ {-32603, INTERNAL_ERROR_MESSAGE} (a bug: no text, no stack)
 *
 * What always holds: the message a client reads is a `shortMessage` written by us (geth's words),
 * never an engine's text, a stack or `details`.
 */
import type { DevChainError } from '../consensus/devControl.js'
import type { ExecutionLayerError } from '../exec/pool/errors.js'
import type { FilterError } from '../filters/errors.js'
import type { TxPoolError } from '../txpool/errors.js'
import type { CheckpointError } from '../validators/checkpoint/errors.js'
import { IbexError, type IbexErrorOptions } from '../util/errors.js'
import { toData } from '../util/hex.js'
import { decodeRevertReason } from '../util/revert.js'

export interface RpcErrorOptions extends IbexErrorOptions {
  /** The error object's `data` member: a 0x hex string or any JSON value. Omitted when undefined. */
  data?: unknown
}

/** Wire codes, as geth and EIP-1474 use them. */
export const ERROR_CODE = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
  /** geth's errcodeResponseTooLarge. */
  responseTooLarge: -32003,
  limitExceeded: -32005,
  /** geth's errCodeClientLimitExceeded (eth_getStorageValues, eth_simulateV1 block count). */
  clientLimitExceeded: -38026,
  /** A call's own VM failure inside an eth_simulateV1 result. */
  simVmError: -32015,
  revert: 3,
} as const

/** Message sent for errors that are not ours (geth says this when a handler panics). */
export const INTERNAL_ERROR_MESSAGE = 'method handler crashed'

// ---------------------------------------------------------------------------------------------
// Module errors: kind -> code

/** Every error a module below rpc/ raises on purpose. */
export type ModuleError = TxPoolError | FilterError | ExecutionLayerError | DevChainError | CheckpointError

export type ErrorKind = ModuleError['kind']

const SERVER = ERROR_CODE.server
const INVALID_PARAMS = ERROR_CODE.invalidParams

/** The JSON-RPC code of every kind: geth's where geth has the error, reth's for the limits it has. */
const CODE_OF_KIND: Record<ErrorKind, number> = {
  // transaction admission (geth: every pool error is a plain -32000)
  alreadyKnown: SERVER,
  nonceTooLow: SERVER,
  txInsufficientFunds: SERVER,
  txIntrinsicGas: SERVER,
  floorDataGas: SERVER,
  exceedsBlockGasLimit: SERVER,
  tipBelowMinimum: SERVER,
  invalidSender: SERVER,
  invalidChainId: SERVER,
  unprotectedTx: SERVER,
  txTypeNotSupported: SERVER,
  oversizedTx: SERVER,
  negativeValue: SERVER,
  emptyAuthList: SERVER,
  setCodeCreate: SERVER,
  txDecode: SERVER,
  poolFull: SERVER,
  underpriced: SERVER,
  replaceUnderpriced: SERVER,
  futureReplacePending: SERVER,
  accountLimit: SERVER,
  // log queries and filters
  filterNotFound: SERVER,
  unknownBlock: SERVER,
  headerForHashNotFound: SERVER,
  invalidBlockRange: INVALID_PARAMS,
  rangeBeyondHead: INVALID_PARAMS,
  blockRangeLimit: INVALID_PARAMS,
  logResultLimit: INVALID_PARAMS,
  tooManyFilters: ERROR_CODE.limitExceeded,
  // messages (eth_call, eth_estimateGas, eth_createAccessList; the pool's fee errors too)
  reverted: ERROR_CODE.revert,
  execution: SERVER,
  insufficientFunds: SERVER,
  insufficientFundsForTransfer: SERVER,
  intrinsicGas: SERVER,
  messageFloorDataGas: SERVER,
  feeCapTooLow: SERVER,
  tipAboveFeeCap: SERVER,
  gasAllowanceExceeded: SERVER,
  engine: ERROR_CODE.internal,
  // the execution pool
  poolBusy: ERROR_CODE.limitExceeded,
  traceLimit: ERROR_CODE.limitExceeded,
  workerCrashed: ERROR_CODE.internal,
  shuttingDown: SERVER,
  // traces
  traceFailed: SERVER,
  // testing_buildBlockV1 refusals (geth: plain errors)
  testingBuild: SERVER,
  traceTimeout: SERVER,
  traceTooLarge: ERROR_CODE.limitExceeded,
  traceOptions: INVALID_PARAMS,
  traceConfig: SERVER,
  stateOverride: INVALID_PARAMS,
  // eth_simulateV1 (geth's internal/ethapi/errors.go)
  simNonceTooLow: -38010,
  simNonceTooHigh: -38011,
  simFeeCapTooLow: -38012,
  simIntrinsicGas: -38013,
  simInsufficientFunds: -38014,
  simBlockGasLimitReached: -38015,
  simBlockNumberInvalid: -38020,
  simBlockTimestampInvalid: -38021,
  simSenderIsNotEOA: -38024,
  simMaxInitCodeSizeExceeded: -38025,
  simClientLimitExceeded: ERROR_CODE.clientLimitExceeded,
  simInvalidParams: INVALID_PARAMS,
  simInternal: ERROR_CODE.internal,
  simVmError: ERROR_CODE.simVmError,
  simServer: SERVER,
  // the dev chain's test controls (anvil answers its TimestampError with -32602)
  timestampNotAfterParent: INVALID_PARAMS,
  mineLimit: INVALID_PARAMS,
  // checkpoints, block proofs and exit payloads (validators_; plain errors, as Bor answers its own)
  checkpointRange: SERVER,
  exitUnknownTx: SERVER,
  exitLogIndex: SERVER,
  notABurn: SERVER,
  notCheckpointed: SERVER,
  checkpointBlockMissing: SERVER,
  checkpointRootMismatch: SERVER,
  receiptsRootMismatch: SERVER,
  noCheckpointService: SERVER,
}

/** Every kind the table knows (tests check each has its code and wording). */
export function errorKinds(): ErrorKind[] {
  return Object.keys(CODE_OF_KIND) as ErrorKind[]
}

/** errorCodeOf: the JSON-RPC code of a kind (simulated call results carry it inside the result). */
export function errorCodeOf(kind: ErrorKind): number {
  return CODE_OF_KIND[kind]
}

// ---------------------------------------------------------------------------------------------
// The RPC layer's own errors

export class RpcError extends IbexError {
  readonly kind: string = 'rpc'
  readonly code: number
  readonly data: unknown

  constructor(code: number, shortMessage: string, options: RpcErrorOptions = {}) {
    super(shortMessage, options)
    this.code = code
    this.data = options.data
  }
}

/** -32700: the body is not JSON. */
export class ParseError extends RpcError {
  constructor(message = 'parse error', options?: RpcErrorOptions) {
    super(ERROR_CODE.parse, message, options)
  }
}

/** -32600: the message is not a JSON-RPC 2.0 request (`invalid request`, `empty batch`, `batch too large`). */
export class InvalidRequestError extends RpcError {
  constructor(message = 'invalid request', options?: RpcErrorOptions) {
    super(ERROR_CODE.invalidRequest, message, options)
  }
}

/** -32601: unknown method, or a method of a namespace that is not enabled. */
export class MethodNotFoundError extends RpcError {
  readonly method: string
  constructor(method: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.methodNotFound, `the method ${method} does not exist/is not available`, options)
    this.method = method
  }
}

/** -32601 too: `*_subscribe` over HTTP, which has no notification channel (geth's ErrNotificationsUnsupported). */
export class NotificationsUnsupportedError extends RpcError {
  constructor(options?: RpcErrorOptions) {
    super(ERROR_CODE.methodNotFound, 'notifications not supported', options)
  }
}

/**
 * -32602: bad params. Decoders throw it with the bare message (`hex string without 0x prefix`);
 * the dispatcher re-raises it as `invalid argument N: <message>`.
 */
export class InvalidParamsError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.invalidParams, message, options)
  }
}

/** -32602 `non-array args`: params that are neither an array nor absent (geth's wording). */
export class NonArrayArgsError extends InvalidParamsError {
  constructor() {
    super('non-array args')
  }
}

/** -32603: the node failed in a way that is its own fault. */
export class InternalError extends RpcError {
  constructor(message = INTERNAL_ERROR_MESSAGE, options?: RpcErrorOptions) {
    super(ERROR_CODE.internal, message, options)
  }
}

/** -32000: geth's default code for every plain error (`nonce too low`, `filter not found`, `execution reverted` without data…). */
export class ServerError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.server, message, options)
  }
}

/** -32000 `header not found`: a block tag or number names no stored block. */
export class HeaderNotFoundError extends ServerError {
  constructor() {
    super('header not found')
  }
}

/** -32000 `subscription not found` (eth_unsubscribe of an unknown id). */
export class SubscriptionNotFoundError extends ServerError {
  constructor() {
    super('subscription not found')
  }
}

/** -32000 `genesis is not traceable` (debug_trace* of block 0). */
export class GenesisNotTraceableError extends ServerError {
  constructor() {
    super('genesis is not traceable')
  }
}

/** -32000 `<subject> not found` (`block #5 not found`, `transaction not found`), as geth's debug API words it. */
export class NotFoundError extends ServerError {
  constructor(subject: string) {
    super(`${subject} not found`)
  }
}

/** -32005: a request exceeds a node limit (EIP-1474 "limit exceeded"). */
export class LimitExceededError extends RpcError {
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.limitExceeded, message, options)
  }
}

/** -32005 `limit exceeded` of the per-client rate limiter; `data` says which budget ran out and when to retry. */
export class RateLimitedError extends LimitExceededError {
  constructor(budget: string, retryAfterSeconds: number) {
    super('limit exceeded', { data: { budget, retryAfter: retryAfterSeconds } })
  }
}

/** -32003 `response too large`: an answer over the response cap (geth's errcodeResponseTooLarge). */
export class ResponseTooLargeError extends RpcError {
  constructor() {
    super(ERROR_CODE.responseTooLarge, 'response too large')
  }
}

/** -38026: a request asks for more than the client serves at once (geth's errcodeClientLimitExceeded). */
export class ClientLimitExceededError extends RpcError {
  constructor(message: string) {
    super(ERROR_CODE.clientLimitExceeded, message)
  }
}

/**
 * Code 3: the call reverted with data. Message `execution reverted`, or `execution reverted: <reason>`
 * when the data is an Error(string) or Panic(uint256); `data` is the revert bytes as 0x hex.
 * geth uses this only for non-empty revert data: use newRevertError to get its exact behaviour.
 */
export class RevertError extends RpcError {
  /** The decoded reason, when the data is Error(string) or Panic(uint256). */
  readonly reason: string | undefined
  constructor(revertData: Uint8Array, options: Omit<RpcErrorOptions, 'data'> = {}) {
    const reason = decodeRevertReason(revertData)
    const message = reason === undefined ? 'execution reverted' : `execution reverted: ${reason}`
    super(ERROR_CODE.revert, message, { ...options, data: toData(revertData) })
    this.reason = reason
  }
}

/**
 * geth's answer to a reverted call: RevertError (code 3, with data) when the revert carried data,
 * a plain `-32000 execution reverted` without data when it did not.
 */
export function newRevertError(revertData: Uint8Array): RpcError {
  return revertData.length === 0 ? new ServerError('execution reverted') : new RevertError(revertData)
}

/** The error object of a JSON-RPC response. `data` is left out of the JSON when undefined. */
export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

const CRASHED: JsonRpcErrorObject = { code: ERROR_CODE.internal, message: INTERNAL_ERROR_MESSAGE, data: undefined }

/** The only mapping from anything thrown to a wire error object. */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  if (err instanceof RpcError) return { code: err.code, message: err.shortMessage, data: err.data }
  if (!(err instanceof IbexError)) return CRASHED
  const known = err as ModuleError
  if (known.kind === 'reverted') return toJsonRpcError(newRevertError(known.data))
  const code = CODE_OF_KIND[known.kind]
  // a kind from a newer module than this table (a revived error of an unknown class): a bug
  if (code === undefined) return CRASHED
  return { code, message: known.shortMessage, data: undefined }
}

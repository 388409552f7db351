/**
 * JSON-RPC error classes and the one mapping from errors to wire error objects.
 *
 * Every error a client can see is an RpcError carrying its wire `code`, the exact geth message
 * (`shortMessage`, also `message`) and optional `data`. Modules raise their own subclasses (or
 * ServerError for geth's plain `-32000` errors such as `nonce too low`); toJsonRpcError is the
 * only place that turns anything thrown into `{code, message, data?}`. Anything that is not an
 * RpcError is a bug: it answers `-32603` with a fixed message and never leaks a stack.
 */
import { ExecutionError, ExecutionRevertedError } from '../exec/errors.js'
import { ExecPoolError } from '../exec/pool/errors.js'
import { SimulationError } from '../exec/simulate/errors.js'
import { FilterError } from '../filters/errors.js'
import { TxPoolError } from '../txpool/errors.js'
import { toData } from './hex.js'

export interface RpcErrorOptions {
  /** The error object's `data` member: a 0x hex string or any JSON value. Omitted when undefined. */
  data?: unknown
  /** Extra context for logs; never sent to clients. */
  details?: string
  cause?: unknown
}

/** Wire codes, as geth and EIP-1474 use them. */
export const ERROR_CODE = {
  parse: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
  limitExceeded: -32005,
  revert: 3,
} as const

/** Message sent for errors that are not RpcErrors (geth says this when a handler panics). */
export const INTERNAL_ERROR_MESSAGE = 'method handler crashed'

export class RpcError extends Error {
  override name = 'RpcError'
  readonly code: number
  /** The message exactly as sent to clients. */
  readonly shortMessage: string
  readonly data: unknown
  readonly details: string | undefined

  constructor(code: number, shortMessage: string, options: RpcErrorOptions = {}) {
    super(shortMessage, options.cause === undefined ? undefined : { cause: options.cause })
    this.code = code
    this.shortMessage = shortMessage
    this.data = options.data
    this.details = options.details
  }
}

/** -32700: the body is not JSON. */
export class ParseError extends RpcError {
  override name = 'ParseError'
  constructor(message = 'parse error', options?: RpcErrorOptions) {
    super(ERROR_CODE.parse, message, options)
  }
}

/** -32600: the message is not a JSON-RPC 2.0 request (`invalid request`, `empty batch`, `batch too large`). */
export class InvalidRequestError extends RpcError {
  override name = 'InvalidRequestError'
  constructor(message = 'invalid request', options?: RpcErrorOptions) {
    super(ERROR_CODE.invalidRequest, message, options)
  }
}

/** -32601: unknown method, or a method of a namespace that is not enabled. */
export class MethodNotFoundError extends RpcError {
  override name = 'MethodNotFoundError'
  readonly method: string
  constructor(method: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.methodNotFound, `the method ${method} does not exist/is not available`, options)
    this.method = method
  }
}

/** -32601 too: `*_subscribe` over HTTP, which has no notification channel (geth's ErrNotificationsUnsupported). */
export class NotificationsUnsupportedError extends RpcError {
  override name = 'NotificationsUnsupportedError'
  constructor(options?: RpcErrorOptions) {
    super(ERROR_CODE.methodNotFound, 'notifications not supported', options)
  }
}

/**
 * -32602: bad params. Decoders throw it with the bare message (`hex string without 0x prefix`);
 * the dispatcher re-raises it as `invalid argument N: <message>`.
 */
export class InvalidParamsError extends RpcError {
  override name = 'InvalidParamsError'
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.invalidParams, message, options)
  }
}

/** -32603: the node failed in a way that is its own fault. */
export class InternalError extends RpcError {
  override name = 'InternalError'
  constructor(message = INTERNAL_ERROR_MESSAGE, options?: RpcErrorOptions) {
    super(ERROR_CODE.internal, message, options)
  }
}

/** -32000: geth's default code for every plain error (`nonce too low`, `filter not found`, `execution reverted` without data…). */
export class ServerError extends RpcError {
  override name = 'ServerError'
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.server, message, options)
  }
}

/** -32005: a request exceeds a node limit (EIP-1474 "limit exceeded"). */
export class LimitExceededError extends RpcError {
  override name = 'LimitExceededError'
  constructor(message: string, options?: RpcErrorOptions) {
    super(ERROR_CODE.limitExceeded, message, options)
  }
}

/**
 * Code 3: the call reverted with data. Message `execution reverted`, or `execution reverted: <reason>`
 * when the data is an Error(string) or Panic(uint256); `data` is the revert bytes as 0x hex.
 * geth uses this only for non-empty revert data: use newRevertError to get its exact behaviour.
 */
export class RevertError extends RpcError {
  override name = 'RevertError'
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

/** The only mapping from anything thrown to a wire error object. */
export function toJsonRpcError(err: unknown): JsonRpcErrorObject {
  if (err instanceof RpcError) return { code: err.code, message: err.shortMessage, data: err.data }
  // module errors (txpool admission, execution) carry geth's messages; map them here only
  if (err instanceof TxPoolError || err instanceof ExecutionError) {
    return { code: ERROR_CODE.server, message: err.message, data: undefined }
  }
  if (err instanceof ExecutionRevertedError) return toJsonRpcError(newRevertError(err.data))
  if (err instanceof SimulationError) return { code: err.code, message: err.message, data: undefined }
  if (err instanceof FilterError) return { code: err.code, message: err.message, data: undefined }
  // the execution pool: -32005 queue full / trace too large, -32603 crashed worker
  if (err instanceof ExecPoolError) return { code: err.code, message: err.message, data: undefined }
  return { code: ERROR_CODE.internal, message: INTERNAL_ERROR_MESSAGE, data: undefined }
}

// ---------------------------------------------------------------------------------------------
// Revert reasons, decoded as go-ethereum's abi.UnpackRevert does.

/** Selector of Error(string). */
const ERROR_SELECTOR = 0x08c379a0
/** Selector of Panic(uint256). */
const PANIC_SELECTOR = 0x4e487b71
const WORD_BYTES = 32

/** Solidity's panic codes and geth's wording for them. */
const PANIC_REASONS: ReadonlyMap<bigint, string> = new Map([
  [0x00n, 'generic panic'],
  [0x01n, 'assert(false)'],
  [0x11n, 'arithmetic underflow or overflow'],
  [0x12n, 'division or modulo by zero'],
  [0x21n, 'enum overflow'],
  [0x22n, 'invalid encoded storage byte array accessed'],
  [0x31n, 'out-of-bounds array access; popping on an empty array'],
  [0x32n, 'out-of-bounds access of an array or bytesN'],
  [0x41n, 'out of memory'],
  [0x51n, 'uninitialized function'],
])

/**
 * The human reason inside revert data: the string of Error(string), or geth's text for a
 * Panic(uint256) code (`unknown panic code: 0x..` when not a Solidity one). Undefined for any
 * other or malformed data, exactly where geth falls back to a bare `execution reverted`.
 */
export function decodeRevertReason(data: Uint8Array): string | undefined {
  if (data.length < 4) return undefined
  const selector = ((data[0] << 24) | (data[1] << 16) | (data[2] << 8) | data[3]) >>> 0
  const body = data.subarray(4)
  if (selector === PANIC_SELECTOR) {
    if (body.length < WORD_BYTES) return undefined
    const code = readWord(body, 0)
    return PANIC_REASONS.get(code) ?? `unknown panic code: 0x${code.toString(16)}`
  }
  if (selector !== ERROR_SELECTOR || body.length < WORD_BYTES) return undefined
  // ABI string: a head word with the offset of the tail, the tail is a length word then the bytes.
  const lengthEnd = readWord(body, 0) + BigInt(WORD_BYTES)
  if (lengthEnd > BigInt(body.length)) return undefined
  const start = Number(lengthEnd)
  const end = lengthEnd + readWord(body, start - WORD_BYTES)
  if (end > BigInt(body.length)) return undefined
  return decodeUtf8LikeGo(body.subarray(start, Number(end)))
}

function readWord(bytes: Uint8Array, offset: number): bigint {
  return BigInt(toData(bytes.subarray(offset, offset + WORD_BYTES)))
}

const STRICT_UTF8 = new TextDecoder('utf-8', { fatal: true })

/** UTF-8 to string, replacing each invalid byte by U+FFFD as Go's JSON encoder does. */
function decodeUtf8LikeGo(bytes: Uint8Array): string {
  try {
    return STRICT_UTF8.decode(bytes)
  } catch {
    let out = ''
    let i = 0
    while (i < bytes.length) {
      const size = validSequenceLength(bytes, i)
      if (size === 0) {
        out += '\uFFFD'
        i += 1
      } else {
        out += STRICT_UTF8.decode(bytes.subarray(i, i + size))
        i += size
      }
    }
    return out
  }
}

/** Length of the valid UTF-8 sequence at `i` (Go's utf8.DecodeRune ranges), 0 when invalid. */
function validSequenceLength(b: Uint8Array, i: number): number {
  const c = b[i]
  if (c < 0x80) return 1
  const cont = (k: number, lo = 0x80, hi = 0xbf): boolean => i + k < b.length && b[i + k] >= lo && b[i + k] <= hi
  if (c >= 0xc2 && c <= 0xdf) return cont(1) ? 2 : 0
  if (c === 0xe0) return cont(1, 0xa0) && cont(2) ? 3 : 0
  if (c === 0xed) return cont(1, 0x80, 0x9f) && cont(2) ? 3 : 0
  if (c >= 0xe1 && c <= 0xef) return cont(1) && cont(2) ? 3 : 0
  if (c === 0xf0) return cont(1, 0x90) && cont(2) && cont(3) ? 4 : 0
  if (c >= 0xf1 && c <= 0xf3) return cont(1) && cont(2) && cont(3) ? 4 : 0
  if (c === 0xf4) return cont(1, 0x80, 0x8f) && cont(2) && cont(3) ? 4 : 0
  return 0
}

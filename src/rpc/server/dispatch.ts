/**
 * JSON-RPC 2.0 dispatch, answering exactly as geth's rpc package does.
 *
 *   body ──JSON.parse──▶ single message ─┐
 *        │                batch [..] ────┴─▶ handleMessage (batch items at most
 *        │                                   `batchConcurrency` at a time, answers kept in
 *        └─ not JSON: -32700 `parse error`   request order)
 *
 *   handleMessage: envelope check ─▶ method lookup (Map) ─▶ param decoders ─▶ handler
 *
 * What always holds:
 *  - a call (`jsonrpc` = "2.0", an id that is not an object/array, a non-empty method) gets an
 *    answer with its id; a notification (no id) runs but gets none; anything else is -32600
 *    `invalid request`, with the id when the id was valid, else null;
 *  - a message that looks like a response (`result`/`error`, no method) is ignored, as geth
 *    ignores unsolicited responses;
 *  - `[]` is one -32600 `empty batch` object; a batch over the item limit is a one-element array
 *    with -32600 `batch too large` carrying the id of the first call; a batch with no answer to
 *    give (only notifications) and an empty body give no body at all;
 *  - handlers return JSON-ready values (hex strings, never bigint); anything not serializable
 *    becomes -32603 for that one answer.
 */
import type { RpcNamespace } from '../../config/types.js'
import { BATCH_CONCURRENCY } from '../../config/defaults.js'
import {
  ERROR_CODE,
  InvalidRequestError,
  type JsonRpcErrorObject,
  MethodNotFoundError,
  NotificationsUnsupportedError,
  ParseError,
  ResponseTooLargeError,
  RpcError,
  SubscriptionNotFoundError,
  toJsonRpcError,
} from '../errors.js'
import { FilterId } from '../params/scalars.js'
import type { MethodDef, Namespace, ParamDecoder } from '../types.js'
import { jsonOf, type KeptText, keptTextOf } from '../format/cache.js'
import { RawJson } from '../types.js'
import { envelopeOf, type Envelope } from './envelope.js'
import { decodeParams } from './params.js'

export { decodeParams } from './params.js'

export type JsonRpcId = string | number | boolean | null

/** One answer. Fields in geth's order; JSON.stringify drops the undefined one of error/result. */
export class JsonRpcResponse {
  readonly jsonrpc: '2.0'
  readonly id: JsonRpcId
  readonly error: JsonRpcErrorObject | undefined
  readonly result: unknown
  constructor(id: JsonRpcId, error: JsonRpcErrorObject | undefined, result: unknown) {
    this.jsonrpc = '2.0'
    this.id = id
    this.error = error
    this.result = error === undefined && result === undefined ? null : result
  }
}

export interface DispatcherOptions<Ctx> {
  namespaces: readonly Namespace<Ctx>[]
  /** Only namespaces named here are served (the config's `api` list). */
  enabledApis: readonly RpcNamespace[]
  ctx: Ctx
  /** Largest batch accepted, items; 0 = no limit. */
  maxBatchItems: number
  /** Items of one batch in progress at once; absent = BATCH_CONCURRENCY. */
  batchConcurrency?: number
  /** Told about every error toJsonRpcError cannot classify (answered -32603): a bug to log. */
  onInternalError?: (err: unknown, method: string) => void
  /** Largest answer, bytes (a batch's answers together); calls past it answer -32003 `response too large`, as geth's batch limit. 0 or absent = no limit. */
  maxResponseBytes?: number
  /** Told about every call run (metrics). */
  observe?: CallObserver
}

/** Sees each call once answered: its method, its error code (undefined = success) and the seconds it took. */
export type CallObserver = (method: string, errorCode: number | undefined, seconds: number) => void

/** A whole answer without an id, built once: `{"jsonrpc":"2.0","id":null,"error":{…}}`. */
const idlessAnswer = (err: RpcError): string => JSON.stringify({ jsonrpc: '2.0', id: null, error: toJsonRpcError(err) })
const PARSE_ERROR_BODY = idlessAnswer(new ParseError())
const EMPTY_BATCH_BODY = idlessAnswer(new InvalidRequestError('empty batch'))
const INVALID_REQUEST = toJsonRpcError(new InvalidRequestError('invalid request'))
const BATCH_TOO_LARGE = toJsonRpcError(new InvalidRequestError('batch too large'))
const NOTIFICATIONS_UNSUPPORTED = new NotificationsUnsupportedError()
const RESPONSE_TOO_LARGE: JsonRpcErrorObject = toJsonRpcError(new ResponseTooLargeError())

/** JSON whitespace only (or nothing): geth reads no message and writes no answer. */
const BLANK_RE = /^[ \t\n\r]*$/
/** A result string that JSON writes as is: 0x and hex digits. */
const PLAIN_HEX_RE = /^0x[0-9a-fA-F]*$/
/** Characters Go's JSON encoder escapes and JSON.stringify does not. */
const GO_ESCAPED_RE = /[<>&\u2028\u2029]/
const GO_ESCAPED_GLOBAL_RE = /[<>&\u2028\u2029]/g
const GO_ESCAPES: Record<string, string> = {
  '<': '\\u003c',
  '>': '\\u003e',
  '&': '\\u0026',
  '\u2028': '\\u2028',
  '\u2029': '\\u2029',
}

function isThenable(v: unknown): v is PromiseLike<unknown> {
  return typeof v === 'object' && v !== null && typeof (v as { then?: unknown }).then === 'function'
}

/**
 * A connection that can carry subscriptions (a WebSocket). Over HTTP there is none: `*_subscribe`
 * is `notifications not supported` and `*_unsubscribe` finds nothing.
 */
export interface RpcSession {
  /** The client's IP, as the per-IP limits count it (filters, subscriptions); '' when unknown. */
  readonly client: string
  /** `<namespace>_subscribe` with its raw params; returns the subscription id or throws. Absent over HTTP. */
  subscribe?(namespace: string, params: unknown): unknown
  /** `<namespace>_unsubscribe` of a decoded id: true, or throws `subscription not found`. Absent over HTTP. */
  unsubscribe?(id: string): boolean
}

const SUBSCRIBE_SUFFIX = '_subscribe'

/** geth's built-in `*_unsubscribe`: over HTTP there are no subscriptions to cancel. */
const UNSUBSCRIBE: MethodDef<unknown> = {
  params: [FilterId as ParamDecoder<unknown>],
  handler() {
    throw new SubscriptionNotFoundError()
  },
}

export class RpcDispatcher<Ctx> {
  /** Method name → definition, for the enabled namespaces only. Built once. */
  readonly methods: ReadonlyMap<string, MethodDef<Ctx>>
  private readonly ctx: Ctx
  private readonly maxBatchItems: number
  private readonly batchConcurrency: number
  private readonly onInternalError: ((err: unknown, method: string) => void) | undefined
  private readonly maxResponseBytes: number
  private readonly observe: CallObserver | undefined

  constructor(options: DispatcherOptions<Ctx>) {
    const methods = new Map<string, MethodDef<Ctx>>()
    const enabled = new Set<string>(options.enabledApis)
    for (const ns of options.namespaces) {
      if (!enabled.has(ns.name)) continue
      for (const name of Object.keys(ns.methods)) {
        if (methods.has(name)) throw new Error(`duplicate RPC method ${name}`)
        methods.set(name, ns.methods[name])
      }
    }
    this.methods = methods
    this.ctx = options.ctx
    this.maxBatchItems = options.maxBatchItems
    this.batchConcurrency = Math.max(1, options.batchConcurrency ?? BATCH_CONCURRENCY)
    this.onInternalError = options.onInternalError
    this.maxResponseBytes = options.maxResponseBytes ?? 0
    this.observe = options.observe
  }

  /** Answers one HTTP body or WebSocket message: the JSON text to send, or undefined for none. Never rejects. */
  async handleBody(text: string, session?: RpcSession): Promise<string | undefined> {
    return asText(await this.answerBody(text, session))
  }

  /**
   * handleBody, answering at once (no promise) when it can: a single call whose handler returns
   * a value, not a promise — most reads. The HTTP transport writes such an answer in the same
   * tick. Never rejects.
   */
  answerBody(text: string, session?: RpcSession): Answer | Promise<Answer> {
    if (BLANK_RE.test(text)) return undefined
    let parsed: unknown
    try {
      parsed = JSON.parse(text)
    } catch {
      return PARSE_ERROR_BODY
    }
    return this.answerParsed(parsed, session)
  }

  /** handleBody after JSON.parse (the HTTP transport parses first when it rate-limits). Never rejects. */
  async handleParsed(parsed: unknown, session?: RpcSession): Promise<string | undefined> {
    return asText(await this.answerParsed(parsed, session))
  }

  /** handleParsed, at once when it can (see answerBody). Never rejects. */
  answerParsed(parsed: unknown, session?: RpcSession): Answer | Promise<Answer> {
    if (!Array.isArray(parsed)) {
      const answer = this.answerMessage(parsed, session)
      return answer instanceof Promise ? answer.then((a) => this.singleText(a)) : this.singleText(answer)
    }
    return this.batchText(parsed, session)
  }

  private singleText(answer: JsonRpcResponse | undefined): Answer {
    if (answer === undefined) return undefined
    const result = answer.result
    if (answer.error === undefined && result instanceof RawJson && result.bytes !== undefined) {
      return this.rawBytesAnswer(answer.id, result.bytes)
    }
    if (answer.error === undefined && Array.isArray(result) && result.length >= KEPT_BYTES_MIN_ITEMS) {
      const bytes = this.keptArrayAnswer(answer.id, result)
      if (bytes !== undefined) return bytes
    }
    const text = this.serialize(answer)
    return this.fits(text, 0) ? text : this.serialize(new JsonRpcResponse(answer.id, RESPONSE_TOO_LARGE, undefined))
  }

  private async batchText(parsed: unknown[], session: RpcSession | undefined): Promise<string | undefined> {
    const n = parsed.length
    if (n === 0) return EMPTY_BATCH_BODY
    if (this.maxBatchItems > 0 && n > this.maxBatchItems) {
      return `[${this.serialize(new JsonRpcResponse(this.firstCallId(parsed), BATCH_TOO_LARGE, undefined))}]`
    }
    const answers = await this.handleItems(parsed, session)
    let body = ''
    let over = false
    for (let i = 0; i < n; i++) {
      const answer = answers[i]
      if (answer === undefined) continue
      body += body === '' ? '[' : ','
      // geth: once the answers pass the limit, that one and all after it are `response too large`
      const text = over ? '' : this.serialize(answer)
      if (!over && this.fits(text, body.length)) body += text
      else {
        over = true
        body += this.serialize(new JsonRpcResponse(answer.id, RESPONSE_TOO_LARGE, undefined))
      }
    }
    return body === '' ? undefined : `${body}]`
  }

  /** A batch's answers in request order, at most `batchConcurrency` items in progress at once. */
  private async handleItems(
    items: unknown[],
    session: RpcSession | undefined,
  ): Promise<(JsonRpcResponse | undefined)[]> {
    const n = items.length
    const answers = new Array<JsonRpcResponse | undefined>(n)
    let next = 0
    const lane = async (): Promise<void> => {
      while (next < n) {
        const i = next++
        answers[i] = await this.handleMessage(items[i], session)
      }
    }
    const lanes: Promise<void>[] = []
    for (let k = 0; k < Math.min(n, this.batchConcurrency); k++) lanes.push(lane())
    await Promise.all(lanes)
    return answers
  }

  /** Answers one message (a batch item or a single request); undefined when it gets no answer. Never rejects. */
  async handleMessage(msg: unknown, session?: RpcSession): Promise<JsonRpcResponse | undefined> {
    return this.answerMessage(msg, session)
  }

  /** handleMessage, without a promise when the handler returns a value. Never rejects. */
  private answerMessage(
    msg: unknown,
    session?: RpcSession,
  ): JsonRpcResponse | undefined | Promise<JsonRpcResponse | undefined> {
    const env = envelopeOf(msg)
    if (env === undefined) return new JsonRpcResponse(null, INVALID_REQUEST, undefined)
    if (env.isResponse) return undefined
    const isCall = env.isCall
    if (!isCall && !env.isNotification) {
      return new JsonRpcResponse(env.validId ? (env.id as JsonRpcId) : null, INVALID_REQUEST, undefined)
    }
    const method = env.methodName
    const startedMs = this.observe === undefined ? 0 : performance.now()
    let result: unknown
    try {
      result = this.call(method, env.params, session)
    } catch (err) {
      return this.answerFailure(env, method, err, startedMs)
    }
    if (isThenable(result)) {
      return Promise.resolve(result).then(
        (value) => this.answerSuccess(env, method, value, startedMs),
        (err: unknown) => this.answerFailure(env, method, err, startedMs),
      )
    }
    return this.answerSuccess(env, method, result, startedMs)
  }

  private answerSuccess(
    env: Envelope,
    method: string,
    result: unknown,
    startedMs: number,
  ): JsonRpcResponse | undefined {
    if (this.observe !== undefined) this.observeCall(method, undefined, startedMs)
    return env.isCall ? new JsonRpcResponse(env.id as JsonRpcId, undefined, result) : undefined
  }

  private answerFailure(env: Envelope, method: string, err: unknown, startedMs: number): JsonRpcResponse | undefined {
    const error = toJsonRpcError(err)
    // Only what toJsonRpcError could not classify is a bug worth reporting.
    if (error.code === ERROR_CODE.internal && !(err instanceof RpcError)) this.report(err, method)
    if (this.observe !== undefined) this.observeCall(method, error, startedMs)
    return env.isCall ? new JsonRpcResponse(env.id as JsonRpcId, error, undefined) : undefined
  }

  private call(method: string, params: unknown, session: RpcSession | undefined): unknown {
    if (method.endsWith(SUBSCRIBE_SUFFIX)) {
      if (session?.subscribe === undefined) throw NOTIFICATIONS_UNSUPPORTED
      return session.subscribe(method.slice(0, -SUBSCRIBE_SUFFIX.length), params)
    }
    let def = this.methods.get(method)
    if (def === undefined && method.endsWith('_unsubscribe')) {
      if (session?.unsubscribe !== undefined)
        return session.unsubscribe(decodeParams(UNSUBSCRIBE.params, params)[0] as string)
      def = UNSUBSCRIBE as MethodDef<Ctx>
    }
    if (def === undefined) throw new MethodNotFoundError(method)
    return def.handler(this.ctx, decodeParams(def.params, params), session?.client ?? '')
  }

  /** The id for `batch too large`: the first call's, among the items geth would have decoded. */
  private firstCallId(batch: unknown[]): JsonRpcId {
    const scan = Math.min(batch.length, this.maxBatchItems + 1)
    for (let i = 0; i < scan; i++) {
      const env = envelopeOf(batch[i])
      if (env?.isCall) return env.id as JsonRpcId
    }
    return null
  }

  /** True when `text` still fits the response cap after `before` bytes (a lower bound: string length). */
  private fits(text: string, before: number): boolean {
    const max = this.maxResponseBytes
    if (max === 0) return true
    if ((before + text.length) * 3 <= max) return true
    return before + Buffer.byteLength(text) <= max
  }

  private observeCall(method: string, error: JsonRpcErrorObject | undefined, startedMs: number): void {
    try {
      this.observe?.(method, error?.code, (performance.now() - startedMs) / 1000)
    } catch {
      // metrics must not take the answer down
    }
  }

  private report(err: unknown, method: string): void {
    try {
      this.onInternalError?.(err, method)
    } catch {
      // A failing logger must not take the answer down.
    }
  }

  private serialize(answer: JsonRpcResponse): string {
    const { id, result } = answer
    // the commonest answer — a quantity or data for an integer id — written without JSON.stringify
    // and the escape scan: nothing in it needs escaping (the same text, ~1 µs less a request)
    if (
      answer.error === undefined &&
      typeof result === 'string' &&
      typeof id === 'number' &&
      Number.isSafeInteger(id) &&
      PLAIN_HEX_RE.test(result)
    ) {
      return `{"jsonrpc":"2.0","id":${id},"result":"${result}"}`
    }
    if (result instanceof RawJson) {
      // a result serialized by its producer (a trace): splice it in, escaping only the envelope
      return this.splice(answer.id, result.text)
    }
    // finalized chain data formatted once (src/rpc/format/cache.ts): its JSON text is kept too
    const kept = answer.error === undefined ? keptJson(answer.result) : undefined
    if (kept !== undefined) return this.splice(answer.id, kept)
    let text: string
    try {
      text = JSON.stringify(answer)
    } catch (err) {
      this.report(err, 'serialize')
      text = JSON.stringify(new JsonRpcResponse(answer.id, toJsonRpcError(err), undefined))
    }
    return GO_ESCAPED_RE.test(text) ? text.replace(GO_ESCAPED_GLOBAL_RE, escapeLikeGo) : text
  }

  /** splice for a result given as bytes (RawJson.bytes): one copy of the bytes, no string. */
  private rawBytesAnswer(id: JsonRpcId, parts: readonly Uint8Array[]): Answer {
    const head = Buffer.from(this.envelopeHead(id))
    let total = head.length + 1
    for (const p of parts) total += p.byteLength
    if (this.maxResponseBytes > 0 && total > this.maxResponseBytes) {
      return this.serialize(new JsonRpcResponse(id, RESPONSE_TOO_LARGE, undefined))
    }
    const out = Buffer.allocUnsafe(total)
    let at = head.copy(out, 0)
    for (const p of parts) {
      out.set(p, at)
      at += p.byteLength
    }
    out[at] = 0x7d // }
    return out
  }

  /** `{"jsonrpc":"2.0","id":…,"result":<text>}` with `text` already Go-escaped JSON. */
  private splice(id: JsonRpcId, text: string): string {
    return `${this.envelopeHead(id)}${text}}`
  }

  /** `{"jsonrpc":"2.0","id":…,"result":` for `id`. */
  private envelopeHead(id: JsonRpcId): string {
    return this.serialize(new JsonRpcResponse(id, undefined, 0)).slice(0, -2)
  }

  /**
   * The answer of a long array of kept results (a log range, a block's receipts) written straight
   * into bytes from their kept texts, whose lengths are known: one copy, where a string answer
   * costs a join, a flatten, two length scans and an encode. undefined when an item is not kept;
   * `response too large` (as singleText) when it would pass the cap.
   */
  private keptArrayAnswer(id: JsonRpcId, items: readonly unknown[]): Answer {
    const n = items.length
    const parts = new Array<KeptText>(n)
    const head = this.envelopeHead(id)
    const headBytes = Buffer.byteLength(head)
    // head, brackets, commas and the closing brace
    let total = headBytes + n + 2
    for (let i = 0; i < n; i++) {
      const kept = keptTextOf(items[i], toGoJson)
      if (kept === undefined) return undefined
      parts[i] = kept
      total += kept.bytes
    }
    if (this.maxResponseBytes > 0 && total > this.maxResponseBytes) {
      return this.serialize(new JsonRpcResponse(id, RESPONSE_TOO_LARGE, undefined))
    }
    const out = Buffer.allocUnsafe(total)
    let at = out.write(head, 0, headBytes, 'utf8')
    out[at++] = 0x5b // [
    for (let i = 0; i < n; i++) {
      if (i > 0) out[at++] = 0x2c // ,
      const { text, bytes } = parts[i] as KeptText
      // one byte per character: latin1 copies them as they are
      at += out.write(text, at, bytes, bytes === text.length ? 'latin1' : 'utf8')
    }
    out[at++] = 0x5d // ]
    out[at++] = 0x7d // }
    return out
  }
}

/** An answer body: JSON text, the same as UTF-8 bytes, or none. */
export type Answer = string | Buffer | undefined

/** Arrays of at least this many kept results are answered as bytes (keptArrayAnswer). */
export const KEPT_BYTES_MIN_ITEMS = 64

function asText(answer: Answer): string | undefined {
  return typeof answer === 'object' ? answer.toString('utf8') : answer
}

function escapeLikeGo(c: string): string {
  return GO_ESCAPES[c]
}

/**
 * The JSON text of a kept result, or of an array of kept results (logs, a block's receipts) from
 * their kept texts; undefined for anything else.
 */
function keptJson(result: unknown): string | undefined {
  if (!Array.isArray(result)) return jsonOf(result, toGoJson)
  if (result.length === 0 || jsonOf(result[0], toGoJson) === undefined) return undefined
  const parts = new Array<string>(result.length)
  for (let i = 0; i < result.length; i++) {
    const text = jsonOf(result[i], toGoJson)
    if (text === undefined) return undefined
    parts[i] = text
  }
  return `[${parts.join(',')}]`
}

/** JSON text in Go's encoding (what the dispatcher writes). */
function toGoJson(value: unknown): string {
  const text = JSON.stringify(value)
  return GO_ESCAPED_RE.test(text) ? text.replace(GO_ESCAPED_GLOBAL_RE, escapeLikeGo) : text
}

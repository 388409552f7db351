/**
 * The HTTP transport of JSON-RPC, answering as geth's rpc/http.go:
 *
 *   POST (any path) ── Content-Length > max? ──▶ 413 `content length too large (N>M)`
 *                   ── Content-Type not JSON? ──▶ 415 `invalid content type, only application/json is supported`
 *                   ── body (counted while streaming; over max ▶ 413) ──▶ dispatcher ──▶ 200 JSON
 *   GET / HEAD (any path) ──▶ health(): 200 or 503 with a JSON body
 *   OPTIONS ──▶ CORS preflight, 204
 *   anything else ──▶ 405 `method not allowed`
 *
 * Transport errors are text/plain with a trailing newline (Go's http.Error). CORS headers follow
 * the allow-list (cors.ts). Connections are kept alive; stop() closes idle ones at once and busy
 * ones once their request is answered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RpcNamespace } from '../../config/types.js'
import type { Namespace } from '../types.js'
import { CorsPolicy } from './cors.js'
import { RpcDispatcher } from './dispatch.js'

/** How long an idle keep-alive connection stays open (geth's IdleTimeout). */
export const HTTP_IDLE_TIMEOUT_MS = 120_000
/** Time allowed to receive a whole request, headers and body (geth's ReadTimeout). */
export const HTTP_READ_TIMEOUT_MS = 30_000
/** After stop(), connections still busy this long are cut. */
export const HTTP_STOP_GRACE_MS = 5_000

/** Media types geth accepts for a JSON-RPC body. */
const ACCEPTED_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])

export interface HealthReport {
  ok: boolean
  /** Extra JSON members of the health answer (an object is merged after `status`). */
  body: unknown
}

export interface RpcHttpServerOptions<Ctx> {
  host: string
  /** 0 = any free port. */
  port: number
  /** Allowed CORS origins; `*` = any, empty = no CORS headers. */
  corsOrigins: readonly string[]
  /** Largest request body, bytes. */
  maxBodyBytes: number
  /** Largest batch, items; 0 = no limit. */
  maxBatchItems: number
  namespaces: readonly Namespace<Ctx>[]
  enabledApis: readonly RpcNamespace[]
  ctx: Ctx
  health: () => HealthReport
  /** Told about handler bugs (errors that are not RpcErrors). */
  onInternalError?: (err: unknown, method: string) => void
}

/** Per-request body reading state, kept on the request so the stream listeners need no closure. */
class BodyReader {
  readonly server: RpcHttpServer<unknown>
  readonly res: ServerResponse
  chunks: Buffer[]
  received: number
  done: boolean
  constructor(server: RpcHttpServer<unknown>, res: ServerResponse) {
    this.server = server
    this.res = res
    this.chunks = []
    this.received = 0
    this.done = false
  }
}

const kBody = Symbol('ibex.rpc.body')
type ReadingRequest = IncomingMessage & { [kBody]: BodyReader }

function onBodyData(this: ReadingRequest, chunk: Buffer): void {
  const reader = this[kBody]
  if (reader.done) return
  reader.received += chunk.length
  const max = reader.server.maxBodyBytes
  if (reader.received > max) {
    reader.done = true
    reader.chunks = []
    reader.res.setHeader('Connection', 'close')
    sendText(reader.res, 413, `content length too large (${reader.received}>${max})`)
    return
  }
  reader.chunks.push(chunk)
}

function onBodyEnd(this: ReadingRequest): void {
  const reader = this[kBody]
  if (reader.done) return
  reader.done = true
  const chunks = reader.chunks
  reader.chunks = []
  const text = (chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, reader.received)).toString('utf8')
  void reader.server.answer(reader.res, text)
}

function onBodyError(this: ReadingRequest): void {
  const reader = this[kBody]
  reader.done = true
  reader.chunks = []
}

/** Go's http.Error: text/plain, nosniff, message and a newline. */
function sendText(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return
  res.statusCode = status
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.end(`${message}\n`)
}

function sendJson(res: ServerResponse, status: number, body: string | undefined): void {
  if (res.headersSent || res.destroyed) return
  res.statusCode = status
  res.setHeader('Content-Type', 'application/json')
  res.end(body)
}

/** The media type of a Content-Type header, lowercased, without parameters. */
function mediaType(header: string | undefined): string {
  if (header === undefined) return ''
  const semi = header.indexOf(';')
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase()
}

export class RpcHttpServer<Ctx> {
  readonly maxBodyBytes: number
  private readonly host: string
  private readonly port: number
  private readonly cors: CorsPolicy | undefined
  /** Shared with the WebSocket transport (ws.ts). */
  readonly dispatcher: RpcDispatcher<Ctx>
  private readonly health: () => HealthReport
  private readonly server: Server

  constructor(options: RpcHttpServerOptions<Ctx>) {
    this.maxBodyBytes = options.maxBodyBytes
    this.host = options.host
    this.port = options.port
    this.cors = CorsPolicy.fromOrigins(options.corsOrigins)
    this.dispatcher = new RpcDispatcher({
      namespaces: options.namespaces,
      enabledApis: options.enabledApis,
      ctx: options.ctx,
      maxBatchItems: options.maxBatchItems,
      onInternalError: options.onInternalError,
    })
    this.health = options.health
    this.server = createServer({
      keepAlive: true,
      keepAliveTimeout: HTTP_IDLE_TIMEOUT_MS,
      requestTimeout: HTTP_READ_TIMEOUT_MS,
      headersTimeout: HTTP_READ_TIMEOUT_MS,
    })
    this.server.on('request', this.onRequest.bind(this))
  }

  /** The node:http server, for the WebSocket upgrade handler (ws.ts). */
  get httpServer(): Server {
    return this.server
  }

  /** Starts listening; resolves with the bound port and the URL to POST to. */
  start(): Promise<{ port: number; url: string }> {
    return new Promise((resolve, reject) => {
      const onError = (err: Error): void => reject(err)
      this.server.once('error', onError)
      this.server.listen(this.port, this.host, () => {
        this.server.off('error', onError)
        const { port } = this.server.address() as AddressInfo
        const host = this.host.includes(':') ? `[${this.host}]` : this.host
        resolve({ port, url: `http://${host}:${port}` })
      })
    })
  }

  /** Stops accepting, closes idle keep-alive connections now and busy ones after their answer. */
  stop(): Promise<void> {
    if (!this.server.listening) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const grace = setTimeout(() => this.server.closeAllConnections(), HTTP_STOP_GRACE_MS)
      grace.unref()
      this.server.close((err) => {
        clearTimeout(grace)
        if (err) reject(err)
        else resolve()
      })
      this.server.closeIdleConnections()
    })
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const cors = this.cors
    if (cors !== undefined) {
      if (cors.isPreflight(req)) {
        cors.applyPreflight(req, res)
        res.statusCode = 204
        res.end()
        return
      }
      cors.applyActual(req, res)
    }
    switch (req.method) {
      case 'POST':
        this.onPost(req, res)
        return
      case 'GET':
      case 'HEAD':
        this.onHealth(res)
        return
      case 'OPTIONS':
        sendJson(res, 200, undefined)
        return
      default:
        res.setHeader('Allow', 'GET, HEAD, POST, OPTIONS')
        sendText(res, 405, 'method not allowed')
    }
  }

  private onPost(req: IncomingMessage, res: ServerResponse): void {
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > this.maxBodyBytes) {
      res.setHeader('Connection', 'close')
      sendText(res, 413, `content length too large (${declared}>${this.maxBodyBytes})`)
      req.resume()
      return
    }
    if (!ACCEPTED_CONTENT_TYPES.has(mediaType(req.headers['content-type']))) {
      sendText(res, 415, 'invalid content type, only application/json is supported')
      req.resume()
      return
    }
    const reading = req as ReadingRequest
    reading[kBody] = new BodyReader(this as RpcHttpServer<unknown>, res)
    reading.on('data', onBodyData)
    reading.on('end', onBodyEnd)
    reading.on('error', onBodyError)
  }

  /** @internal Runs the dispatcher on a complete body and writes its answer. Never rejects. */
  async answer(res: ServerResponse, body: string): Promise<void> {
    try {
      sendJson(res, 200, await this.dispatcher.handleBody(body))
    } catch {
      if (!res.headersSent) sendText(res, 500, 'internal server error')
    }
  }

  private onHealth(res: ServerResponse): void {
    let report: HealthReport
    try {
      report = this.health()
    } catch {
      report = { ok: false, body: undefined }
    }
    const status = report.ok ? 'ok' : 'unavailable'
    const extra = report.body
    const body =
      typeof extra === 'object' && extra !== null && !Array.isArray(extra) ? { status, ...extra } : { status }
    sendJson(res, report.ok ? 200 : 503, JSON.stringify(body))
  }
}

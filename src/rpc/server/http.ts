/**
 * The HTTP transport of JSON-RPC, answering as geth's rpc/http.go:
 *
 *   POST (any path) ── Content-Length > max? ──▶ 413 `content length too large (N>M)`
 *                   ── Content-Type not JSON? ──▶ 415 `invalid content type, only application/json is supported`
 *                   ── body (counted while streaming; over max ▶ 413) ──▶ dispatcher ──▶ 200 JSON
 *   GET / HEAD /ready ──▶ ready(): 200 or 503 with a JSON body (load balancers)
 *   GET / HEAD / and /health ──▶ health(): 200 or 503 with a JSON body
 *   GET / HEAD under a site's path (the built-in explorer, src/explorer) ──▶ site.serve(); any other path 404
 *   OPTIONS ──▶ CORS preflight, 204
 *   anything else ──▶ 405 `method not allowed`
 *
 * Public-endpoint protection (limits.ts), when configured: a Host outside the vhosts list is 403
 * `invalid host specified` before anything else; a body is parsed here, its items counted against
 * the client IP's token buckets and, over budget, answered 429 with Retry-After and -32005 per
 * call; connections over `maxConnections`, or over `maxConnectionsPerIp` from one address
 * (connections.ts), are closed at accept; a connection that sends no complete request head within
 * the header timeout (counted from accept, then from each next request's first byte) is cut with
 * 408, slow bodies at the read timeout. WebSocket messages draw on the same budgets (`budgets`, ws.ts).
 * stop() drains: new connections are refused, answers carry `Connection: close`, requests still
 * running after the grace period are cut (and counted).
 *
 * Transport errors are text/plain with a trailing newline (Go's http.Error). CORS headers follow
 * the allow-list (cors.ts). Connections are kept alive; stop() closes idle ones at once and busy
 * ones once their request is answered.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { RateLimitConfig, RpcNamespace } from '../../config/types.js'
import type { Namespace } from '../types.js'
import { ConnectionCap } from './connections.js'
import { CorsPolicy } from './cors.js'
import { type CallObserver, RpcDispatcher } from './dispatch.js'
import {
  clientAddress,
  clientAddressOf,
  type ClientBudgets,
  countCalls,
  limitExceededBody,
  ProxyList,
  RateLimiter,
  type Refusal,
  VhostPolicy,
} from './limits.js'
import { readPostBody } from './httpBody.js'
import { ACCEPTED_CONTENT_TYPES, probeOf, mediaType, sendJson, sendText, setPairs } from './respond.js'
import { type Reply, WireFront, type WireHandler, type WireRequest } from './wire.js'

/** How long an idle keep-alive connection stays open (geth's IdleTimeout). */
export const HTTP_IDLE_TIMEOUT_MS = 120_000
/** Time allowed to receive a whole request, headers and body (geth's ReadTimeout). */
export const HTTP_READ_TIMEOUT_MS = 30_000
/** After stop(), connections still busy this long are cut. */
export const HTTP_STOP_GRACE_MS = 5_000
/** How often node:http checks header/request timeouts (its default, 30 s, would let a slowloris hold a socket 3× the header timeout). */
export const HTTP_TIMEOUT_CHECK_MS = 1_000

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
  /** Items of one batch in progress at once (default BATCH_CONCURRENCY). */
  batchConcurrency?: number
  namespaces: readonly Namespace<Ctx>[]
  enabledApis: readonly RpcNamespace[]
  ctx: Ctx
  health: () => HealthReport
  /** GET /ready; absent = same as health. */
  ready?: () => HealthReport
  /** Told about handler bugs (errors that are not RpcErrors). */
  onInternalError?: (err: unknown, method: string) => void
  /** Host header names accepted (`*` any); absent or empty = no check. */
  vhosts?: readonly string[]
  /** Proxies whose X-Forwarded-For names the client. */
  trustedProxies?: readonly string[]
  /** Per-client-IP budgets; absent or all 0 = none. */
  rateLimit?: RateLimitConfig
  /** Most open connections; 0 or absent = no limit. */
  maxConnections?: number
  /** Most open connections from one client address (an IPv6 /64), trusted proxies exempt; 0 or absent = no limit. */
  maxConnectionsPerIp?: number
  headerTimeoutMs?: number
  readTimeoutMs?: number
  idleTimeoutMs?: number
  /** Response cap, bytes (dispatch.ts); 0 or absent = none. */
  maxResponseBytes?: number
  /** How long stop() lets running requests finish. */
  shutdownGraceMs?: number
  /** Metrics hooks (src/ops/metrics.ts). */
  metrics?: HttpObserver
  /** Plain JSON-RPC POSTs take the fast path (wire.ts); false = node:http parses every request. Default true. */
  fastPath?: boolean
  /** Fast-path connections read without the stream layer where Node allows (wireRead.ts); false = 'data' events. Default true. */
  directReads?: boolean
  /** Fast-path answers ready in one pass of the event loop are written together (wire.ts); false = each at once. Default true. */
  batchWrites?: boolean
  /** GET/HEAD pages besides the probes (the built-in explorer); absent = none. */
  site?: StaticSite
}

/**
 * Static pages served beside JSON-RPC on GET/HEAD (the built-in explorer, src/explorer, given by
 * node.ts: rpc cannot import a higher layer). serve() answers and returns true for a path it owns,
 * false (having written nothing) for any other.
 */
export interface StaticSite {
  serve(req: IncomingMessage, res: ServerResponse): boolean
}

/** What the transport tells metrics. */
export interface HttpObserver {
  /** Per call (batch items too): method, error code or undefined, seconds. */
  call: CallObserver
  /** A POST started (in-flight +1). */
  requestStarted(): void
  /** A POST's answer was sent or its connection closed (in-flight −1). */
  requestEnded(): void
  /** A batch of `items` arrived. */
  batch(items: number): void
  /** A body was refused by the rate limiter. */
  limited(parsed: unknown, refusal: Refusal): void
}

/** What stop() reports: requests that were running when it began, and those cut at the grace period. */
export interface DrainReport {
  inFlight: number
  cut: number
}

const NO_HEADERS: readonly string[] = []

export class RpcHttpServer<Ctx> implements WireHandler, ClientBudgets {
  readonly maxBodyBytes: number
  private readonly host: string
  private readonly port: number
  private readonly cors: CorsPolicy | undefined
  /** Shared with the WebSocket transport (ws.ts). */
  readonly dispatcher: RpcDispatcher<Ctx>
  private readonly health: () => HealthReport
  private readonly ready: () => HealthReport
  private readonly server: Server
  private readonly vhosts: VhostPolicy | undefined
  private readonly proxies: ProxyList
  private readonly limiter: RateLimiter | undefined
  private readonly metrics: HttpObserver | undefined
  private readonly shutdownGraceMs: number
  private readonly site: StaticSite | undefined
  /** The fast path in front of node:http; undefined when off. */
  private readonly wire: WireFront | undefined
  /** The per-address connection cap; undefined when off. */
  readonly connectionCap: ConnectionCap | undefined
  /** POSTs whose answer is not out yet. */
  private inFlight = 0
  private draining = false

  constructor(options: RpcHttpServerOptions<Ctx>) {
    this.maxBodyBytes = options.maxBodyBytes
    this.host = options.host
    this.port = options.port
    this.cors = CorsPolicy.fromOrigins(options.corsOrigins)
    this.metrics = options.metrics
    this.dispatcher = new RpcDispatcher({
      namespaces: options.namespaces,
      enabledApis: options.enabledApis,
      ctx: options.ctx,
      maxBatchItems: options.maxBatchItems,
      batchConcurrency: options.batchConcurrency,
      onInternalError: options.onInternalError,
      maxResponseBytes: options.maxResponseBytes,
      observe: options.metrics?.call,
    })
    this.health = options.health
    this.ready = options.ready ?? options.health
    const vhosts = options.vhosts ?? []
    this.vhosts = vhosts.length === 0 ? undefined : new VhostPolicy(vhosts)
    this.proxies = new ProxyList(options.trustedProxies ?? [])
    this.limiter = options.rateLimit === undefined ? undefined : RateLimiter.from(options.rateLimit)
    this.shutdownGraceMs = options.shutdownGraceMs ?? HTTP_STOP_GRACE_MS
    this.site = options.site
    const readTimeout = options.readTimeoutMs ?? HTTP_READ_TIMEOUT_MS
    this.server = createServer({
      keepAlive: true,
      keepAliveTimeout: options.idleTimeoutMs ?? HTTP_IDLE_TIMEOUT_MS,
      requestTimeout: readTimeout,
      // node:http wants headersTimeout <= requestTimeout
      headersTimeout: Math.min(options.headerTimeoutMs ?? HTTP_READ_TIMEOUT_MS, readTimeout),
      connectionsCheckingInterval: HTTP_TIMEOUT_CHECK_MS,
    })
    if ((options.maxConnections ?? 0) > 0) this.server.maxConnections = options.maxConnections as number
    this.server.on('request', this.onRequest.bind(this))
    this.wire =
      options.fastPath === false
        ? undefined
        : WireFront.install(this.server, this, {
            headerTimeoutMs: Math.min(options.headerTimeoutMs ?? HTTP_READ_TIMEOUT_MS, readTimeout),
            readTimeoutMs: readTimeout,
            idleTimeoutMs: options.idleTimeoutMs ?? HTTP_IDLE_TIMEOUT_MS,
            directReads: options.directReads,
            batchWrites: options.batchWrites,
          })
    // last: it must run before the fast path's (or node:http's) connection listener
    this.connectionCap = ConnectionCap.install(this.server, options.maxConnectionsPerIp ?? 0, this.proxies)
  }

  /** The per-IP budgets for the WebSocket transport; undefined when no budget is set. */
  get budgets(): ClientBudgets | undefined {
    return this.limiter === undefined ? undefined : this
  }

  /** @internal ClientBudgets: the client IP of a WebSocket upgrade. */
  clientOf(req: IncomingMessage): string {
    return clientAddress(req, this.proxies)
  }

  /** @internal ClientBudgets: charges one body or message, telling metrics of a refusal. */
  admit(client: string, parsed: unknown): Refusal | undefined {
    const limiter = this.limiter
    if (limiter === undefined) return undefined
    const refusal = limiter.admit(client, countCalls(parsed, this.dispatcher.methods), Date.now())
    if (refusal !== undefined) this.metrics?.limited(parsed, refusal)
    return refusal
  }

  /** True when plain POSTs take the fast path (wire.ts). */
  get fastPath(): boolean {
    return this.wire !== undefined
  }

  /** Connections the fast path holds now (the others are node:http's). */
  get fastConnections(): number {
    return this.wire?.connections.size ?? 0
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
        this.wire?.start(HTTP_TIMEOUT_CHECK_MS)
        resolve({ port, url: `http://${host}:${port}` })
      })
    })
  }

  /**
   * Stops accepting, closes idle keep-alive connections now and busy ones after their answer (sent
   * with `Connection: close`); requests still running after the grace period are cut.
   */
  stop(): Promise<DrainReport> {
    const report: DrainReport = { inFlight: this.inFlight, cut: 0 }
    this.draining = true
    this.limiter?.close()
    if (!this.server.listening) return Promise.resolve(report)
    return new Promise((resolve, reject) => {
      const grace = setTimeout(() => {
        report.cut = this.inFlight
        this.server.closeAllConnections()
        this.wire?.closeAll()
      }, this.shutdownGraceMs)
      grace.unref()
      this.server.close((err) => {
        clearTimeout(grace)
        this.wire?.stop()
        if (err) reject(err)
        else resolve(report)
      })
      this.server.closeIdleConnections()
      this.wire?.closeIdle()
    })
  }

  /** True once stop() began: /ready answers 503 so load balancers move on. */
  get isDraining(): boolean {
    return this.draining
  }

  /** @internal WireHandler: answers carry `Connection: close` once stop() began. */
  get closing(): boolean {
    return this.draining
  }

  /** @internal WireHandler: the fast path serves a POST that node:http would pass to onPost; the others (403, 413, 415) go to node:http. */
  accepts(req: WireRequest): boolean {
    if (this.vhosts !== undefined && !this.vhosts.allows(req.host)) return false
    if (req.contentLength > this.maxBodyBytes) return false
    return ACCEPTED_CONTENT_TYPES.has(mediaType(req.contentType))
  }

  /** @internal WireHandler: onPost and onBodyEnd for a request the fast path read. */
  serve(reply: Reply, req: WireRequest, body: string): void {
    this.inFlight++
    this.metrics?.requestStarted()
    const cors = this.cors === undefined ? NO_HEADERS : this.cors.actualHeadersFor(req.origin, 'POST')
    const client = clientAddressOf(req.peer, req.forwardedFor, this.proxies)
    void this.answer(reply, body, client, cors)
  }

  /** @internal WireHandler: a fast-path POST's answer is out or its connection closed. */
  answered(): void {
    this.postEnded()
  }

  /** @internal A POST's answer is out (or its connection closed). */
  postEnded(): void {
    this.inFlight--
    this.metrics?.requestEnded()
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    if (this.vhosts !== undefined && !this.vhosts.allows(req.headers.host)) {
      sendText(res, 403, 'invalid host specified')
      req.resume()
      return
    }
    if (this.draining) res.setHeader('Connection', 'close')
    const cors = this.cors
    let corsHeaders: readonly string[] = NO_HEADERS
    if (cors !== undefined) {
      if (cors.isPreflight(req)) {
        cors.applyPreflight(req, res)
        res.statusCode = 204
        res.end()
        return
      }
      // a POST's answer takes them in its one writeHead (sendAnswer)
      if (req.method === 'POST') corsHeaders = cors.actualHeaders(req)
      else cors.applyActual(req, res)
    }
    switch (req.method) {
      case 'POST':
        this.onPost(req, res, corsHeaders)
        return
      case 'GET':
      case 'HEAD': {
        const probe = probeOf(req.url)
        if (probe === undefined) {
          if (this.site === undefined || !this.site.serve(req, res)) sendText(res, 404, '404 page not found')
        } else this.onHealth(res, probe === 'ready' ? this.ready : this.health)
        return
      }
      case 'OPTIONS':
        sendJson(res, 200, undefined)
        return
      default:
        res.setHeader('Allow', 'GET, HEAD, POST, OPTIONS')
        sendText(res, 405, 'method not allowed')
    }
  }

  private onPost(req: IncomingMessage, res: ServerResponse, corsHeaders: readonly string[]): void {
    const declared = req.headers['content-length']
    if (declared !== undefined && Number(declared) > this.maxBodyBytes) {
      setPairs(res, corsHeaders)
      res.setHeader('Connection', 'close')
      sendText(res, 413, `content length too large (${declared}>${this.maxBodyBytes})`)
      req.resume()
      return
    }
    if (!ACCEPTED_CONTENT_TYPES.has(mediaType(req.headers['content-type']))) {
      setPairs(res, corsHeaders)
      sendText(res, 415, 'invalid content type, only application/json is supported')
      req.resume()
      return
    }
    this.inFlight++
    this.metrics?.requestStarted()
    readPostBody(this, req, res, clientAddress(req, this.proxies), corsHeaders)
  }

  /** @internal Runs the dispatcher on a complete body and writes its answer. Never rejects. */
  async answer(reply: Reply, body: string, client: string, headers: readonly string[] = []): Promise<void> {
    try {
      if (this.limiter === undefined && this.metrics === undefined) {
        // a read answered at once is written in this tick (dispatch.ts answerBody)
        const out = this.dispatcher.answerBody(body, { client })
        reply.json(200, out instanceof Promise ? await out : out, headers)
        return
      }
      let parsed: unknown
      try {
        parsed = JSON.parse(body)
      } catch {
        // not JSON (or blank): the dispatcher's own answer, charged as one request
        parsed = undefined
      }
      if (Array.isArray(parsed)) this.metrics?.batch(parsed.length)
      const refusal = this.admit(client, parsed)
      if (refusal !== undefined) {
        reply.json(429, limitExceededBody(parsed, refusal), [
          ...headers,
          'Retry-After',
          String(refusal.retryAfterSeconds),
        ])
        return
      }
      const session = { client }
      const out =
        parsed === undefined ? this.dispatcher.answerBody(body, session) : this.dispatcher.answerParsed(parsed, session)
      reply.json(200, out instanceof Promise ? await out : out, headers)
    } catch {
      reply.internalError()
    }
  }

  private onHealth(res: ServerResponse, check: () => HealthReport): void {
    let report: HealthReport
    try {
      report = check()
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

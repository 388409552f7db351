/**
 * JSON-RPC over WebSocket on the HTTP port: an `Upgrade: websocket` request to any path of the
 * JSON-RPC address becomes a connection (unless `[jsonrpc] ws = false`, then 400). Every message
 * goes through the same dispatcher as HTTP bodies, with the connection's session, so all methods
 * work and `eth_subscribe` / `eth_unsubscribe` manage the connection's subscriptions.
 *
 *   upgrade ─▶ Origin allowed by the CORS list (or absent)? ─no─▶ 403
 *           ─▶ connection (its client IP fixed at the upgrade, as HTTP finds it)
 *   message ─▶ budgets set? ─▶ parsed, charged to the client IP's buckets — the same ones its HTTP
 *                              requests draw on ─over─▶ answer: -32005 `limit exceeded` per call,
 *                              exactly HTTP's 429 body (no status line in a WebSocket)
 *           ─▶ dispatcher (text or parsed, with the session) ─▶ send answer
 *                                                          └─▶ session.activate() (notifications may flow)
 *   send(text): more than `ws_max_buffered_bytes` still unsent ─▶ the client is too slow: terminate
 *   every WS_PING_INTERVAL_MS a ping; no pong by the next one ─▶ terminate
 *   close ─▶ session.close() (its subscriptions end with it)
 */
import type { IncomingMessage, Server } from 'node:http'
import type { Duplex } from 'node:stream'
import { type RawData, type WebSocket, WebSocketServer } from 'ws'
import type { CorsPolicy } from './cors.js'
import type { RpcDispatcher, RpcSession } from './dispatch.js'
import { type ClientBudgets, limitExceededBody } from './limits.js'

/** A silent peer is pinged this often and dropped when the previous ping went unanswered (geth: 30 s). */
export const WS_PING_INTERVAL_MS = 30_000

/** The session of one connection, as the transport drives it. */
export interface WsSession extends RpcSession {
  /** Called after each answer is sent: subscriptions it created may now notify. */
  activate(): void
  close(): void
}

export interface RpcWebSocketOptions<Ctx> {
  dispatcher: RpcDispatcher<Ctx>
  /** false: upgrades are refused with 400. */
  enabled: boolean
  /** Largest message accepted, bytes. */
  maxPayloadBytes: number
  /** A client with more unsent bytes than this is disconnected. */
  maxBufferedBytes: number
  cors: CorsPolicy | undefined
  /** The per-IP budgets shared with HTTP (RpcHttpServer.budgets); absent = none. */
  budgets?: ClientBudgets
  /** Makes the session of a new connection; `send` delivers one text frame (buffer-bounded); `client` is its IP. */
  createSession(send: (text: string) => void, client: string): WsSession
}

class Connection {
  readonly ws: WebSocket
  readonly session: WsSession
  /** The IP the budgets charge ('' when there are none). */
  readonly client: string
  alive = true
  constructor(
    ws: WebSocket,
    client: string,
    createSession: (send: (text: string) => void, client: string) => WsSession,
    maxBuffered: number,
    address: string,
  ) {
    this.ws = ws
    this.client = client
    this.session = createSession((text) => sendBounded(ws, text, maxBuffered), address)
  }
}

/** The TCP socket under a ws connection (ws keeps it as `_socket`). */
type WithSocket = { _socket?: { cork(): void; uncork(): void; destroyed?: boolean } }

/** Sockets corked for the rest of this tick (see sendBounded). */
const corked = new Set<NonNullable<WithSocket['_socket']>>()
let uncorkScheduled = false

function uncorkAll(): void {
  uncorkScheduled = false
  for (const socket of corked) if (socket.destroyed !== true) socket.uncork()
  corked.clear()
}

/**
 * sendBounded sends one text frame. Frames sent to one connection in the same tick — a new head or
 * pending transaction fanned out to its subscriptions — leave in one socket write: the first
 * corks the socket, the end of the tick uncorks it (one writev instead of a syscall per frame).
 */
function sendBounded(ws: WebSocket, text: string, maxBuffered: number): void {
  if (ws.readyState !== ws.OPEN) return
  if (ws.bufferedAmount > maxBuffered) {
    // a close frame would queue behind the backlog: drop the connection at once
    ws.terminate()
    return
  }
  const socket = (ws as unknown as WithSocket)._socket
  if (socket !== undefined && !corked.has(socket)) {
    socket.cork()
    corked.add(socket)
    if (!uncorkScheduled) {
      uncorkScheduled = true
      process.nextTick(uncorkAll)
    }
  }
  ws.send(text)
}

function refuse(socket: Duplex, status: string): void {
  socket.end(`HTTP/1.1 ${status}\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`)
}

export class RpcWebSocketServer<Ctx> {
  readonly #o: RpcWebSocketOptions<Ctx>
  readonly #wss: WebSocketServer
  readonly #connections = new Set<Connection>()
  readonly #ping: NodeJS.Timeout

  constructor(http: Server, options: RpcWebSocketOptions<Ctx>) {
    this.#o = options
    this.#wss = new WebSocketServer({ noServer: true, maxPayload: options.maxPayloadBytes, perMessageDeflate: false })
    http.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => this.#onUpgrade(req, socket, head))
    this.#ping = setInterval(() => this.#pingAll(), WS_PING_INTERVAL_MS)
    this.#ping.unref()
  }

  get connections(): number {
    return this.#connections.size
  }

  /** Closes every connection (their subscriptions end) and stops accepting upgrades. */
  close(): void {
    clearInterval(this.#ping)
    for (const c of this.#connections) c.ws.terminate()
    this.#wss.close()
  }

  #onUpgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    if (!this.#o.enabled || (req.headers.upgrade ?? '').toLowerCase() !== 'websocket') {
      refuse(socket, '400 Bad Request')
      return
    }
    const origin = req.headers.origin
    if (origin !== undefined && !(this.#o.cors?.isOriginAllowed(origin) ?? false)) {
      refuse(socket, '403 Forbidden')
      return
    }
    this.#wss.handleUpgrade(req, socket, head, (ws) => this.#onConnection(ws, req))
  }

  #onConnection(ws: WebSocket, req: IncomingMessage): void {
    const client = this.#o.budgets === undefined ? '' : this.#o.budgets.clientOf(req)
    // subscription limits count per IP even where no budgets are configured
    const address = client !== '' ? client : (req.socket.remoteAddress ?? '')
    const conn = new Connection(ws, client, this.#o.createSession, this.#o.maxBufferedBytes, address)
    this.#connections.add(conn)
    ws.on('message', (data: RawData) => this.#onMessage(conn, data))
    ws.on('pong', () => {
      conn.alive = true
    })
    ws.on('error', () => ws.terminate())
    ws.on('close', () => {
      this.#connections.delete(conn)
      conn.session.close()
    })
  }

  #onMessage(conn: Connection, data: RawData): void {
    const bytes = Array.isArray(data) ? Buffer.concat(data) : Buffer.isBuffer(data) ? data : Buffer.from(data)
    const text = bytes.toString('utf8')
    const budgets = this.#o.budgets
    let answer: Promise<string | undefined>
    if (budgets === undefined) answer = this.#o.dispatcher.handleBody(text, conn.session)
    else {
      let parsed: unknown
      try {
        parsed = JSON.parse(text)
      } catch {
        // not JSON (or blank): the dispatcher's own answer, charged as one request, as over HTTP
        parsed = undefined
      }
      const refusal = budgets.admit(conn.client, parsed)
      if (refusal !== undefined) {
        sendBounded(conn.ws, limitExceededBody(parsed, refusal), this.#o.maxBufferedBytes)
        return
      }
      answer =
        parsed === undefined
          ? this.#o.dispatcher.handleBody(text, conn.session)
          : this.#o.dispatcher.handleParsed(parsed, conn.session)
    }
    void answer.then((out) => {
      if (out !== undefined) sendBounded(conn.ws, out, this.#o.maxBufferedBytes)
      conn.session.activate()
    })
  }

  #pingAll(): void {
    for (const c of this.#connections) {
      if (!c.alive) {
        c.ws.terminate()
        continue
      }
      c.alive = false
      c.ws.ping()
    }
  }
}

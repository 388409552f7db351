/**
 * The HTTP/1.1 fast path of the JSON-RPC transport. node:http spends about half of a small
 * request's time in its own machinery (IncomingMessage/ServerResponse objects, header maps,
 * stream events); a JSON-RPC POST needs five headers and one write. So each connection the
 * listening node:http server accepts starts here:
 *
 *   bytes ──▶ `POST <path> HTTP/1.1`, plain headers, Content-Length ──▶ handler.accepts? ──▶ body ──▶ handler.serve ──▶ one write, at the end of the event loop's pass
 *         └─ anything else (GET, OPTIONS, upgrades, chunked or Expect bodies, HTTP/1.0, odd or
 *            oversized headers, a refused Host/Content-Type/size) ──▶ the connection is handed,
 *            unread bytes first, to node:http's own connection listener, which owns it from then on
 *
 * So every answer that is not a plain JSON-RPC POST (errors 4xx, health, CORS preflights,
 * WebSocket upgrades, malformed requests) keeps coming from node:http and stays exactly as it was;
 * the fast path answers byte-for-byte as node:http would (same status line, header order, Date,
 * keep-alive). Requests on one connection are answered in order, one at a time (pipelined bytes
 * wait in the buffer). Timeouts follow node:http's: a request whose headers (or whole body) do not
 * arrive within the header (read) timeout is answered 408 and closed — the first request's clock
 * starts at accept, so a socket that never sends a byte is cut at the header timeout too; between
 * requests of a keep-alive connection the idle timeout applies, and the next request's clock starts
 * at its first byte. Checked by one sweep per HTTP_TIMEOUT_CHECK_MS, as node:http does. A head with
 * a bare CR or LF line end goes to node:http at once (it answers 400), not waited on for a CRLFCRLF
 * that will not come.
 */
import type { Server } from 'node:http'
import type { Socket } from 'node:net'
import type { Answer } from './dispatch.js'
import { hasLoneLineEnd, parseHead, type WireRequest } from './wireHead.js'
import { readDirect } from './wireRead.js'

export type { WireRequest } from './wireHead.js'

/** Largest request head the fast path reads (node:http's default --max-http-header-size); a longer one goes to node:http, which answers 431. */
export const WIRE_MAX_HEAD_BYTES = 16 * 1024
/** Pipelined bytes buffered behind a running request (or an unread answer) before the socket is paused. */
export const WIRE_MAX_PIPELINED_BYTES = 64 * 1024

const CRLFCRLF = Buffer.from('\r\n\r\n')
/** node:http's answer to a request that took too long to arrive. */
const REQUEST_TIMEOUT_ANSWER = 'HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n'
const STATUS_LINES: Record<number, string> = {
  200: 'HTTP/1.1 200 OK\r\n',
  429: 'HTTP/1.1 429 Too Many Requests\r\n',
  500: 'HTTP/1.1 500 Internal Server Error\r\n',
}

/** Where a JSON-RPC answer goes: a fast-path connection, or a node:http response (http.ts). */
export interface Reply {
  /** A JSON body (undefined = empty) with the status and extra header pairs (name, value, …). */
  json(status: number, body: Answer, headers: readonly string[]): void
  /** 500, text/plain, as Go's http.Error. */
  internalError(): void
}

/** What the transport decides per request (http.ts). */
export interface WireHandler {
  /** After the headers: true to serve the request on the fast path, false to hand the connection to node:http. */
  accepts(req: WireRequest): boolean
  /** The whole body is in: answer through `reply` (now or later, exactly once). */
  serve(reply: Reply, req: WireRequest, body: string): void
  /** A served request's answer is out, or its connection closed first. */
  answered(): void
  /** The connection closes on its answer (the server is draining). */
  readonly closing: boolean
}

export interface WireOptions {
  headerTimeoutMs: number
  readTimeoutMs: number
  idleTimeoutMs: number
  /** Connections read without the stream layer where Node allows (wireRead.ts); false = 'data' events. Default true. */
  directReads?: boolean
  /** Answers ready in one pass of the event loop are written together at its end; false = each at once. Default true. */
  batchWrites?: boolean
}

/**
 * The fast path in front of one node:http server: takes over its `connection` listener (node:http
 * registers exactly one) and calls it for connections it hands over.
 */
export class WireFront {
  readonly handler: WireHandler
  readonly options: WireOptions
  /** Connections still on the fast path. */
  readonly connections = new Set<WireConnection>()
  /** `Keep-Alive: timeout=N` as node:http writes it. */
  readonly keepAliveTail: string
  private readonly nodeListener: (socket: Socket) => void
  private readonly server: Server
  private sweep: NodeJS.Timeout | undefined
  /** Connections whose answer waits for the end of this pass of the event loop (in order), and whether a flush is due. */
  private waiting: WireConnection[] = []
  private flushScheduled = false
  private dateSecond = 0
  private dateText = ''

  private constructor(
    server: Server,
    nodeListener: (socket: Socket) => void,
    handler: WireHandler,
    options: WireOptions,
  ) {
    this.server = server
    this.nodeListener = nodeListener
    this.handler = handler
    this.options = options
    this.keepAliveTail = `Connection: keep-alive\r\nKeep-Alive: timeout=${Math.floor(options.idleTimeoutMs / 1000)}\r\n\r\n`
  }

  /** Puts the fast path in front of `server`; undefined (node:http serves alone) if its listeners are not the expected one. */
  static install(server: Server, handler: WireHandler, options: WireOptions): WireFront | undefined {
    const listeners = server.listeners('connection')
    if (listeners.length !== 1) return undefined
    const nodeListener = listeners[0] as (socket: Socket) => void
    const front = new WireFront(server, nodeListener, handler, options)
    server.removeListener('connection', nodeListener)
    server.on('connection', (socket: Socket) => front.adopt(socket))
    return front
  }

  /** Starts the timeout sweep (on listen). */
  start(checkMs: number): void {
    if (this.sweep !== undefined) return
    this.sweep = setInterval(() => this.checkTimeouts(Date.now()), checkMs)
    this.sweep.unref()
  }

  /** Stops the sweep (on close). */
  stop(): void {
    if (this.sweep !== undefined) clearInterval(this.sweep)
    this.sweep = undefined
  }

  /** The Date header's value, formatted once per second as node:http does. */
  date(now: number): string {
    const second = now - (now % 1000)
    if (second !== this.dateSecond) {
      this.dateSecond = second
      this.dateText = new Date(second).toUTCString()
    }
    return this.dateText
  }

  /** Closes fast-path connections with nothing under way (node:http's closeIdleConnections). */
  closeIdle(): void {
    for (const conn of this.connections) if (conn.idle) conn.socket.destroy()
  }

  /** Closes every fast-path connection (node:http's closeAllConnections). */
  closeAll(): void {
    for (const conn of this.connections) conn.socket.destroy()
  }

  /** @internal Holds `conn`'s answer until the end of this pass of the event loop (send()). */
  defer(conn: WireConnection): void {
    this.waiting.push(conn)
    if (!this.flushScheduled) setImmediate(() => this.flush())
    this.flushScheduled = true
  }

  /** Writes the answers held in this pass; answers they let through (pipelined requests) wait for the next. */
  private flush(): void {
    this.flushScheduled = false
    const waiting = this.waiting
    this.waiting = []
    for (const conn of waiting) conn.writeHeld()
  }

  /** @internal Gives the socket, with `unread` bytes put back, to node:http. */
  handOver(conn: WireConnection, unread: Buffer | undefined): void {
    this.connections.delete(conn)
    const socket = conn.socket
    socket.removeListener('data', onWireData)
    socket.removeListener('end', onWireEnd)
    socket.removeListener('close', onWireClose)
    socket.removeListener('error', onWireError)
    socket.removeListener('drain', onWireDrain)
    // node:http registers its 'data' listener first, so the put-back bytes reach its parser at once
    this.nodeListener.call(this.server, socket)
    if (unread !== undefined && unread.length > 0) socket.unshift(unread)
    if (socket.isPaused()) socket.resume()
  }

  private adopt(socket: Socket): void {
    const conn = new WireConnection(this, socket)
    this.connections.add(conn)
    ;(socket as WireSocket)[kConn] = conn
    if (this.options.directReads === false || !readDirect(socket, (bytes) => conn.read(bytes)))
      socket.on('data', onWireData)
    socket.on('end', onWireEnd)
    socket.on('close', onWireClose)
    socket.on('error', onWireError)
  }

  private checkTimeouts(now: number): void {
    const { headerTimeoutMs, readTimeoutMs, idleTimeoutMs } = this.options
    for (const conn of this.connections) {
      if (conn.busy || conn.blocked) continue
      if (conn.requestStart > 0) {
        const limit = conn.head === undefined ? headerTimeoutMs : readTimeoutMs
        if (now - conn.requestStart > limit) conn.timeOut()
      } else if (now - conn.lastActive > idleTimeoutMs) {
        conn.socket.destroy()
      }
    }
  }
}

const kConn = Symbol('ibex.rpc.wire')
type WireSocket = Socket & { [kConn]: WireConnection }

function onWireData(this: WireSocket, chunk: Buffer): void {
  this[kConn].receive(chunk)
}

function onWireEnd(this: WireSocket): void {
  this[kConn].peerEnded()
}

function onWireClose(this: WireSocket): void {
  this[kConn].closed()
}

function onWireError(this: WireSocket): void {
  this.destroy()
}

function onWireDrain(this: WireSocket): void {
  this[kConn].drained()
}

/** One connection on the fast path: its buffered bytes and the request under way. */
export class WireConnection implements Reply {
  readonly front: WireFront
  readonly socket: Socket
  /** Bytes received and not yet consumed; starts at a request's first byte. */
  private buffered: Buffer | undefined
  /** The current request's headers, once complete. */
  head: WireRequest | undefined
  /** Offset of the body in `buffered`, once the headers are complete. */
  private bodyStart = 0
  /** Pieces of a body received after `buffered`, not yet joined to it, and their bytes. */
  private pieces: Buffer[] = []
  private pieceBytes = 0
  /** A request is being answered. */
  busy = false
  /** When the current request's first byte came, or the connection was accepted (0 = none under way: idle between requests). */
  requestStart: number
  lastActive: number
  /** The answer under way closes the connection. */
  private closeAfter = false
  /** The peer sent FIN. */
  private ended = false
  private gone = false
  /** node:http owns the connection now. */
  private handedOver = false
  /** Inside pump(): an answer written synchronously lets the loop go on rather than recursing. */
  private pumping = false
  /** The client is not reading its answers (the socket's write buffer is full): no new request is taken until it drains. */
  blocked = false
  /** An answer held until the end of this pass of the event loop (send()): its head and body. */
  private heldHead = ''
  private heldBody: Answer = undefined

  constructor(front: WireFront, socket: Socket) {
    this.front = front
    this.socket = socket
    this.lastActive = Date.now()
    // node:http and Go both count the first request's header time from accept
    this.requestStart = this.lastActive
  }

  /** Nothing of a request received and nothing being answered (a fresh, silent connection too). */
  get idle(): boolean {
    return !this.busy && this.buffered === undefined
  }

  receive(chunk: Buffer): void {
    if (this.gone) return
    const now = Date.now()
    this.lastActive = now
    if (this.buffered === undefined) {
      this.buffered = chunk
      if (this.requestStart === 0) this.requestStart = now
    } else if (this.head !== undefined && !this.busy) {
      // a body arriving in pieces: joined once it is all there, not re-copied per piece
      this.pieces.push(chunk)
      this.pieceBytes += chunk.length
      if (this.buffered.length + this.pieceBytes < this.bodyStart + this.head.contentLength) return
      this.buffered = Buffer.concat([this.buffered, ...this.pieces])
      this.pieces = []
      this.pieceBytes = 0
    } else {
      this.buffered = Buffer.concat([this.buffered, chunk])
    }
    if (this.busy || this.blocked) {
      if (this.buffered.length > WIRE_MAX_PIPELINED_BYTES) this.socket.pause()
      return
    }
    this.pump()
  }

  /**
   * A read's bytes, when the connection reads without the stream layer (wireRead.ts): taken here
   * while on the fast path, pushed into the socket's stream for node:http (or a WebSocket) after
   * the hand-over, as a plain read would. False stops reading until the socket is resumed.
   */
  read(bytes: Buffer): boolean {
    if (this.handedOver) return this.socket.push(bytes)
    this.receive(bytes)
    return true
  }

  /** Takes complete requests off the buffer while nothing is being answered. */
  private pump(): void {
    this.pumping = true
    try {
      this.takeRequests()
    } finally {
      this.pumping = false
    }
    if (this.buffered === undefined && this.ended && !this.busy && !this.gone) this.socket.end()
  }

  private takeRequests(): void {
    while (!this.busy && !this.blocked && !this.gone && this.buffered !== undefined) {
      const buf = this.buffered
      if (this.head === undefined) {
        if (!this.readHead(buf)) return
        if (this.gone) return
      }
      const head = this.head as WireRequest
      const end = this.bodyStart + head.contentLength
      if (buf.length < end) return
      const body = buf.toString('utf8', this.bodyStart, end)
      this.head = undefined
      if (end === buf.length) {
        this.buffered = undefined
        this.requestStart = 0
      } else {
        this.buffered = buf.subarray(end)
        this.requestStart = Date.now()
      }
      this.busy = true
      this.closeAfter = head.close
      this.front.handler.serve(this, head, body)
    }
  }

  /**
   * Parses the request head at the start of `buf`. False when it is not all there yet (or the
   * connection was handed over); true with `head` and `bodyStart` set.
   */
  private readHead(buf: Buffer): boolean {
    // 'POST '
    if (
      buf.length >= 5 &&
      !(buf[0] === 0x50 && buf[1] === 0x4f && buf[2] === 0x53 && buf[3] === 0x54 && buf[4] === 0x20)
    ) {
      this.handOver()
      return false
    }
    const end = buf.indexOf(CRLFCRLF)
    if (end < 0) {
      if (buf.length > WIRE_MAX_HEAD_BYTES || hasLoneLineEnd(buf)) this.handOver()
      return false
    }
    if (end > WIRE_MAX_HEAD_BYTES) {
      this.handOver()
      return false
    }
    const head = parseHead(buf.toString('latin1', 0, end), this.socket.remoteAddress ?? '')
    if (head === undefined || !this.front.handler.accepts(head)) {
      this.handOver()
      return false
    }
    this.head = head
    this.bodyStart = end + 4
    return true
  }

  private handOver(): void {
    const unread = this.pieces.length === 0 ? this.buffered : Buffer.concat([this.buffered as Buffer, ...this.pieces])
    this.pieces = []
    this.buffered = undefined
    this.head = undefined
    this.gone = true
    this.handedOver = true
    this.front.handOver(this, unread)
  }

  /** The client read enough of its answers: take requests again. */
  drained(): void {
    this.blocked = false
    if (this.gone) return
    if (this.socket.isPaused()) this.socket.resume()
    this.pump()
  }

  /** The peer half-closed: finish the answer under way, then close. */
  peerEnded(): void {
    this.ended = true
    if (!this.busy) this.socket.end()
  }

  closed(): void {
    this.gone = true
    this.buffered = undefined
    this.front.connections.delete(this)
    if (this.busy) {
      // the answer, when it comes, is dropped (write sees busy false)
      this.busy = false
      this.front.handler.answered()
    }
  }

  /** The request took too long to arrive: node:http's 408, then close. */
  timeOut(): void {
    this.gone = true
    this.front.connections.delete(this)
    this.socket.end(REQUEST_TIMEOUT_ANSWER)
    this.socket.destroySoon()
  }

  json(status: number, body: Answer, headers: readonly string[]): void {
    const length = body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length
    let text = STATUS_LINES[status] ?? `HTTP/1.1 ${status} \r\n`
    for (let i = 0; i < headers.length; i += 2) text += `${headers[i]}: ${headers[i + 1]}\r\n`
    text += `Content-Type: application/json\r\nContent-Length: ${length}\r\n`
    this.send(text, body)
  }

  internalError(): void {
    const body = 'internal server error\n'
    this.send(
      `${STATUS_LINES[500]}Content-Type: text/plain; charset=utf-8\r\nX-Content-Type-Options: nosniff\r\nContent-Length: ${body.length}\r\n`,
      body,
    )
  }

  /**
   * Answers the request under way (head without Date/Connection, and body, in one write), then takes
   * the next. The write waits for the end of the event loop's pass (WireFront.flush): the answers of
   * that pass leave together and wake the client once, which costs both sides less on loopback
   * (bench/README.md). The connection stays busy until then; a closing answer is written at once.
   */
  private send(head: string, body: Answer): void {
    if (!this.busy) return
    if (this.front.options.batchWrites !== false && !this.closeAfter && !this.front.handler.closing) {
      this.heldHead = head
      this.heldBody = body
      this.front.defer(this)
      return
    }
    this.write(head, body)
  }

  /** @internal Writes the answer send() held (nothing if the connection closed meanwhile). */
  writeHeld(): void {
    const body = this.heldBody
    this.heldBody = undefined
    this.write(this.heldHead, body)
  }

  private write(head: string, body: Answer): void {
    if (!this.busy) return
    this.busy = false
    const socket = this.socket
    if (!socket.destroyed && socket.writable) {
      const close = this.closeAfter || this.front.handler.closing
      const now = Date.now()
      this.lastActive = now
      const tail = `Date: ${this.front.date(now)}\r\n${close ? 'Connection: close\r\n\r\n' : this.front.keepAliveTail}`
      let flowing: boolean
      if (body === undefined) flowing = socket.write(head + tail, 'latin1')
      else if (typeof body === 'string') flowing = socket.write(head + tail + body)
      else {
        socket.cork()
        socket.write(head + tail, 'latin1')
        flowing = socket.write(body)
        socket.uncork()
      }
      if (!flowing && !close) {
        // as node:http: a client that does not read its answers gets no new ones computed
        this.blocked = true
        socket.once('drain', onWireDrain)
      }
      if (close) {
        this.gone = true
        this.buffered = undefined
        this.front.connections.delete(this)
        socket.end()
      }
    }
    this.front.handler.answered()
    if (this.gone || this.blocked) return
    if (this.socket.isPaused()) this.socket.resume()
    if (!this.pumping) this.pump()
  }
}

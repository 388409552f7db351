/**
 * A minimal keep-alive HTTP/1.1 client connection for load generation: it writes prebuilt
 * request bytes and parses just enough of each answer (status, Content-Length or chunked body)
 * to know where it ends and how many JSON-RPC error objects it carries. One request in flight
 * per connection (no pipelining), like a proxy's upstream pool.
 *
 * Cheaper per request than undici or autocannon, so on a 2-core box the generator leaves more
 * CPU to the node under test; every node of a run is measured with the same client.
 */
import { connect, type Socket } from 'node:net'

/** What one answer looked like. */
export interface Answer {
  status: number
  /** JSON-RPC error objects (`"error":{`) in the body: 1 for a failed call, n for n failed batch items. */
  rpcErrors: number
  bodyBytes: number
  /** The body, when the connection was asked to keep it (`keepBodies`). */
  body?: Buffer
}

const HEADER_END = Buffer.from('\r\n\r\n')
const ERROR_MARK = Buffer.from('"error":{')
const ERROR_MARK_SPACED = Buffer.from('"error": {')

/** Prebuilt bytes of `POST / HTTP/1.1` with a JSON body. */
export function buildRequest(host: string, path: string, body: string): Buffer {
  const payload = Buffer.from(body)
  const head = `POST ${path} HTTP/1.1\r\nHost: ${host}\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`
  return Buffer.concat([Buffer.from(head, 'latin1'), payload])
}

function countMarks(body: Buffer): number {
  let n = 0
  for (const mark of [ERROR_MARK, ERROR_MARK_SPACED]) {
    let at = body.indexOf(mark)
    while (at >= 0) {
      n++
      at = body.indexOf(mark, at + mark.length)
    }
  }
  return n
}

/** Parser states: reading headers, a Content-Length body, a chunked body. */
const HEAD = 0
const BODY = 1
const CHUNKED = 2

export class Http1Connection {
  readonly socket: Socket
  #buf: Buffer = Buffer.alloc(0)
  #state: number = HEAD
  #status = 0
  #need = 0
  #chunks: Buffer[] = []
  #bodyBytes = 0
  #onAnswer: ((a: Answer) => void) | undefined
  #onError: ((err: Error) => void) | undefined
  busy = false
  closed = false
  /** Hand each answer's body to the callback (diagnostics; the load path does not need it). */
  keepBodies = false

  constructor(port: number, host: string, onClose: (conn: Http1Connection, err: Error | undefined) => void) {
    this.socket = connect({ port, host, noDelay: true })
    this.socket.on('data', (d: Buffer) => this.#onData(d))
    this.socket.on('error', (err) => {
      this.#fail(err)
    })
    this.socket.on('close', () => {
      this.closed = true
      this.#fail(new Error('connection closed'))
      onClose(this, undefined)
    })
  }

  /** Resolves once connected. */
  ready(): Promise<void> {
    return new Promise((ok, fail) => {
      if (!this.socket.connecting) return ok()
      this.socket.once('connect', () => ok())
      this.socket.once('error', fail)
    })
  }

  /** Sends one request; `onAnswer` or `onError` is called exactly once. */
  send(request: Buffer, onAnswer: (a: Answer) => void, onError: (err: Error) => void): void {
    this.busy = true
    this.#onAnswer = onAnswer
    this.#onError = onError
    this.socket.write(request)
  }

  close(): void {
    this.socket.destroy()
  }

  #fail(err: Error): void {
    const cb = this.#onError
    this.#onAnswer = undefined
    this.#onError = undefined
    this.busy = false
    cb?.(err)
  }

  #done(): void {
    const body = this.#chunks.length === 1 ? (this.#chunks[0] as Buffer) : Buffer.concat(this.#chunks)
    const answer: Answer = { status: this.#status, rpcErrors: countMarks(body), bodyBytes: this.#bodyBytes }
    if (this.keepBodies) answer.body = body
    this.#chunks = []
    this.#bodyBytes = 0
    this.#state = HEAD
    const cb = this.#onAnswer
    this.#onAnswer = undefined
    this.#onError = undefined
    this.busy = false
    cb?.(answer)
  }

  #onData(d: Buffer): void {
    this.#buf = this.#buf.length === 0 ? d : Buffer.concat([this.#buf, d])
    for (;;) {
      if (this.#state === HEAD) {
        const end = this.#buf.indexOf(HEADER_END)
        if (end < 0) return
        const head = this.#buf.toString('latin1', 0, end).toLowerCase()
        this.#status = Number(head.slice(9, 12))
        this.#buf = this.#buf.subarray(end + 4)
        const cl = head.indexOf('\r\ncontent-length:')
        if (cl >= 0) {
          const lineEnd = head.indexOf('\r\n', cl + 2)
          this.#need = Number(head.slice(cl + 17, lineEnd < 0 ? undefined : lineEnd).trim())
          this.#state = BODY
        } else if (head.includes('\r\ntransfer-encoding: chunked')) {
          this.#need = -1
          this.#state = CHUNKED
        } else {
          this.#need = 0
          this.#state = BODY
        }
      }
      if (this.#state === BODY) {
        const take = Math.min(this.#need, this.#buf.length)
        if (take > 0) {
          this.#chunks.push(this.#buf.subarray(0, take))
          this.#bodyBytes += take
          this.#buf = this.#buf.subarray(take)
          this.#need -= take
        }
        if (this.#need > 0) return
        this.#done()
        if (this.#buf.length === 0) return
        continue
      }
      // chunked: size line, data, CRLF; a 0 size ends the body (no trailers expected)
      if (this.#need < 0) {
        const eol = this.#buf.indexOf('\r\n')
        if (eol < 0) return
        const size = Number.parseInt(this.#buf.toString('latin1', 0, eol), 16)
        if (size === 0) {
          if (this.#buf.length < eol + 4) return
          this.#buf = this.#buf.subarray(eol + 4)
          this.#done()
          if (this.#buf.length === 0) return
          continue
        }
        this.#buf = this.#buf.subarray(eol + 2)
        this.#need = size
      }
      if (this.#buf.length < this.#need + 2) return
      this.#chunks.push(this.#buf.subarray(0, this.#need))
      this.#bodyBytes += this.#need
      this.#buf = this.#buf.subarray(this.#need + 2)
      this.#need = -1
    }
  }
}

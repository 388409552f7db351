/**
 * Reading a POST body on node:http's path (the fast path, wire.ts, reads its own): counted while
 * it streams, refused 413 past the server's maximum, then handed to the server's answer() as text.
 * The state lives on the request and the response, so the stream listeners are plain functions
 * (no closure per request).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Answer } from './dispatch.js'
import { sendAnswer, sendText, setPairs } from './respond.js'
import type { Reply } from './wire.js'

/** What the body reader needs of its server (RpcHttpServer). */
export interface BodyServer {
  readonly maxBodyBytes: number
  /** Runs the dispatcher on a complete body and writes its answer. Never rejects. */
  answer(reply: Reply, body: string, client: string, headers: readonly string[]): Promise<void>
  /** A POST's answer is out (or its connection closed). */
  postEnded(): void
}

/** Per-request body reading state, kept on the request so the stream listeners need no closure; where its answer goes. */
class BodyReader implements Reply {
  readonly server: BodyServer
  readonly res: ServerResponse
  /** The client IP the rate limiter charges ('' when it is off). */
  readonly client: string
  /** Headers of the answer besides Content-Type (CORS), name, value pairs. */
  readonly headers: readonly string[]
  chunks: Buffer[]
  received: number
  done: boolean
  constructor(server: BodyServer, res: ServerResponse, client: string, headers: readonly string[]) {
    this.server = server
    this.res = res
    this.client = client
    this.headers = headers
    this.chunks = []
    this.received = 0
    this.done = false
  }

  json(status: number, body: Answer, headers: readonly string[]): void {
    sendAnswer(this.res, status, body, headers)
  }

  internalError(): void {
    sendText(this.res, 500, 'internal server error')
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
    setPairs(reader.res, reader.headers)
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
  void reader.server.answer(reader, text, reader.client, reader.headers)
}

const kServer = Symbol('ibex.rpc.server')
type TrackedResponse = ServerResponse & { [kServer]: BodyServer }

/** A POST's answer is out or its connection is gone: it is no longer in flight. */
function onPostClosed(this: TrackedResponse): void {
  this[kServer].postEnded()
}

function onBodyError(this: ReadingRequest): void {
  const reader = this[kBody]
  reader.done = true
  reader.chunks = []
}

/**
 * Reads the body of a POST that passed the header checks, then answers it through `server`;
 * `server.postEnded()` is called once its response closes.
 */
export function readPostBody(
  server: BodyServer,
  req: IncomingMessage,
  res: ServerResponse,
  client: string,
  corsHeaders: readonly string[],
): void {
  const tracked = res as TrackedResponse
  tracked[kServer] = server
  // the response is used once: a plain listener, no once() wrapper
  tracked.on('close', onPostClosed)
  const reading = req as ReadingRequest
  reading[kBody] = new BodyReader(server, res, client, corsHeaders)
  reading.on('data', onBodyData)
  reading.on('end', onBodyEnd)
  reading.on('error', onBodyError)
}

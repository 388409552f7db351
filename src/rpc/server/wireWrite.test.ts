import { createServer, type Server } from 'node:http'
import { connect, type AddressInfo, type Socket } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'
import { type Reply, type WireConnection, WireFront, type WireHandler, type WireRequest } from './wire.js'

// Answers of one pass of the event loop are held and written together at its end (wire.ts
// send/flush): held, not lost, in order, and decided (keep-alive or close) when written.

const open: Array<() => void> = []
afterEach(() => {
  for (const close of open.splice(0)) close()
})

interface Seen {
  /** Bytes the server's socket had written right after each answer was given. */
  writtenAtAnswer: number[]
  answered: number
}

/** A node:http server with the fast path in front and a handler answering `"<id>"` at once. */
async function front(
  batchWrites: boolean,
  onServe?: (reply: Reply, handler: TestHandler) => void,
): Promise<{ port: number; seen: Seen; handler: TestHandler }> {
  const seen: Seen = { writtenAtAnswer: [], answered: 0 }
  const handler = new TestHandler(seen, onServe)
  const server: Server = createServer()
  WireFront.install(server, handler, { headerTimeoutMs: 5000, readTimeoutMs: 5000, idleTimeoutMs: 5000, batchWrites })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  open.push(() => {
    server.closeAllConnections()
    server.close()
  })
  return { port: (server.address() as AddressInfo).port, seen, handler }
}

class TestHandler implements WireHandler {
  closing = false
  constructor(
    readonly seen: Seen,
    readonly onServe?: (reply: Reply, handler: TestHandler) => void,
  ) {}
  accepts(_req: WireRequest): boolean {
    return true
  }
  serve(reply: Reply, _req: WireRequest, body: string): void {
    const id = (JSON.parse(body) as { id: number }).id
    reply.json(200, `"${id}"`, [])
    this.seen.writtenAtAnswer.push((reply as WireConnection).socket.bytesWritten)
    this.onServe?.(reply, this)
  }
  answered(): void {
    this.seen.answered++
  }
}

const post = (id: number): string => {
  const body = JSON.stringify({ id })
  return `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n${body}`
}

async function exchange(port: number, bytes: string, answers: number): Promise<{ text: string; closed: boolean }> {
  const socket: Socket = connect({ host: '127.0.0.1', port })
  open.push(() => socket.destroy())
  let text = ''
  let closed = false
  socket.on('data', (d: Buffer) => {
    text += d.toString('latin1')
  })
  socket.on('close', () => {
    closed = true
  })
  socket.write(bytes)
  for (let i = 0; i < 1000 && (text.match(/HTTP\/1\.1 /g) ?? []).length < answers && !closed; i++)
    await new Promise((r) => setTimeout(r, 5))
  return { text, closed }
}

const bodies = (text: string): string[] =>
  text
    .split('\r\n\r\n')
    .slice(1)
    .map((part) => part.split('HTTP/1.1')[0] ?? '')

describe('answers written at the end of the event loop pass', () => {
  it('holds an answer until the end of the pass, then writes it', async () => {
    const { port, seen } = await front(true)
    const { text } = await exchange(port, post(7), 1)
    expect(bodies(text)).toEqual(['"7"'])
    expect(seen.writtenAtAnswer).toEqual([0])
    expect(seen.answered).toBe(1)
  })

  it('writes at once when batching is off', async () => {
    const { port, seen } = await front(false)
    const { text } = await exchange(port, post(7), 1)
    expect(bodies(text)).toEqual(['"7"'])
    expect(seen.writtenAtAnswer[0]).toBeGreaterThan(0)
  })

  it('answers pipelined requests in order, one held answer at a time per connection', async () => {
    const { port, seen } = await front(true)
    const ids = Array.from({ length: 25 }, (_, i) => i * 3)
    const { text } = await exchange(port, ids.map(post).join(''), ids.length)
    expect(bodies(text)).toEqual(ids.map((id) => `"${id}"`))
    expect(seen.answered).toBe(ids.length)
    // each next request was taken only after the answer before it was out
    for (let i = 1; i < ids.length; i++)
      expect(seen.writtenAtAnswer[i] as number).toBeGreaterThan(seen.writtenAtAnswer[i - 1] as number)
  })

  it('decides keep-alive when it writes: a drain begun while an answer is held closes the connection', async () => {
    const { port } = await front(true, (_reply, handler) => {
      handler.closing = true
    })
    const { text, closed } = await exchange(port, post(1) + post(2), 2)
    expect(bodies(text)).toEqual(['"1"'])
    expect(text).toContain('Connection: close')
    expect(closed).toBe(true)
  })

  it('drops a held answer whose connection was destroyed, and counts it answered once', async () => {
    const { port, seen } = await front(true, (reply) => {
      ;(reply as WireConnection).socket.destroy()
    })
    const { text, closed } = await exchange(port, post(1), 1)
    expect(text).toBe('')
    expect(closed).toBe(true)
    await new Promise((r) => setTimeout(r, 20))
    expect(seen.answered).toBe(1)
  })
})

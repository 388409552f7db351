import { connect } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { prng } from '../../util/prng.js'
import { toQuantity } from '../../util/hex.js'
import { Quantity } from '../params/index.js'
import type { Namespace } from '../types.js'
import { RpcHttpServer } from './http.js'

/** Budget of the tests that replay requests cut at every byte (~1.4 s idle): a ceiling for a busy machine, not a speed check. */
const EVERY_CUT_TEST_TIMEOUT_MS = 60_000

// The fast path (wire.ts) must answer every byte stream exactly as node:http alone does: the
// same servers, one with the fast path and one without, get the same requests (pipelined, cut at
// random places) and must write the same bytes back, Date aside.

interface Ctx {
  calls: number
}

const eth: Namespace<Ctx> = {
  name: 'eth',
  methods: {
    eth_chainId: { params: [], handler: () => toQuantity(786n) },
    /** Answers after `ms` milliseconds: pipelined answers must still come in order. */
    eth_wait: {
      params: [Quantity],
      handler: async (ctx, [ms]) => {
        ctx.calls++
        await new Promise((r) => setTimeout(r, Number(ms)))
        return toQuantity(ms as bigint)
      },
    },
    eth_text: { params: [], handler: () => 'héllo ✓' },
  },
}

function makeServer(fastPath: boolean, extra: Partial<ConstructorParameters<typeof RpcHttpServer<Ctx>>[0]> = {}) {
  return new RpcHttpServer<Ctx>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: ['https://app.example'],
    maxBodyBytes: 4096,
    maxBatchItems: 5,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx: { calls: 0 },
    health: () => ({ ok: true, body: { block: '0x1' } }),
    vhosts: ['localhost'],
    fastPath,
    ...extra,
  })
}

const call = (method: string, params: unknown[] = [], id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

function post(body: string, headers: string[] = []): string {
  const lines = ['POST / HTTP/1.1', 'Host: localhost', 'Content-Type: application/json', ...headers]
  return `${lines.join('\r\n')}\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`
}

interface Exchange {
  /** Everything the server wrote, Date headers blanked. */
  text: string
  /** The server closed the connection. */
  closed: boolean
}

/**
 * Writes `pieces` to a fresh connection (a pause between them, so they arrive as separate reads)
 * and collects what comes back until `answers` responses are in or the server closes.
 */
async function exchange(port: number, pieces: (string | Buffer)[], answers: number, waitMs = 2000): Promise<Exchange> {
  const socket = connect({ host: '127.0.0.1', port })
  socket.setNoDelay(true)
  await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
  let received = Buffer.alloc(0)
  let closed = false
  socket.on('data', (d: Buffer) => {
    received = Buffer.concat([received, d])
  })
  socket.on('error', () => {})
  const done = new Promise<void>((resolve) => {
    socket.on('close', () => {
      closed = true
      resolve()
    })
    const check = setInterval(() => {
      if (countAnswers(received) >= answers) {
        clearInterval(check)
        // a little longer: a close that follows the last answer is part of the exchange
        setTimeout(resolve, 30)
      }
    }, 5)
    setTimeout(() => {
      clearInterval(check)
      resolve()
    }, waitMs)
  })
  for (const piece of pieces) {
    if (!socket.writable) break
    socket.write(piece)
    await new Promise((r) => setTimeout(r, 3))
  }
  await done
  socket.destroy()
  return { text: received.toString('latin1').replace(/Date: [^\r]*\r\n/g, 'Date: -\r\n'), closed }
}

/** Complete responses in `buf` (each with Content-Length, or a 1xx / Connection: close one without a body). */
function countAnswers(buf: Buffer): number {
  let n = 0
  let pos = 0
  for (;;) {
    const end = buf.indexOf('\r\n\r\n', pos)
    if (end < 0) return n
    const head = buf.toString('latin1', pos, end)
    const m = /\r\ncontent-length: *(\d+)/i.exec(head)
    const bodyEnd = end + 4 + (m ? Number(m[1]) : 0)
    if (buf.length < bodyEnd) return n
    n++
    pos = bodyEnd
  }
}

/** `text` cut at `cuts` random places. */
function cutRandomly(text: string, cuts: number, random: () => number): Buffer[] {
  const bytes = Buffer.from(text)
  const points = Array.from({ length: cuts }, () => 1 + Math.floor(random() * (bytes.length - 1))).sort((a, b) => a - b)
  const pieces: Buffer[] = []
  let at = 0
  for (const p of points) {
    if (p > at) pieces.push(bytes.subarray(at, p))
    at = p
  }
  pieces.push(bytes.subarray(at))
  return pieces
}

describe('HTTP fast path (wire.ts) against node:http alone', () => {
  const fast = makeServer(true)
  const plain = makeServer(false)
  let fastPort = 0
  let plainPort = 0

  beforeAll(async () => {
    fastPort = (await fast.start()).port
    plainPort = (await plain.start()).port
    expect(fast.fastPath).toBe(true)
    expect(plain.fastPath).toBe(false)
  })
  afterAll(async () => {
    await fast.stop()
    await plain.stop()
  })

  /** Streams sent to both; each entry: the stream and how many answers it gets. */
  const streams: [string, string, number][] = [
    ['one call', post(call('eth_chainId')), 1],
    [
      'pipelined: slow answer first, order kept',
      post(call('eth_wait', ['0x28'])) + post(call('eth_chainId', [], 2)) + post(call('eth_wait', ['0x5'], 3)),
      3,
    ],
    [
      'batch, notification, bad JSON, unknown method',
      post(`[${call('eth_chainId')},${call('eth_chainId', [], 'x')}]`) +
        post('{"jsonrpc":"2.0","method":"eth_chainId","params":[]}') +
        post('{"jsonrpc"') +
        post(call('eth_nope')),
      4,
    ],
    ['batch over the limit', post(`[${Array.from({ length: 6 }, (_, i) => call('eth_chainId', [], i)).join(',')}]`), 1],
    ['non-ASCII result', post(call('eth_text')), 1],
    [
      'CORS: allowed and refused origins',
      post(call('eth_chainId'), ['Origin: https://app.example']) +
        post(call('eth_chainId'), ['Origin: https://evil.example']),
      2,
    ],
    [
      'POST, GET /health, POST: handed to node:http in the middle',
      post(call('eth_chainId')) + 'GET /health HTTP/1.1\r\nHost: localhost\r\n\r\n' + post(call('eth_chainId', [], 2)),
      3,
    ],
    ['Connection: close ends the connection after its answer', post(call('eth_chainId'), ['Connection: close']), 1],
    [
      'chunked body',
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"jsonrpc":"2.0"\r\n' +
        `${(call('eth_chainId').length - 16).toString(16)}\r\n${call('eth_chainId').slice(16)}\r\n0\r\n\r\n` +
        post(call('eth_chainId', [], 2)),
      2,
    ],
    ['Expect: 100-continue', post(call('eth_chainId'), ['Expect: 100-continue']), 2],
    [
      'wrong content type: 415',
      post(call('eth_chainId')).replace('application/json', 'text/plain') + post(call('eth_chainId', [], 2)),
      2,
    ],
    [
      'Host outside the vhosts: 403',
      post(call('eth_chainId')).replace('Host: localhost', 'Host: evil.example') + post(call('eth_chainId', [], 2)),
      2,
    ],
    ['declared body over the limit: 413', post('x'.repeat(5000)), 1],
    [
      'malformed Content-Length: 400',
      'POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: 1x\r\n\r\n{}',
      1,
    ],
    ['two Content-Lengths: 400', post(call('eth_chainId'), ['Content-Length: 3']), 1],
    ['header folded over two lines', post(call('eth_chainId'), ['X-Note: a', ' b']), 1],
    ['HTTP/1.0', post(call('eth_chainId')).replace('HTTP/1.1', 'HTTP/1.0'), 1],
    ['bare LF line ends: 400 at once', post(call('eth_chainId')).replace(/\r\n/g, '\n'), 1],
    [
      'bare LF in one header line: 400 at once',
      post(call('eth_chainId')).replace('Host: localhost\r\n', 'Host: localhost\n'),
      1,
    ],
    ['bare CR in the head: 400 at once', 'POST / HTTP/1.1\rHost: localhost\r\n', 1],
    [
      'OPTIONS preflight then POST',
      'OPTIONS / HTTP/1.1\r\nHost: localhost\r\nOrigin: https://app.example\r\nAccess-Control-Request-Method: POST\r\n\r\n' +
        post(call('eth_chainId')),
      2,
    ],
    [
      'lowercase header names, extra spaces, any path',
      post(call('eth_chainId'))
        .replace('POST / ', 'POST /rpc/x?y=1 ')
        .replace('Content-Type: ', 'content-type:   ')
        .replace('Host: ', 'host:'),
      1,
    ],
  ]

  for (const [name, stream, answers] of streams) {
    it(name, async () => {
      const a = await exchange(fastPort, [stream], answers)
      const b = await exchange(plainPort, [stream], answers)
      expect(countAnswers(Buffer.from(a.text, 'latin1'))).toBe(answers)
      expect(a.text).toBe(b.text)
      expect(a.closed).toBe(b.closed)
    })
  }

  it(
    'answers the same whatever way the bytes are cut',
    async () => {
      const random = prng(7)
      for (const [, stream, answers] of streams.slice(0, 8)) {
        const want = await exchange(plainPort, [stream], answers)
        for (let round = 0; round < 3; round++) {
          const got = await exchange(fastPort, cutRandomly(stream, 1 + round * 3, random), answers)
          expect(got.text).toBe(want.text)
        }
      }
    },
    EVERY_CUT_TEST_TIMEOUT_MS,
  )

  it(
    'reads a body that arrives in many pieces, byte by byte at the end',
    async () => {
      const body = call('eth_chainId', [], 'z'.repeat(3000))
      const stream = post(body)
      const bytes = Buffer.from(stream)
      const pieces = [
        bytes.subarray(0, 1000),
        bytes.subarray(1000, 3000),
        ...Array.from(bytes.subarray(3000), (b) => Buffer.from([b])),
      ]
      const got = await exchange(fastPort, pieces, 1, 10_000)
      const want = await exchange(plainPort, [stream], 1)
      expect(got.text).toBe(want.text)
    },
    EVERY_CUT_TEST_TIMEOUT_MS,
  )

  it('keeps a connection on the fast path until a request it does not take', async () => {
    const socket = connect({ host: '127.0.0.1', port: fastPort })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    let received = ''
    socket.on('data', (d: Buffer) => {
      received += d.toString('latin1')
    })
    const answers = async (n: number) => {
      for (let i = 0; i < 200 && countAnswers(Buffer.from(received, 'latin1')) < n; i++)
        await new Promise((r) => setTimeout(r, 5))
    }
    socket.write(post(call('eth_chainId')))
    await answers(1)
    expect(fast.fastConnections).toBe(1)
    socket.write('GET / HTTP/1.1\r\nHost: localhost\r\n\r\n')
    await answers(2)
    expect(fast.fastConnections).toBe(0)
    // node:http owns it now and still serves POSTs on it
    socket.write(post(call('eth_chainId', [], 3)))
    await answers(3)
    expect(received).toContain('"id":3,"result":"0x312"')
    socket.destroy()
  })
})

describe('HTTP fast path timeouts and stop', () => {
  it('closes an idle keep-alive connection after the idle timeout, and a slow body with 408', async () => {
    const server = makeServer(true, { idleTimeoutMs: 300, readTimeoutMs: 600, headerTimeoutMs: 600 })
    const { port } = await server.start()
    const t0 = performance.now()
    const idle = await exchange(port, [post(call('eth_chainId'))], 99, 5000)
    expect(idle.closed).toBe(true)
    expect(performance.now() - t0).toBeLessThan(3000)
    expect(idle.text).toContain('Keep-Alive: timeout=0')
    const slow = post(call('eth_chainId'))
    const partial = await exchange(port, [slow.slice(0, slow.length - 5)], 99, 5000)
    expect(partial.closed).toBe(true)
    expect(partial.text).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
    await server.stop()
  })

  for (const fastPath of [true, false]) {
    it(`cuts a socket that sends nothing at the header timeout with 408 (${fastPath ? 'fast path' : 'node:http'})`, async () => {
      const server = makeServer(fastPath, { idleTimeoutMs: 60_000, readTimeoutMs: 600, headerTimeoutMs: 400 })
      const { port } = await server.start()
      const t0 = performance.now()
      const silent = await exchange(port, [], 99, 10_000)
      expect(silent.closed).toBe(true)
      expect(performance.now() - t0).toBeGreaterThanOrEqual(350)
      expect(silent.text).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
      await server.stop()
    })
  }

  it('stop() closes a silent fresh connection at once', async () => {
    const server = makeServer(true)
    const { port } = await server.start()
    const silent = connect({ host: '127.0.0.1', port })
    silent.on('error', () => {})
    await new Promise<void>((resolve) => silent.once('connect', () => resolve()))
    const closed = new Promise<void>((resolve) => silent.on('close', () => resolve()))
    await new Promise((r) => setTimeout(r, 50))
    const t0 = performance.now()
    await server.stop()
    await closed
    // the stop grace period (5 s) would be the bound if it were waited for
    expect(performance.now() - t0).toBeLessThan(3000)
  })

  it('stop() answers the request under way with Connection: close and closes idle connections at once', async () => {
    const server = makeServer(true)
    const { port } = await server.start()
    const idle = connect({ host: '127.0.0.1', port })
    idle.on('data', () => {})
    const idleClosed = new Promise<void>((resolve) => idle.on('close', () => resolve()))
    idle.write(post(call('eth_chainId')))
    const busy = exchange(port, [post(call('eth_wait', ['0xc8']))], 1, 5000)
    await new Promise((r) => setTimeout(r, 80))
    const t0 = performance.now()
    const report = await server.stop()
    await idleClosed
    const answer = await busy
    expect(report.inFlight).toBe(1)
    expect(report.cut).toBe(0)
    expect(answer.text).toContain('"result":"0xc8"')
    expect(answer.text).toContain('Connection: close\r\n')
    expect(answer.closed).toBe(true)
    expect(performance.now() - t0).toBeLessThan(2000)
  })
})

describe('HTTP fast path back-pressure', () => {
  it('takes no new requests while the client leaves its answers unread, and answers them all once it reads', async () => {
    const big = 'b'.repeat(100_000)
    let served = 0
    const ns: Namespace<Ctx> = {
      name: 'eth',
      methods: {
        eth_big: {
          params: [],
          handler: () => {
            served++
            return big
          },
        },
      },
    }
    const server = new RpcHttpServer<Ctx>({
      host: '127.0.0.1',
      port: 0,
      corsOrigins: [],
      maxBodyBytes: 4096,
      maxBatchItems: 5,
      namespaces: [ns],
      enabledApis: ['eth'],
      ctx: { calls: 0 },
      health: () => ({ ok: true, body: {} }),
    })
    const { port } = await server.start()
    const total = 300
    const socket = connect({ host: '127.0.0.1', port })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.pause()
    socket.write(Array.from({ length: total }, (_, i) => post(call('eth_big', [], i))).join(''))
    await new Promise((r) => setTimeout(r, 500))
    // 300 answers are 30 MB; the kernel's buffers hold a few of them, the rest must wait
    expect(served).toBeLessThan(total / 2)
    const chunks: Buffer[] = []
    let bytes = 0
    socket.on('data', (d: Buffer) => {
      chunks.push(d)
      bytes += d.length
    })
    socket.resume()
    // each answer is its head (~130 bytes) and a body of just over 100 kB
    for (let i = 0; i < 200 && bytes < total * big.length; i++) await new Promise((r) => setTimeout(r, 25))
    await new Promise((r) => setTimeout(r, 100))
    expect(countAnswers(Buffer.concat(chunks))).toBe(total)
    expect(served).toBe(total)
    socket.destroy()
    await server.stop()
  })
})

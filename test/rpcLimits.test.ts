/**
 * The RPC port under attack, on real nodes (issue 18, items 2 and 3): a socket that never sends a
 * byte is cut at the header timeout (408), not held for the idle timeout; one address cannot hold
 * more than `max_connections_per_ip` sockets, so a flood of silent sockets from it leaves room for
 * everyone else; WebSocket messages draw on the same per-IP budgets as HTTP bodies and are refused
 * with the same -32005 error.
 *
 * Loopback has a whole /8: the attacker and the honest client leave from different 127.x addresses.
 */
import { connect, type Socket } from 'node:net'

import type { Pool } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'

import { cleanupNodes, type IbexNode, startNode } from './helpers/node.js'
import { call, clientFrom, post } from './ops/client.js'

/** Header timeout of the first node: short, so a silent socket is cut within the test. */
const HEADER_TIMEOUT_MS = 1000
/** Budgets small enough to exhaust: 20 requests/s, 5 eth_call/s, 1 s of burst. */
const RATE = 20
const CALL_RATE = 5
/** The second node: room for 200 sockets in all, 50 from any one address. */
const MAX_CONNECTIONS = 200
const MAX_PER_IP = 50
const SILENT_SOCKETS = 300
/** Generous: a loaded 2-core machine still closes a socket within this of its deadline. */
const SLACK_MS = 8000

let timeouts: IbexNode
let capped: IbexNode
const pools: Pool[] = []
const sockets: Socket[] = []
const wsClients: WebSocket[] = []

function from(node: IbexNode, ip: string, connections = 1): Pool {
  const pool = clientFrom(node.url, ip, connections)
  pools.push(pool)
  return pool
}

beforeAll(async () => {
  ;[timeouts, capped] = await Promise.all([
    startNode({
      args: [
        '--rpc.header-timeout',
        `${HEADER_TIMEOUT_MS}ms`,
        '--rpc.ratelimit',
        String(RATE),
        '--rpc.ratelimit.call',
        String(CALL_RATE),
        '--rpc.ratelimit.burst',
        '1s',
      ],
    }),
    // a header timeout far longer than the test: the silent sockets stay until the cap is checked
    startNode({
      args: [
        '--rpc.max-connections',
        String(MAX_CONNECTIONS),
        '--rpc.max-connections-per-ip',
        String(MAX_PER_IP),
        '--rpc.header-timeout',
        '60s',
        '--rpc.read-timeout',
        '60s',
      ],
    }),
  ])
})

afterAll(async () => {
  for (const s of sockets) s.destroy()
  for (const ws of wsClients) ws.terminate()
  await Promise.allSettled(pools.map((p) => p.destroy()))
  await cleanupNodes()
})

/** A socket from `localAddress`, with what it received and whether it was closed. */
interface Watched {
  socket: Socket
  received: string
  closed: boolean
  closedAt: number
}

function open(node: IbexNode, localAddress: string): Watched {
  const { port } = new URL(node.url)
  const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress })
  sockets.push(socket)
  const w: Watched = { socket, received: '', closed: false, closedAt: 0 }
  socket.on('data', (d: Buffer) => {
    w.received += d.toString('latin1')
  })
  socket.on('error', () => {})
  socket.on('close', () => {
    w.closed = true
    w.closedAt = performance.now()
  })
  return w
}

async function until(check: () => boolean, limitMs: number): Promise<void> {
  const t0 = performance.now()
  while (!check() && performance.now() - t0 < limitMs) await new Promise((r) => setTimeout(r, 20))
}

describe('silent sockets', () => {
  it('a socket that sends nothing is cut with 408 at the header timeout, not held for the idle timeout', async () => {
    const t0 = performance.now()
    const silent = open(timeouts, '127.0.0.20')
    await until(() => silent.closed, HEADER_TIMEOUT_MS + SLACK_MS)
    expect(silent.closed).toBe(true)
    expect(silent.closedAt - t0).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 100)
    expect(silent.received).toBe('HTTP/1.1 408 Request Timeout\r\nConnection: close\r\n\r\n')
  })

  it('after an answer, a keep-alive connection is idle; the next request head again has the header timeout', async () => {
    const conn = open(timeouts, '127.0.0.21')
    await new Promise<void>((resolve) => conn.socket.once('connect', () => resolve()))
    const body = JSON.stringify(call('eth_blockNumber'))
    conn.socket.write(
      `POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n${body}`,
    )
    await until(() => conn.received.includes('"result"'), SLACK_MS)
    expect(conn.received).toContain('HTTP/1.1 200 OK')
    // idle now: the header timeout does not apply between requests (the idle timeout, 120 s, does)
    await new Promise((r) => setTimeout(r, HEADER_TIMEOUT_MS * 2))
    expect(conn.closed).toBe(false)
    const t0 = performance.now()
    conn.socket.write('POST / HTTP/1.1\r\nHost: localhost\r\n')
    await until(() => conn.closed, HEADER_TIMEOUT_MS + SLACK_MS)
    expect(conn.closed).toBe(true)
    expect(conn.closedAt - t0).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 100)
    expect(conn.received).toContain('HTTP/1.1 408 Request Timeout')
  })
})

describe('connections per client address', () => {
  it(`${SILENT_SOCKETS} silent sockets from one address: ${MAX_PER_IP} held, the rest closed at once, and others are served`, async () => {
    const flood = Array.from({ length: SILENT_SOCKETS }, () => open(capped, '127.0.0.30'))
    // refused sockets are closed at accept, with no answer
    await until(() => flood.filter((w) => w.closed).length >= SILENT_SOCKETS - MAX_PER_IP, SLACK_MS)
    await new Promise((r) => setTimeout(r, 300))
    const refused = flood.filter((w) => w.closed)
    expect(refused.length).toBe(SILENT_SOCKETS - MAX_PER_IP)
    expect(refused.every((w) => w.received === '')).toBe(true)
    // before the per-address cap, the flood filled max_connections and every new client was reset
    const probe = await post(from(capped, '127.0.0.31'), call('eth_blockNumber'))
    expect(probe.status).toBe(200)
    expect(probe.json.result).toMatch(/^0x/)
    // the flooding address itself gets nothing more
    const more = open(capped, '127.0.0.30')
    await until(() => more.closed, SLACK_MS)
    expect(more.closed).toBe(true)
    expect(more.received).toBe('')
    // once its sockets are gone, it is served again
    for (const w of flood) w.socket.destroy()
    more.socket.destroy()
    await until(() => flood.every((w) => w.closed), SLACK_MS)
    await new Promise((r) => setTimeout(r, 300))
    const back = await post(from(capped, '127.0.0.30'), call('eth_blockNumber'))
    expect(back.status).toBe(200)
  })
})

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC answers of any shape
type Answer = Record<string, any>

/** Opens a WebSocket to `node` from `localAddress`; answers are collected by id. */
async function wsFrom(node: IbexNode, localAddress: string): Promise<{ ws: WebSocket; answers: Map<unknown, Answer> }> {
  const ws = new WebSocket(node.url.replace(/^http/, 'ws'), { localAddress })
  wsClients.push(ws)
  const answers = new Map<unknown, Answer>()
  ws.on('message', (data) => {
    const m = JSON.parse(String(data))
    for (const a of Array.isArray(m) ? m : [m]) answers.set(a.id, a)
  })
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return { ws, answers }
}

describe('WebSocket rate limits', () => {
  it('messages over the budget are refused with the -32005 error HTTP answers', async () => {
    const { ws, answers } = await wsFrom(timeouts, '127.0.0.40')
    const total = RATE * 5
    for (let id = 1; id <= total; id++)
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_blockNumber', params: [] }))
    await until(() => answers.size >= total, SLACK_MS)
    expect(answers.size).toBe(total)
    const all = [...answers.values()]
    const ok = all.filter((a) => a.result !== undefined)
    const refused = all.filter((a) => a.error !== undefined)
    expect(ok.length).toBeGreaterThanOrEqual(RATE)
    expect(refused.length).toBeGreaterThan(total / 2)
    expect(refused[0]).toEqual({
      jsonrpc: '2.0',
      id: refused[0].id,
      error: { code: -32005, message: 'limit exceeded', data: { budget: 'requests', retryAfter: 1 } },
    })
  })

  it('eth_call over WebSocket has its own budget', async () => {
    const { ws, answers } = await wsFrom(timeouts, '127.0.0.41')
    const total = CALL_RATE * 3
    const params = [{ to: '0x0000000000000000000000000000000000000001', data: '0x' }, 'latest']
    for (let id = 1; id <= total; id++) ws.send(JSON.stringify({ jsonrpc: '2.0', id, method: 'eth_call', params }))
    await until(() => answers.size >= total, SLACK_MS)
    const refused = [...answers.values()].filter((a) => a.error !== undefined)
    expect(refused.length).toBeGreaterThan(0)
    expect(refused[0].error).toMatchObject({ code: -32005, message: 'limit exceeded', data: { budget: 'call' } })
  })

  it('one budget per address across HTTP and WebSocket', async () => {
    const { ws, answers } = await wsFrom(timeouts, '127.0.0.42')
    // a batch bigger than the bucket is served once and leaves the address in debt for seconds
    const batch = Array.from({ length: RATE * 4 }, (_, i) => ({
      jsonrpc: '2.0',
      id: i + 1,
      method: 'eth_chainId',
      params: [],
    }))
    ws.send(JSON.stringify(batch))
    await until(() => answers.size >= batch.length, SLACK_MS)
    expect([...answers.values()].every((a) => a.result === '0x539')).toBe(true)
    const http = await post(from(timeouts, '127.0.0.42'), call('eth_chainId'))
    expect(http.status).toBe(429)
    expect(http.json.error).toMatchObject({ code: -32005, message: 'limit exceeded', data: { budget: 'requests' } })
    // and the other way round: the debt HTTP sees is the one WebSocket sees
    ws.send(JSON.stringify({ jsonrpc: '2.0', id: 'after', method: 'eth_chainId', params: [] }))
    await until(() => answers.has('after'), SLACK_MS)
    expect(answers.get('after')?.error).toMatchObject({ code: -32005, data: { budget: 'requests' } })
  })
})

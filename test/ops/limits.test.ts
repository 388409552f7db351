/**
 * Public-endpoint protection on a real node: per-IP token buckets (one loopback address floods
 * and gets 429 / -32005 with Retry-After while another is served), batch items counted one by one,
 * the separate eth_call budget, X-Forwarded-For only from a trusted proxy, the vhosts allow-list,
 * the response cap, the header timeout against slow clients and the connection cap.
 */
import { connect, type Socket } from 'node:net'

import type { Pool } from 'undici'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'

import { cleanupNodes, type IbexNode, startNode } from '../helpers/node.js'
import { call, clientFrom, get, post } from './client.js'

/** Budgets small enough to exhaust in a test: 20 requests/s, 5 eth_call/s, 1 s of burst. */
const RATE = 20
const CALL_RATE = 5
const MAX_CONNECTIONS = 40
const RESPONSE_LIMIT = 4000
const HEADER_TIMEOUT_MS = 1000
const PROXY = '127.0.0.4'

let node: IbexNode
const pools: Pool[] = []
function from(ip: string, connections = 8): Pool {
  const pool = clientFrom(node.url, ip, connections)
  pools.push(pool)
  return pool
}

beforeAll(async () => {
  node = await startNode({
    args: [
      '--rpc.ratelimit',
      String(RATE),
      '--rpc.ratelimit.call',
      String(CALL_RATE),
      '--rpc.ratelimit.burst',
      '1s',
      '--rpc.trusted-proxies',
      PROXY,
      '--http.vhosts',
      'localhost,rpc.example.org',
      '--rpc.max-connections',
      String(MAX_CONNECTIONS),
      '--rpc.header-timeout',
      `${HEADER_TIMEOUT_MS}ms`,
      '--rpc.response-limit',
      String(RESPONSE_LIMIT),
    ],
  })
})

// each test's keep-alive connections are closed after it: the node allows only MAX_CONNECTIONS
afterEach(async () => {
  await Promise.allSettled(pools.splice(0).map((p) => p.destroy()))
})

afterAll(cleanupNodes)

describe('per-IP rate limits', () => {
  it('a flooding address gets 429 / -32005 with Retry-After while another is served', async () => {
    const flooder = from('127.0.0.2', 16)
    const polite = from('127.0.0.3', 1)
    const flood = Promise.all(Array.from({ length: 200 }, () => post(flooder, call('eth_blockNumber'))))
    const served: number[] = []
    for (let i = 0; i < 10; i++) {
      const r = await post(polite, call('eth_blockNumber'))
      served.push(r.status)
      expect(r.json.result).toMatch(/^0x/)
    }
    const answers = await flood
    expect(served).toEqual(new Array(10).fill(200))
    const refused = answers.filter((a) => a.status === 429)
    const ok = answers.filter((a) => a.status === 200)
    expect(ok.length).toBeGreaterThanOrEqual(RATE)
    expect(refused.length).toBeGreaterThan(100)
    const first = refused[0]
    expect(first.headers['retry-after']).toBe('1')
    expect(first.json).toMatchObject({
      jsonrpc: '2.0',
      error: { code: -32005, message: 'limit exceeded', data: { budget: 'requests', retryAfter: 1 } },
    })
    expect(typeof first.json.id).toBe('number')
  })

  it('each batch item counts: a batch larger than the bucket is served once, then the client waits', async () => {
    const client = from('127.0.0.5', 1)
    const batch = Array.from({ length: 30 }, () => call('eth_chainId'))
    const big = await post(client, batch)
    expect(big.status).toBe(200)
    expect(big.json).toHaveLength(30)
    const next = await post(client, [call('eth_chainId'), call('eth_blockNumber')])
    expect(next.status).toBe(429)
    expect(next.json).toHaveLength(2)
    expect(next.json.map((a: { error: { code: number } }) => a.error.code)).toEqual([-32005, -32005])
    expect(Number(next.headers['retry-after'])).toBeGreaterThanOrEqual(1)
  })

  it('eth_call has its own, smaller budget; cheap reads go on', async () => {
    const client = from('127.0.0.6', 4)
    // sent at once, so a slow machine cannot refill the bucket between them
    const answers = await Promise.all(
      Array.from({ length: CALL_RATE * 3 }, () =>
        post(client, call('eth_call', [{ to: '0x0000000000000000000000000000000000000001', data: '0x' }, 'latest'])),
      ),
    )
    const statuses = answers.map((a) => a.status)
    expect(statuses.filter((s) => s === 200).length).toBeGreaterThanOrEqual(CALL_RATE)
    expect(statuses).toContain(429)
    expect(answers.find((a) => a.status === 429)?.json).toMatchObject({
      error: { code: -32005, data: { budget: 'call' } },
    })
    expect((await post(client, call('eth_blockNumber'))).status).toBe(200)
  })

  it('X-Forwarded-For names the client only when a trusted proxy sends it', async () => {
    const proxy = from(PROXY, 8)
    const viaProxy = (client: string) =>
      post(proxy, call('eth_chainId'), { 'x-forwarded-for': `203.0.113.9, ${client}` })
    const flood = await Promise.all(Array.from({ length: 60 }, () => viaProxy('10.0.0.1')))
    expect(flood.some((a) => a.status === 429)).toBe(true)
    // another client behind the same proxy has its own bucket
    expect((await viaProxy('10.0.0.2')).status).toBe(200)
    // an untrusted sender cannot pick its bucket by forging the header
    const forger = from('127.0.0.7', 8)
    const forged = await Promise.all(
      Array.from({ length: 60 }, (_, i) => post(forger, call('eth_chainId'), { 'x-forwarded-for': `10.1.0.${i}` })),
    )
    expect(forged.some((a) => a.status === 429)).toBe(true)
  })
})

describe('hosts, sizes, slow clients, connections', () => {
  it('answers 403 to a Host outside the vhosts list; IPs and listed names pass', async () => {
    const client = from('127.0.0.8', 1)
    const evil = await post(client, call('eth_chainId'), { host: 'evil.example' })
    expect(evil.status).toBe(403)
    expect(evil.text).toBe('invalid host specified\n')
    expect((await post(client, call('eth_chainId'), { host: 'rpc.example.org' })).status).toBe(200)
    expect((await post(client, call('eth_chainId'), { host: 'localhost:8545' })).status).toBe(200)
    expect((await post(client, call('eth_chainId'))).status).toBe(200)
  })

  it('caps the answer size: calls past the limit answer -32003 response too large', async () => {
    const client = from('127.0.0.9', 1)
    const batch = Array.from({ length: 6 }, () => call('eth_getBlockByNumber', ['0x0', false]))
    const r = await post(client, batch)
    expect(r.status).toBe(200)
    expect(Buffer.byteLength(r.text)).toBeLessThan(RESPONSE_LIMIT + 1000)
    expect(r.json[0].result.number).toBe('0x0')
    const last = r.json.at(-1)
    expect(last).toEqual({
      jsonrpc: '2.0',
      id: batch.at(-1)?.id,
      error: { code: -32003, message: 'response too large' },
    })
  })

  it('cuts a client that does not finish its headers in time', async () => {
    const { port } = new URL(node.url)
    const socket = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.10' })
    await new Promise<void>((resolve) => socket.once('connect', () => resolve()))
    socket.write('POST / HTTP/1.1\r\nHost: localhost\r\nContent-Type: application/json\r\n')
    const t0 = performance.now()
    let received = ''
    socket.on('data', (d) => {
      received += d.toString()
    })
    await new Promise<void>((resolve) => socket.once('close', () => resolve()))
    const ms = performance.now() - t0
    expect(ms).toBeGreaterThanOrEqual(HEADER_TIMEOUT_MS - 100)
    expect(ms).toBeLessThan(HEADER_TIMEOUT_MS + 3000)
    expect(received).toContain('408')
  })

  it('closes connections over the cap at once and serves again once they are gone', async () => {
    const { port } = new URL(node.url)
    const sockets: Socket[] = []
    let closedEarly = 0
    for (let i = 0; i < MAX_CONNECTIONS + 10; i++) {
      const s = connect({ host: '127.0.0.1', port: Number(port), localAddress: '127.0.0.11' })
      s.on('error', () => {})
      s.on('close', () => {
        closedEarly++
      })
      sockets.push(s)
    }
    await new Promise((r) => setTimeout(r, 500))
    expect(closedEarly).toBeGreaterThanOrEqual(10)
    for (const s of sockets) s.destroy()
    await new Promise((r) => setTimeout(r, 200))
    const client = from('127.0.0.12', 1)
    expect((await get(client, '/health')).status).toBe(200)
  })
})

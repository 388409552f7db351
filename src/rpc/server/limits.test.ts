import type { IncomingMessage } from 'node:http'

import { describe, expect, it } from 'vitest'

import {
  type CallCounts,
  clientAddress,
  countCalls,
  limitExceededBody,
  ProxyList,
  RATE_LIMIT_MAX_CLIENTS,
  RateLimiter,
  VhostPolicy,
} from './limits.js'

const limits = { requests: 10, call: 2, logs: 1, debug: 0, burstMs: 1000 }

function one(method = 'eth_blockNumber'): CallCounts {
  return countCalls({ jsonrpc: '2.0', id: 1, method })
}

function req(peer: string, xff?: string): IncomingMessage {
  return {
    socket: { remoteAddress: peer },
    headers: xff === undefined ? {} : { 'x-forwarded-for': xff },
  } as unknown as IncomingMessage
}

describe('RateLimiter', () => {
  it('admits a burst of rate × burst, then refuses with the wait; refusals cost nothing', () => {
    const l = new RateLimiter(limits)
    for (let i = 0; i < 10; i++) expect(l.admit('a', one(), 0)).toBeUndefined()
    expect(l.admit('a', one(), 0)).toEqual({ retryAfterSeconds: 1, budget: 'requests' })
    expect(l.admit('a', one(), 0)).toEqual({ retryAfterSeconds: 1, budget: 'requests' })
    // 100 ms refill one token at 10/s
    expect(l.admit('a', one(), 100)).toBeUndefined()
    expect(l.admit('b', one(), 100)).toBeUndefined()
    l.close()
  })

  it('charges expensive methods to their own budget too', () => {
    const l = new RateLimiter(limits)
    expect(l.admit('a', one('eth_call'), 0)).toBeUndefined()
    expect(l.admit('a', one('eth_estimateGas'), 0)).toBeUndefined()
    expect(l.admit('a', one('eth_call'), 0)).toEqual({ retryAfterSeconds: 1, budget: 'call' })
    expect(l.admit('a', one('eth_getLogs'), 0)).toBeUndefined()
    expect(l.admit('a', one('eth_getFilterLogs'), 0)?.budget).toBe('logs')
    // bor_getRootHash scans up to 2^15 blocks on the main thread: the same budget as a log scan
    expect(l.admit('b', one('bor_getRootHash'), 0)).toBeUndefined()
    expect(l.admit('b', one('bor_getRootHash'), 0)?.budget).toBe('logs')
    // debug has no own limit here (0)
    for (let i = 0; i < 5; i++) expect(l.admit('a', one('debug_traceCall'), 0)).toBeUndefined()
    l.close()
  })

  it('counts each batch item; a batch bigger than the bucket needs a full one and leaves a debt', () => {
    const l = new RateLimiter(limits)
    const batch = countCalls(Array.from({ length: 25 }, (_, i) => ({ jsonrpc: '2.0', id: i, method: 'eth_chainId' })))
    expect(batch.total).toBe(25)
    expect(l.admit('a', batch, 0)).toBeUndefined()
    // 15 tokens of debt + 1 needed at 10/s: 1.6 s
    expect(l.admit('a', one(), 0)).toEqual({ retryAfterSeconds: 2, budget: 'requests' })
    expect(l.admit('a', one(), 1600)).toBeUndefined()
    l.close()
  })

  it('is off when every rate is 0, and forgets idle clients', () => {
    expect(RateLimiter.from({ requests: 0, call: 0, logs: 0, debug: 0, burstMs: 1000 })).toBeUndefined()
    const l = new RateLimiter(limits)
    l.admit('a', one(), 0)
    l.admit('b', one(), 0)
    expect(l.trackedClients).toBe(2)
    l.sweep(60_000)
    expect(l.trackedClients).toBe(0)
    expect(RATE_LIMIT_MAX_CLIENTS).toBeGreaterThan(1000)
    l.close()
  })
})

describe('clientAddress', () => {
  const proxies = new ProxyList(['127.0.0.1', '10.0.0.0/8', 'fd00::/8'])

  it('is the peer unless the peer is a trusted proxy', () => {
    expect(clientAddress(req('203.0.113.5', '1.2.3.4'), proxies)).toBe('203.0.113.5')
    expect(clientAddress(req('::ffff:127.0.0.1', '198.51.100.7'), proxies)).toBe('198.51.100.7')
  })

  it('takes the rightmost X-Forwarded-For entry that is not a trusted proxy', () => {
    expect(clientAddress(req('127.0.0.1', '6.6.6.6, 198.51.100.7, 10.1.2.3'), proxies)).toBe('198.51.100.7')
    expect(clientAddress(req('fd00::1', '2001:db8::9'), proxies)).toBe('2001:db8::9')
    expect(clientAddress(req('127.0.0.1', 'garbage'), proxies)).toBe('127.0.0.1')
    expect(clientAddress(req('127.0.0.1'), proxies)).toBe('127.0.0.1')
  })

  it('matches CIDR ranges of both families', () => {
    expect(proxies.has('10.255.0.1')).toBe(true)
    expect(proxies.has('11.0.0.1')).toBe(false)
    expect(proxies.has('fd12::3')).toBe(true)
    expect(proxies.has('fe80::1')).toBe(false)
  })
})

describe('VhostPolicy', () => {
  it("follows geth's --http.vhosts: names listed, IPs and a missing Host always pass", () => {
    const v = new VhostPolicy(['localhost', 'rpc.example.org', '*.ibex.example'])
    expect(v.allows('localhost:8545')).toBe(true)
    expect(v.allows('RPC.example.org')).toBe(true)
    expect(v.allows('eu.ibex.example')).toBe(true)
    expect(v.allows('127.0.0.1:8545')).toBe(true)
    expect(v.allows('[::1]:8545')).toBe(true)
    expect(v.allows(undefined)).toBe(true)
    expect(v.allows('evil.example')).toBe(false)
    expect(new VhostPolicy(['*']).allows('anything')).toBe(true)
  })
})

describe('limitExceededBody', () => {
  it('answers -32005 per call of a batch, with each id', () => {
    const refusal = { retryAfterSeconds: 3, budget: 'call' as const }
    expect(JSON.parse(limitExceededBody({ jsonrpc: '2.0', id: 7, method: 'eth_call' }, refusal))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32005, message: 'limit exceeded', data: { budget: 'call', retryAfter: 3 } },
    })
    const batch = JSON.parse(limitExceededBody([{ id: 1 }, { id: 'x' }, { method: 'n' }], refusal))
    expect(batch.map((a: { id: unknown }) => a.id)).toEqual([1, 'x'])
  })
})

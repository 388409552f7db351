import { Agent, type IncomingHttpHeaders, request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toQuantity } from '../../util/hex.js'
import { Quantity } from '../params/index.js'
import type { Namespace } from '../types.js'
import { type HealthReport, RpcHttpServer } from './http.js'

interface Ctx {
  chainId: bigint
  seen: number
}

const eth: Namespace<Ctx> = {
  name: 'eth',
  methods: {
    eth_chainId: { params: [], handler: (ctx) => toQuantity(ctx.chainId) },
    eth_add: {
      params: [Quantity, Quantity],
      handler: (ctx, [a, b]) => {
        ctx.seen++
        return toQuantity((a as bigint) + (b as bigint))
      },
    },
  },
}

interface Reply {
  status: number
  headers: IncomingHttpHeaders
  body: string
  reusedSocket: boolean
}

interface Send {
  method?: string
  path?: string
  headers?: Record<string, string>
  body?: string
  /** Send the body in these pieces with chunked transfer encoding (no Content-Length). */
  chunks?: string[]
  agent?: Agent
}

function send(base: string, { method = 'POST', path = '/', headers = {}, body, chunks, agent }: Send): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(`${base}${path}`, { method, headers, agent: agent ?? false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        text += c
      })
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text, reusedSocket: req.reusedSocket }),
      )
    })
    req.on('error', reject)
    if (chunks !== undefined) for (const c of chunks) req.write(c)
    req.end(body)
  })
}

const json = { 'Content-Type': 'application/json' }
const call = (method: string, params: unknown[] = [], id: unknown = 1): string =>
  JSON.stringify({ jsonrpc: '2.0', id, method, params })

describe('RpcHttpServer', () => {
  const ctx: Ctx = { chainId: 786n, seen: 0 }
  let health: HealthReport = { ok: true, body: { block: '0x10' } }
  const server = new RpcHttpServer<Ctx>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: ['https://app.example', 'https://*.wild.example'],
    maxBodyBytes: 1000,
    maxBatchItems: 3,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx,
    health: () => health,
  })
  let url = ''

  beforeAll(async () => {
    const started = await server.start()
    url = started.url
    expect(started.port).toBeGreaterThan(0)
    expect(url).toBe(`http://127.0.0.1:${started.port}`)
  })
  afterAll(() => server.stop())

  it('serves a call on any path', async () => {
    for (const path of ['/', '/rpc']) {
      const r = await send(url, { path, headers: json, body: call('eth_chainId') })
      expect(r.status).toBe(200)
      expect(r.headers['content-type']).toBe('application/json')
      expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":"0x312"}')
      expect(r.headers['content-length']).toBe(String(r.body.length))
    }
  })

  it('accepts geth content types with parameters', async () => {
    for (const type of [
      'application/json; charset=utf-8',
      'Application/JSON',
      'application/json-rpc',
      'application/jsonrequest',
    ]) {
      const r = await send(url, { headers: { 'Content-Type': type }, body: call('eth_add', ['0x1', '0x2']) })
      expect(r.body).toBe('{"jsonrpc":"2.0","id":1,"result":"0x3"}')
    }
  })

  it('answers batches, errors and notifications as the dispatcher does', async () => {
    const batch = await send(url, { headers: json, body: `[${call('eth_chainId', [], 1)},${call('eth_nope', [], 2)}]` })
    expect(batch.body).toBe(
      '[{"jsonrpc":"2.0","id":1,"result":"0x312"},{"jsonrpc":"2.0","id":2,"error":{"code":-32601,"message":"the method eth_nope does not exist/is not available"}}]',
    )
    const parse = await send(url, { headers: json, body: '{"jsonrpc"' })
    expect(parse.status).toBe(200)
    expect(parse.body).toBe('{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error"}}')
    const before = ctx.seen
    const notification = await send(url, {
      headers: json,
      body: '{"jsonrpc":"2.0","method":"eth_add","params":["0x1","0x1"]}',
    })
    expect(notification.status).toBe(200)
    expect(notification.body).toBe('')
    expect(ctx.seen).toBe(before + 1)
    const tooMany = await send(url, {
      headers: json,
      body: `[${[1, 2, 3, 4].map((i) => call('eth_chainId', [], i)).join(',')}]`,
    })
    expect(tooMany.body).toBe('[{"jsonrpc":"2.0","id":1,"error":{"code":-32600,"message":"batch too large"}}]')
  })

  it('refuses other content types with 415', async () => {
    const refused: Record<string, string>[] = [{ 'Content-Type': 'text/plain' }, {}]
    for (const headers of refused) {
      const r = await send(url, { headers, body: call('eth_chainId') })
      expect(r.status).toBe(415)
      expect(r.headers['content-type']).toBe('text/plain; charset=utf-8')
      expect(r.headers['x-content-type-options']).toBe('nosniff')
      expect(r.body).toBe('invalid content type, only application/json is supported\n')
    }
  })

  it('refuses a declared body over the limit with 413', async () => {
    const body = call('eth_add', ['0x1', `0x${'1'.repeat(1100)}`])
    const r = await send(url, { headers: json, body })
    expect(r.status).toBe(413)
    expect(r.body).toBe(`content length too large (${body.length}>1000)\n`)
  })

  it('counts a streamed body and refuses it with 413 once over the limit', async () => {
    const r = await send(url, { headers: json, chunks: ['[', ' '.repeat(600), ' '.repeat(600), ']'] })
    expect(r.status).toBe(413)
    expect(r.body).toBe('content length too large (1201>1000)\n')
    const ok = await send(url, { headers: json, chunks: ['{"jsonrpc":"2.0",', '"id":9,"method":"eth_chainId"}'] })
    expect(ok.body).toBe('{"jsonrpc":"2.0","id":9,"result":"0x312"}')
  })

  it('answers GET and HEAD with health, 503 when not ok', async () => {
    health = { ok: true, body: { block: '0x10' } }
    for (const path of ['/health', '/']) {
      const r = await send(url, { method: 'GET', path })
      expect(r.status).toBe(200)
      expect(r.headers['content-type']).toBe('application/json')
      expect(JSON.parse(r.body)).toEqual({ status: 'ok', block: '0x10' })
    }
    const head = await send(url, { method: 'HEAD', path: '/health' })
    expect(head.status).toBe(200)
    expect(head.body).toBe('')
    health = { ok: false, body: { reason: 'syncing' } }
    const down = await send(url, { method: 'GET', path: '/health' })
    expect(down.status).toBe(503)
    expect(JSON.parse(down.body)).toEqual({ status: 'unavailable', reason: 'syncing' })
    health = { ok: true, body: undefined }
  })

  it("answers GET and HEAD of unknown paths with 404, as Go's http.NotFound", async () => {
    for (const path of ['/favicon.ico', '/index.html', '/healthz', '/ready/x']) {
      const r = await send(url, { method: 'GET', path })
      expect(r.status).toBe(404)
      expect(r.body).toBe('404 page not found\n')
    }
    expect((await send(url, { method: 'HEAD', path: '/favicon.ico' })).status).toBe(404)
    expect((await send(url, { method: 'GET', path: '/health?verbose=1' })).status).toBe(200)
  })

  it('answers other methods with 405', async () => {
    for (const method of ['PUT', 'DELETE', 'PATCH']) {
      const r = await send(url, { method, headers: json, body: call('eth_chainId') })
      expect(r.status).toBe(405)
      expect(r.body).toBe('method not allowed\n')
    }
  })

  it('answers CORS preflights for allowed origins only', async () => {
    const preflight = (origin: string, method = 'POST') =>
      send(url, {
        method: 'OPTIONS',
        headers: {
          Origin: origin,
          'Access-Control-Request-Method': method,
          'Access-Control-Request-Headers': 'Content-Type, X-Custom',
        },
      })
    const ok = await preflight('https://app.example')
    expect(ok.status).toBe(204)
    expect(ok.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(ok.headers['access-control-allow-methods']).toBe('POST')
    expect(ok.headers['access-control-allow-headers']).toBe('content-type, x-custom')
    expect(ok.headers['access-control-max-age']).toBe('600')
    expect(ok.headers.vary).toBe('Origin, Access-Control-Request-Method, Access-Control-Request-Headers')
    const wild = await preflight('https://a.wild.example')
    expect(wild.headers['access-control-allow-origin']).toBe('https://a.wild.example')
    const denied = await preflight('https://evil.example')
    expect(denied.status).toBe(204)
    expect(denied.headers['access-control-allow-origin']).toBeUndefined()
    const badMethod = await preflight('https://app.example', 'PUT')
    expect(badMethod.headers['access-control-allow-origin']).toBeUndefined()
  })

  it('sets Access-Control-Allow-Origin on answers to allowed origins', async () => {
    const allowed = await send(url, { headers: { ...json, Origin: 'https://app.example' }, body: call('eth_chainId') })
    expect(allowed.headers['access-control-allow-origin']).toBe('https://app.example')
    expect(allowed.headers.vary).toBe('Origin')
    const denied = await send(url, { headers: { ...json, Origin: 'https://evil.example' }, body: call('eth_chainId') })
    expect(denied.headers['access-control-allow-origin']).toBeUndefined()
    expect(denied.body).toBe('{"jsonrpc":"2.0","id":1,"result":"0x312"}')
  })

  it('keeps connections alive', async () => {
    const agent = new Agent({ keepAlive: true, maxSockets: 1 })
    const first = await send(url, { headers: json, body: call('eth_chainId'), agent })
    const second = await send(url, { headers: json, body: call('eth_chainId'), agent })
    expect(first.reusedSocket).toBe(false)
    expect(second.reusedSocket).toBe(true)
    expect(second.headers.connection).toBe('keep-alive')
    agent.destroy()
  })
})

describe('RpcHttpServer CORS settings and shutdown', () => {
  const options = {
    host: '127.0.0.1',
    port: 0,
    maxBodyBytes: 1000,
    maxBatchItems: 0,
    namespaces: [eth],
    enabledApis: ['eth'] as const,
    ctx: { chainId: 1n, seen: 0 },
    health: () => ({ ok: true, body: {} }),
  }

  it('answers * with *', async () => {
    const server = new RpcHttpServer<Ctx>({ ...options, enabledApis: ['eth'], corsOrigins: ['*'] })
    const { url } = await server.start()
    const r = await send(url, { headers: { ...json, Origin: 'https://anyone.example' }, body: call('eth_chainId') })
    expect(r.headers['access-control-allow-origin']).toBe('*')
    await server.stop()
  })

  it('sends no CORS header at all with an empty allow-list', async () => {
    const server = new RpcHttpServer<Ctx>({ ...options, enabledApis: ['eth'], corsOrigins: [] })
    const { url } = await server.start()
    const r = await send(url, { headers: { ...json, Origin: 'https://anyone.example' }, body: call('eth_chainId') })
    expect(r.headers['access-control-allow-origin']).toBeUndefined()
    expect(r.headers.vary).toBeUndefined()
    const options_ = await send(url, {
      method: 'OPTIONS',
      headers: { Origin: 'https://x', 'Access-Control-Request-Method': 'POST' },
    })
    expect(options_.status).toBe(200)
    expect(options_.headers['access-control-allow-origin']).toBeUndefined()
    await server.stop()
  })

  it('answers an unknown or unserved debug_* method -32601, not -32005 of the debug budget', async () => {
    const debug: Namespace<Ctx> = { name: 'debug', methods: { debug_ping: { params: [], handler: () => 'pong' } } }
    // one debug call per 10 s: the test cannot outlast a refill
    const rateLimit = { requests: 0, call: 0, logs: 0, debug: 0.1, burstMs: 1000 }
    for (const enabledApis of [['eth'], ['eth', 'debug']] as const) {
      const server = new RpcHttpServer<Ctx>({
        ...options,
        namespaces: [eth, debug],
        enabledApis,
        corsOrigins: [],
        rateLimit,
      })
      const { url } = await server.start()
      const method = enabledApis.length === 1 ? 'debug_ping' : 'debug_nope'
      const answers = await Promise.all(
        Array.from({ length: 4 }, (_, id) => send(url, { headers: json, body: call(method, [], id) })),
      )
      for (const a of answers) {
        expect(a.status).toBe(200)
        expect(JSON.parse(a.body).error).toEqual({
          code: -32601,
          message: `the method ${method} does not exist/is not available`,
        })
      }
      if (enabledApis.length === 2) {
        // a served debug method still draws on the budget
        const served = await Promise.all(
          Array.from({ length: 3 }, (_, id) => send(url, { headers: json, body: call('debug_ping', [], id) })),
        )
        expect(served.map((a) => a.status).sort()).toEqual([200, 429, 429])
        expect(JSON.parse(served.find((a) => a.status === 429)?.body ?? '{}').error).toMatchObject({
          code: -32005,
          data: { budget: 'debug' },
        })
      }
      await server.stop()
    }
  })

  it('stops promptly with an idle keep-alive connection open, and twice', async () => {
    const server = new RpcHttpServer<Ctx>({ ...options, enabledApis: ['eth'], corsOrigins: [] })
    const { url } = await server.start()
    const agent = new Agent({ keepAlive: true })
    await send(url, { headers: json, body: call('eth_chainId'), agent })
    const started = Date.now()
    await server.stop()
    expect(Date.now() - started).toBeLessThan(1000)
    await server.stop()
    await expect(send(url, { headers: json, body: call('eth_chainId') })).rejects.toThrow()
    agent.destroy()
  })
})

describe('RpcHttpServer with real clients', () => {
  const server = new RpcHttpServer<Ctx>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    maxBodyBytes: 5 * 1024 * 1024,
    maxBatchItems: 1000,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx: { chainId: 786n, seen: 0 },
    health: () => ({ ok: true, body: {} }),
  })
  let url = ''
  beforeAll(async () => {
    url = (await server.start()).url
  })
  afterAll(() => server.stop())

  it('serves viem, errors included', async () => {
    const { createPublicClient, http } = await import('viem')
    const client = createPublicClient({ transport: http(url) })
    expect(await client.getChainId()).toBe(786)
    expect(await client.request({ method: 'eth_add' as 'eth_chainId', params: ['0x2', '0x3'] as never })).toBe('0x5')
    await expect(client.request({ method: 'eth_nope' as 'eth_chainId' })).rejects.toMatchObject({
      code: -32601,
      details: 'the method eth_nope does not exist/is not available',
    })
  })

  it('serves ethers, which batches', async () => {
    const { JsonRpcProvider } = await import('ethers')
    const provider = new JsonRpcProvider(url)
    const [network, sum, other] = await Promise.all([
      provider.getNetwork(),
      provider.send('eth_add', ['0x1', '0x2']),
      provider.send('eth_add', ['0x10', '0x1']),
    ])
    expect(network.chainId).toBe(786n)
    expect(sum).toBe('0x3')
    expect(other).toBe('0x11')
    await expect(provider.send('eth_add', ['1', '0x2'])).rejects.toThrow(/invalid argument 0/)
    provider.destroy()
  })
})

/**
 * The explorer's HTTP side on a real RpcHttpServer: the page and its assets under the mount path
 * with the security headers, immutable caching of this build's assets, ETag revalidation, 404 for
 * anything else (no directory walking), POST to the page's path is JSON-RPC (with its rate limit),
 * and known.json's decoding table (DAO contracts by name, ERC-20 and ERC-721 Transfer told apart).
 */
import { request } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toQuantity } from '../util/hex.js'
import type { Namespace } from '../rpc/types.js'
import { RpcHttpServer } from '../rpc/server/http.js'
import { ASSET_MAX_AGE_SECONDS, buildKnown, EXPLORER_CSP, ExplorerSite } from './site.js'

const eth: Namespace<object> = {
  name: 'eth',
  methods: { eth_chainId: { params: [], handler: () => toQuantity(786n) } },
}

interface Reply {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: string
}

function send(url: string, method = 'GET', headers: Record<string, string> = {}, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(url, { method, headers, agent: false }, (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (c: string) => {
        text += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

let server: RpcHttpServer<object>
let base: string
let site: ExplorerSite

beforeAll(async () => {
  site = new ExplorerSite({ path: '/explorer/', network: 'dev', chainName: 'Ibex Dev', symbol: 'IBX' })
  server = new RpcHttpServer<object>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    maxBodyBytes: 1 << 20,
    maxBatchItems: 100,
    namespaces: [eth],
    enabledApis: ['eth'],
    ctx: {},
    health: () => ({ ok: true, body: {} }),
    site,
    rateLimit: { requests: 5, call: 0, logs: 0, debug: 0, burstMs: 1000, explicit: true },
  })
  base = (await server.start()).url
})

afterAll(async () => {
  await server.stop()
})

function expectSecurity(r: Reply): void {
  expect(r.headers['content-security-policy']).toBe(EXPLORER_CSP)
  expect(r.headers['x-content-type-options']).toBe('nosniff')
  expect(r.headers['referrer-policy']).toBe('no-referrer')
  expect(r.headers['x-frame-options']).toBe('DENY')
}

describe('the explorer on the JSON-RPC port', () => {
  it('serves the page, revalidated on every load, naming this build’s assets', async () => {
    const r = await send(`${base}/explorer/`)
    expect(r.status).toBe(200)
    expect(r.headers['content-type']).toBe('text/html; charset=utf-8')
    expect(r.headers['cache-control']).toBe('no-cache')
    expectSecurity(r)
    expect(r.body).toContain(`src="v/${site.build}/app.js"`)
    expect(r.body).not.toContain('%ASSETS%')
    // no inline script: every <script> has a src
    expect(r.body.match(/<script[^>]*>/g)?.every((tag) => tag.includes(' src='))).toBe(true)
    expect(EXPLORER_CSP).toContain("default-src 'self'")
    expect(EXPLORER_CSP).not.toContain('unsafe-inline')
  })

  it('redirects the path without its slash', async () => {
    const r = await send(`${base}/explorer`)
    expect(r.status).toBe(301)
    expect(r.headers.location).toBe('/explorer/')
  })

  it('serves assets of this build immutable for a year, with an ETag that answers 304', async () => {
    for (const [file, type] of [
      ['app.js', 'text/javascript; charset=utf-8'],
      ['abi.js', 'text/javascript; charset=utf-8'],
      ['style.css', 'text/css; charset=utf-8'],
      ['known.json', 'application/json'],
    ]) {
      const r = await send(`${base}/explorer/v/${site.build}/${file}`)
      expect(r.status, file).toBe(200)
      expect(r.headers['content-type']).toBe(type)
      expect(r.headers['cache-control']).toBe(`public, max-age=${ASSET_MAX_AGE_SECONDS}, immutable`)
      expectSecurity(r)
      const etag = r.headers.etag as string
      expect(etag).toMatch(/^"[\w-]+"$/)
      const again = await send(`${base}/explorer/v/${site.build}/${file}`, 'GET', { 'If-None-Match': etag })
      expect(again.status).toBe(304)
      expect(again.body).toBe('')
    }
    const head = await send(`${base}/explorer/v/${site.build}/app.js`, 'HEAD')
    expect(head.status).toBe(200)
    expect(Number(head.headers['content-length'])).toBeGreaterThan(1000)
    expect(head.body).toBe('')
  })

  it('serves an asset asked under another build without letting it be cached for long', async () => {
    const r = await send(`${base}/explorer/v/0123456789abcdef/app.js`)
    expect(r.status).toBe(200)
    expect(r.headers['cache-control']).toBe('no-cache')
  })

  it('answers 404 for anything else under the path, and outside it as before', async () => {
    for (const path of [
      '/explorer/app.js',
      `/explorer/v/${site.build}/missing.js`,
      `/explorer/v/${site.build}/../site.ts`,
      `/explorer/v/${site.build}/%2e%2e%2fsite.ts`,
      '/explorer/v/x/index.html',
      '/explorerx/',
      '/other',
    ]) {
      const r = await send(`${base}${path}`)
      expect(r.status, path).toBe(404)
    }
    const health = await send(`${base}/health`)
    expect(health.status).toBe(200)
  })

  it('has no write path: POST to the page’s path is JSON-RPC, under its rate limit', async () => {
    const call = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_chainId', params: [] })
    const r = await send(`${base}/explorer/`, 'POST', { 'Content-Type': 'application/json' }, call)
    expect(r.status).toBe(200)
    expect(JSON.parse(r.body).result).toBe('0x312')
    let limited = 0
    for (let i = 0; i < 10; i++) {
      const x = await send(`${base}/explorer/`, 'POST', { 'Content-Type': 'application/json' }, call)
      if (x.status === 429) limited++
    }
    expect(limited).toBeGreaterThan(0)
    const put = await send(`${base}/explorer/`, 'PUT')
    expect(put.status).toBe(405)
  })
})

describe('known.json', () => {
  const known = buildKnown('dev')

  it('labels the DAO contracts at their fixed addresses', () => {
    expect(known.labels['0x0000000000000000000000000000000000da0008']).toBe('DaoLens')
    expect(known.contracts.DaoLens).toBe('0x0000000000000000000000000000000000da0008')
    expect(known.contracts.ValidatorNFT).toBe('0x0000000000000000000000000000000000da0002')
  })

  it('has the selectors and topics of the standards and of the DAO', () => {
    const ids = (sig: string) => known.entries.filter((e) => e.signature === sig)
    expect(ids('transfer(address,uint256)')[0].id).toBe('0xa9059cbb')
    expect(ids('Error(string)')[0].id).toBe('0x08c379a0')
    // ERC-20 and ERC-721 Transfer share topic0 and differ in what is indexed
    const transfers = ids('Transfer(address,address,uint256)')
    expect(new Set(transfers.map((e) => e.id))).toEqual(new Set(['0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef']))
    expect(transfers.map((e) => e.inputs.filter((i) => i.indexed).length).sort()).toEqual([2, 3])
    const attest = known.entries.find((e) => e.source === 'KycRegistry' && e.signature.startsWith('attest('))
    expect(attest?.signature).toBe('attest(address,bytes32,uint8,uint64,bytes32)')
    const seats = known.entries.find((e) => e.source === 'DaoLens' && e.signature === 'seats()')
    expect(seats?.outputs?.[0].type).toBe('tuple[]')
  })
})

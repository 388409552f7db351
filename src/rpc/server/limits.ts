/**
 * Protection of a public JSON-RPC endpoint (used by http.ts):
 *
 *   request ─▶ Host allowed? (VhostPolicy, geth's --http.vhosts) ─no─▶ 403 `invalid host specified`
 *           ─▶ client IP: the peer, or — when the peer is a trusted proxy — the rightmost
 *              X-Forwarded-For entry that is not a trusted proxy (ProxyList / clientAddress)
 *           ─▶ body parsed ─▶ countCalls: every batch item counts once in `requests`, and
 *              expensive ones the port serves also in their class (call, logs, debug); a method
 *              the port does not serve costs only its request and is answered -32601
 *           ─▶ RateLimiter.admit(ip, counts): a token bucket per IP and class ─no─▶ 429,
 *              Retry-After, -32005 `limit exceeded` for each call
 *
 * WebSocket messages (ws.ts) are counted and charged the same way, to the same buckets: one budget
 * per client IP across both transports; a refused message is answered with the same -32005 objects.
 *
 * What always holds:
 *  - a bucket refills at its rate up to `rate × burst`; a request is admitted when every bucket
 *    it draws on holds its cost (or, for a batch bigger than a bucket, when the bucket is full) and
 *    then pays in full, possibly going below zero: a huge batch is served once, then the client
 *    waits until its debt is repaid;
 *  - refused requests cost nothing;
 *  - memory is bounded: at most RATE_LIMIT_MAX_CLIENTS clients are tracked; clients whose buckets
 *    are full again are forgotten by the periodic sweep, the oldest first when over the bound.
 */
import type { IncomingMessage } from 'node:http'
import { isIP } from 'node:net'

import type { RateLimitConfig } from '../../config/types.js'
import { RateLimitedError, toJsonRpcError } from '../errors.js'

/** Most clients tracked at once: ~100 bytes each, so the limiter stays under ~10 MB whatever the flood. */
export const RATE_LIMIT_MAX_CLIENTS = 100_000
/** How often idle clients are forgotten. */
export const RATE_LIMIT_SWEEP_MS = 30_000
/** Longest X-Forwarded-For chain read: a forged header cannot make the node walk a megabyte. */
export const MAX_FORWARDED_HOPS = 16

/** The budgets a call draws on besides `requests`. */
export const CallClass = { Plain: 0, Call: 1, Logs: 2, Debug: 3 } as const
export type CallClass = (typeof CallClass)[keyof typeof CallClass]

/** Methods that run the EVM on a worker. */
const CALL_METHODS = new Set(['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1'])
/**
 * Methods that scan a range of blocks on the main thread (bounded by their own limits): logs, and
 * bor_getRootHash, which hashes up to 2^15 block hashes (~170 ms at its widest).
 */
const LOG_METHODS = new Set(['eth_getLogs', 'eth_getFilterLogs', 'bor_getRootHash'])

/** callClass: which expensive budget `method` also draws on. */
export function callClass(method: unknown): CallClass {
  if (typeof method !== 'string') return CallClass.Plain
  if (CALL_METHODS.has(method)) return CallClass.Call
  if (LOG_METHODS.has(method)) return CallClass.Logs
  if (method.startsWith('debug_')) return CallClass.Debug
  return CallClass.Plain
}

/** The methods a port serves (the dispatcher's table): only those draw on an expensive budget. */
export interface ServedMethods {
  has(method: string): boolean
}

/** What one HTTP body or WebSocket message costs: items in all, and per expensive class. */
export class CallCounts {
  total = 0
  call = 0
  logs = 0
  debug = 0

  /** Counts one message; with `served`, a method outside it costs only its request (it is answered -32601, not run). */
  add(msg: unknown, served?: ServedMethods): void {
    this.total++
    const method = typeof msg === 'object' && msg !== null ? (msg as { method?: unknown }).method : undefined
    if (served !== undefined && (typeof method !== 'string' || !served.has(method))) return
    switch (callClass(method)) {
      case CallClass.Call:
        this.call++
        break
      case CallClass.Logs:
        this.logs++
        break
      case CallClass.Debug:
        this.debug++
        break
    }
  }
}

/** countCalls: the cost of a parsed body (a batch counts each item); see CallCounts.add for `served`. */
export function countCalls(parsed: unknown, served?: ServedMethods): CallCounts {
  const counts = new CallCounts()
  if (Array.isArray(parsed)) for (const item of parsed) counts.add(item, served)
  else counts.add(parsed, served)
  return counts
}

/** One client's buckets: tokens and the time they were last refilled, per class. */
class ClientBuckets {
  readonly tokens: Float64Array
  updatedMs: number
  constructor(capacities: Float64Array, nowMs: number) {
    this.tokens = Float64Array.from(capacities)
    this.updatedMs = nowMs
  }
}

/** The per-IP budgets as the WebSocket transport uses them (ws.ts); RpcHttpServer (http.ts) implements it: one set of buckets with HTTP. */
export interface ClientBudgets {
  /** The IP a connection's messages are charged to (X-Forwarded-For of its upgrade from a trusted proxy honoured). */
  clientOf(req: IncomingMessage): string
  /** Charges a parsed message (undefined: not JSON) to `client`: undefined when admitted, else the refusal (nothing charged). */
  admit(client: string, parsed: unknown): Refusal | undefined
}

/** Which limit refused a request, and for how long. */
export interface Refusal {
  /** Whole seconds until the request would be admitted (Retry-After). */
  retryAfterSeconds: number
  /** The budget that ran out: requests, call, logs or debug. */
  budget: 'requests' | 'call' | 'logs' | 'debug'
}

const BUDGETS = ['requests', 'call', 'logs', 'debug'] as const

export class RateLimiter {
  /** Tokens per millisecond, per class (0 = unlimited). */
  readonly #ratePerMs: Float64Array
  readonly #capacity: Float64Array
  readonly #clients = new Map<string, ClientBuckets>()
  readonly #need = new Float64Array(4)
  readonly #sweep: NodeJS.Timeout

  constructor(config: RateLimitConfig) {
    const rates = [config.requests, config.call, config.logs, config.debug]
    this.#ratePerMs = Float64Array.from(rates, (r) => r / 1000)
    this.#capacity = Float64Array.from(rates, (r) => Math.max(1, (r * config.burstMs) / 1000))
    this.#sweep = setInterval(() => this.sweep(Date.now()), RATE_LIMIT_SWEEP_MS)
    this.#sweep.unref()
  }

  /** A limiter for `config`, or undefined when every rate is 0. */
  static from(config: RateLimitConfig): RateLimiter | undefined {
    return config.requests + config.call + config.logs + config.debug === 0 ? undefined : new RateLimiter(config)
  }

  get trackedClients(): number {
    return this.#clients.size
  }

  /** Charges `counts` to `ip` and returns undefined, or the refusal (nothing charged). */
  admit(ip: string, counts: CallCounts, nowMs: number): Refusal | undefined {
    let client = this.#clients.get(ip)
    if (client === undefined) {
      if (this.#clients.size >= RATE_LIMIT_MAX_CLIENTS) this.sweep(nowMs)
      client = new ClientBuckets(this.#capacity, nowMs)
      this.#clients.set(ip, client)
    } else this.#refill(client, nowMs)
    const need = this.#need
    need[0] = counts.total
    need[1] = counts.call
    need[2] = counts.logs
    need[3] = counts.debug
    let worstMs = 0
    let worst = 0
    for (let i = 0; i < 4; i++) {
      const rate = this.#ratePerMs[i] as number
      const cost = need[i] as number
      if (rate === 0 || cost === 0) continue
      const required = Math.min(cost, this.#capacity[i] as number)
      const have = client.tokens[i] as number
      if (have >= required) continue
      const waitMs = (required - have) / rate
      if (waitMs > worstMs) {
        worstMs = waitMs
        worst = i
      }
    }
    if (worstMs > 0) return { retryAfterSeconds: Math.max(1, Math.ceil(worstMs / 1000)), budget: BUDGETS[worst] }
    for (let i = 0; i < 4; i++) if (this.#ratePerMs[i] !== 0) client.tokens[i] -= need[i] as number
    return undefined
  }

  #refill(client: ClientBuckets, nowMs: number): void {
    const elapsed = nowMs - client.updatedMs
    if (elapsed <= 0) return
    client.updatedMs = nowMs
    for (let i = 0; i < 4; i++) {
      const cap = this.#capacity[i] as number
      const t = (client.tokens[i] as number) + elapsed * (this.#ratePerMs[i] as number)
      client.tokens[i] = t > cap ? cap : t
    }
  }

  /** Forgets clients whose buckets are full again; over the bound, the least recently seen too. */
  sweep(nowMs: number): void {
    for (const [ip, client] of this.#clients) {
      this.#refill(client, nowMs)
      let full = true
      for (let i = 0; i < 4; i++) if ((client.tokens[i] as number) < (this.#capacity[i] as number)) full = false
      if (full) this.#clients.delete(ip)
    }
    if (this.#clients.size < RATE_LIMIT_MAX_CLIENTS) return
    let excess = this.#clients.size - RATE_LIMIT_MAX_CLIENTS + 1
    for (const ip of this.#clients.keys()) {
      if (excess-- <= 0) break
      this.#clients.delete(ip)
    }
  }

  close(): void {
    clearInterval(this.#sweep)
  }
}

// ---------------------------------------------------------------------------------------------
// Client address behind trusted proxies

/** `::ffff:1.2.3.4` (an IPv4 peer on a dual-stack socket) as `1.2.3.4`. */
export function normalizeIp(ip: string): string {
  return ip.startsWith('::ffff:') && isIP(ip.slice(7)) === 4 ? ip.slice(7) : ip
}

function ipToBigInt(ip: string, family: 4 | 6): bigint {
  if (family === 4) {
    let n = 0n
    for (const part of ip.split('.')) n = (n << 8n) | BigInt(Number(part))
    return n
  }
  const [head, tail] = ip.split('::') as [string, string | undefined]
  const groups = (s: string | undefined) => (s === undefined || s === '' ? [] : s.split(':'))
  let h = groups(head)
  let t = groups(tail)
  // an embedded IPv4 tail (::ffff:1.2.3.4) is two groups
  const expand = (g: string[]) =>
    g.flatMap((x) => {
      if (!x.includes('.')) return [x]
      const v = Number(ipToBigInt(x, 4))
      return [(v >>> 16).toString(16), (v & 0xffff).toString(16)]
    })
  h = expand(h)
  t = expand(t)
  const middle = tail === undefined ? [] : new Array<string>(8 - h.length - t.length).fill('0')
  let n = 0n
  for (const g of [...h, ...middle, ...t]) n = (n << 16n) | BigInt(Number.parseInt(g, 16))
  return n
}

interface Cidr {
  family: 4 | 6
  network: bigint
  mask: bigint
}

/** A list of trusted proxies: exact addresses and CIDR ranges. */
export class ProxyList {
  readonly #exact = new Set<string>()
  readonly #ranges: Cidr[] = []

  constructor(entries: readonly string[]) {
    for (const entry of entries) {
      const [ip, bits] = entry.split('/') as [string, string | undefined]
      const family = isIP(ip) as 4 | 6
      if (bits === undefined) {
        this.#exact.add(normalizeIp(ip.toLowerCase()))
        continue
      }
      const width = family === 4 ? 32n : 128n
      const mask = ((1n << width) - 1n) ^ ((1n << (width - BigInt(Number(bits)))) - 1n)
      this.#ranges.push({ family, network: ipToBigInt(ip, family) & mask, mask })
    }
  }

  get empty(): boolean {
    return this.#exact.size === 0 && this.#ranges.length === 0
  }

  has(ip: string): boolean {
    if (this.#exact.has(ip)) return true
    if (this.#ranges.length === 0) return false
    const family = isIP(ip)
    if (family === 0) return false
    const n = ipToBigInt(ip, family as 4 | 6)
    for (const r of this.#ranges) if (r.family === family && (n & r.mask) === r.network) return true
    return false
  }
}

/**
 * clientAddress: the IP that rate limits and the faucet count against — the peer, unless the
 * peer is a trusted proxy; then the rightmost X-Forwarded-For entry that is not itself a trusted
 * proxy (entries left of it are the client's own claims and could be forged).
 */
export function clientAddress(req: IncomingMessage, proxies: ProxyList): string {
  return clientAddressOf(req.socket.remoteAddress ?? '', req.headers['x-forwarded-for'], proxies)
}

/** clientAddress from the peer's address and the X-Forwarded-For header (the HTTP fast path, wire.ts). */
export function clientAddressOf(remote: string, header: string | string[] | undefined, proxies: ProxyList): string {
  const peer = normalizeIp(remote)
  if (proxies.empty || !proxies.has(peer)) return peer
  if (header === undefined) return peer
  const hops = (Array.isArray(header) ? header.join(',') : header).split(',')
  let client = peer
  for (let i = hops.length - 1, seen = 0; i >= 0 && seen < MAX_FORWARDED_HOPS; i--, seen++) {
    const hop = normalizeIp((hops[i] as string).trim().toLowerCase())
    if (isIP(hop) === 0) break
    client = hop
    if (!proxies.has(hop)) break
  }
  return client
}

// ---------------------------------------------------------------------------------------------
// Virtual hosts

/** geth's --http.vhosts: the Host header must name an allowed host (IPs and a missing Host always pass). */
export class VhostPolicy {
  readonly #any: boolean
  readonly #exact: Set<string>
  readonly #suffixes: string[]

  constructor(hosts: readonly string[]) {
    this.#any = hosts.includes('*')
    this.#exact = new Set(hosts.filter((h) => !h.startsWith('*')).map((h) => h.toLowerCase()))
    this.#suffixes = hosts.filter((h) => h.startsWith('*.')).map((h) => h.slice(1).toLowerCase())
  }

  allows(hostHeader: string | undefined): boolean {
    if (this.#any || hostHeader === undefined || hostHeader === '') return true
    let host = hostHeader.toLowerCase()
    if (host.startsWith('[')) {
      const end = host.indexOf(']')
      host = end < 0 ? host : host.slice(1, end)
    } else {
      const colon = host.indexOf(':')
      if (colon >= 0 && host.indexOf(':', colon + 1) < 0) host = host.slice(0, colon)
    }
    if (isIP(host) !== 0 || this.#exact.has(host)) return true
    for (const s of this.#suffixes) if (host.endsWith(s)) return true
    return false
  }
}

// ---------------------------------------------------------------------------------------------
// Refusal bodies

/** The JSON of a refused body: one RateLimitedError (-32005) per call (batch), or one object. */
export function limitExceededBody(parsed: unknown, refusal: Refusal): string {
  const error = JSON.stringify(toJsonRpcError(new RateLimitedError(refusal.budget, refusal.retryAfterSeconds)))
  const answer = (id: unknown) => `{"jsonrpc":"2.0","id":${JSON.stringify(id ?? null)},"error":${error}}`
  if (!Array.isArray(parsed)) return answer(idOf(parsed))
  const parts: string[] = []
  for (const item of parsed) {
    const id = idOf(item)
    if (id !== undefined) parts.push(answer(id))
  }
  return parts.length === 0 ? `[${answer(null)}]` : `[${parts.join(',')}]`
}

function idOf(msg: unknown): unknown {
  if (typeof msg !== 'object' || msg === null || Array.isArray(msg)) return null
  const id = (msg as { id?: unknown }).id
  return id !== null && typeof id === 'object' ? null : id
}

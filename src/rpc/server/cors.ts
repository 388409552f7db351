/**
 * CORS as geth configures it (github.com/rs/cors with AllowedMethods POST, GET; AllowedHeaders *;
 * MaxAge 600). With an empty allow-list no CORS header is ever sent. Origins match
 * case-insensitively; `*` allows any origin and is echoed as `*`; one `*` inside an entry is a
 * wildcard (`https://*.example.com`).
 */
import type { IncomingMessage, ServerResponse } from 'node:http'

/** Seconds browsers may cache a preflight answer (geth's value). */
export const CORS_MAX_AGE_SECONDS = 600

/** Methods a cross-origin request may use. OPTIONS is always allowed. */
const ALLOWED_METHODS = new Set(['GET', 'POST', 'OPTIONS'])

const PREFLIGHT_VARY = 'Origin, Access-Control-Request-Method, Access-Control-Request-Headers'

/** What every answer of a CORS-enabled server carries: caches keep answers per Origin. */
const VARY_ORIGIN: readonly string[] = ['Vary', 'Origin']

export class CorsPolicy {
  private readonly allowAll: boolean
  private readonly exact: Set<string>
  private readonly wildcards: { prefix: string; suffix: string }[]

  constructor(origins: readonly string[]) {
    this.allowAll = false
    this.exact = new Set()
    this.wildcards = []
    for (const raw of origins) {
      const origin = raw.toLowerCase()
      if (origin === '*') {
        this.allowAll = true
        continue
      }
      const star = origin.indexOf('*')
      if (star >= 0) this.wildcards.push({ prefix: origin.slice(0, star), suffix: origin.slice(star + 1) })
      else this.exact.add(origin)
    }
  }

  /** A policy for the configured list, or undefined when the list is empty (CORS off). */
  static fromOrigins(origins: readonly string[]): CorsPolicy | undefined {
    return origins.length === 0 ? undefined : new CorsPolicy(origins)
  }

  isOriginAllowed(origin: string): boolean {
    if (this.allowAll) return true
    const o = origin.toLowerCase()
    if (this.exact.has(o)) return true
    for (const w of this.wildcards) {
      if (o.length >= w.prefix.length + w.suffix.length && o.startsWith(w.prefix) && o.endsWith(w.suffix)) return true
    }
    return false
  }

  /** True for a preflight (OPTIONS with Access-Control-Request-Method), which this answers with 204. */
  isPreflight(req: IncomingMessage): boolean {
    return req.method === 'OPTIONS' && typeof req.headers['access-control-request-method'] === 'string'
  }

  /** Sets the preflight answer's headers. */
  applyPreflight(req: IncomingMessage, res: ServerResponse): void {
    res.setHeader('Vary', PREFLIGHT_VARY)
    const origin = req.headers.origin
    if (origin === undefined || origin === '' || !this.isOriginAllowed(origin)) return
    const method = String(req.headers['access-control-request-method']).toUpperCase()
    if (!ALLOWED_METHODS.has(method)) return
    res.setHeader('Access-Control-Allow-Origin', this.allowAll ? '*' : origin)
    res.setHeader('Access-Control-Allow-Methods', method)
    const requested = req.headers['access-control-request-headers']
    if (typeof requested === 'string') {
      const list = headerList(requested)
      if (list !== '') res.setHeader('Access-Control-Allow-Headers', list)
    }
    res.setHeader('Access-Control-Max-Age', String(CORS_MAX_AGE_SECONDS))
  }

  /** Sets the headers of an actual (non-preflight) request's answer. */
  applyActual(req: IncomingMessage, res: ServerResponse): void {
    const h = this.actualHeaders(req)
    for (let i = 0; i < h.length; i += 2) res.setHeader(h[i] as string, h[i + 1] as string)
  }

  /** The headers of an actual request's answer as name, value pairs (for writeHead). */
  actualHeaders(req: IncomingMessage): readonly string[] {
    return this.actualHeadersFor(req.headers.origin, req.method ?? '')
  }

  /** actualHeaders from the request's Origin header and method (the HTTP fast path, wire.ts). */
  actualHeadersFor(origin: string | undefined, method: string): readonly string[] {
    if (origin === undefined || origin === '' || !this.isOriginAllowed(origin)) return VARY_ORIGIN
    if (!ALLOWED_METHODS.has(method)) return VARY_ORIGIN
    return ['Vary', 'Origin', 'Access-Control-Allow-Origin', this.allowAll ? '*' : origin]
  }
}

/** A comma-separated header list, trimmed, lowercased, empty entries dropped, joined with ", ". */
function headerList(value: string): string {
  let out = ''
  for (const part of value.split(',')) {
    const name = part.trim().toLowerCase()
    if (name === '') continue
    out += out === '' ? name : `, ${name}`
  }
  return out
}

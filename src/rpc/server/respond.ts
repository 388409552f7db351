/**
 * Writing node:http answers as geth's HTTP server words them (http.ts), and reading the two
 * request headers both HTTP paths check (the path of a health probe, the body's media type).
 */
import type { ServerResponse } from 'node:http'
import type { Answer } from './dispatch.js'

/** Media types geth accepts for a JSON-RPC body. */
export const ACCEPTED_CONTENT_TYPES = new Set(['application/json', 'application/json-rpc', 'application/jsonrequest'])

/** Go's http.Error: text/plain, nosniff, message and a newline. */
export function sendText(res: ServerResponse, status: number, message: string): void {
  if (res.headersSent) return
  res.statusCode = status
  res.setHeader('Content-Type', 'text/plain; charset=utf-8')
  res.setHeader('X-Content-Type-Options', 'nosniff')
  res.end(`${message}\n`)
}

export function sendJson(res: ServerResponse, status: number, body: string | undefined): void {
  if (res.headersSent || res.destroyed) return
  res.statusCode = status
  res.setHeader('Content-Type', 'application/json')
  res.end(body)
}

/** Sets name, value pairs with setHeader (answers other than sendAnswer's). */
export function setPairs(res: ServerResponse, pairs: readonly string[]): void {
  for (let i = 0; i < pairs.length; i += 2) res.setHeader(pairs[i] as string, pairs[i + 1] as string)
}

/**
 * sendJson for a POST's answer, its other headers (`headers`, CORS) given as pairs: one
 * writeHead with every header, the cheapest way node:http writes them (no per-header setHeader
 * bookkeeping), on the path every JSON-RPC answer takes. Content-Length as node:http's own
 * end(body) would set it (not chunked).
 */
export function sendAnswer(res: ServerResponse, status: number, body: Answer, headers: readonly string[]): void {
  if (res.headersSent || res.destroyed) return
  const length = String(body === undefined ? 0 : typeof body === 'string' ? Buffer.byteLength(body) : body.length)
  res.writeHead(status, [...headers, 'Content-Type', 'application/json', 'Content-Length', length])
  res.end(body)
}

/**
 * The probe a GET path asks for, a query string aside: `/ready` the readiness check, `/` and
 * `/health` the health check; undefined for any other path (404, as Go's http.NotFound words it).
 */
export function probeOf(url: string | undefined): 'ready' | 'health' | undefined {
  const q = url === undefined ? -1 : url.indexOf('?')
  const path = url === undefined ? '/' : q < 0 ? url : url.slice(0, q)
  if (path === '/ready') return 'ready'
  if (path === '/' || path === '/health' || path === '') return 'health'
  return undefined
}

/** The media type of a Content-Type header, lowercased, without parameters. */
export function mediaType(header: string | undefined): string {
  if (header === undefined) return ''
  const semi = header.indexOf(';')
  return (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase()
}

/**
 * HTTP clients for the operations tests: undici pools bound to a chosen loopback source address
 * (127.0.0.2, 127.0.0.3 …), so one machine can play several clients for the per-IP limits.
 */
import { Pool } from 'undici'

export interface Posted {
  status: number
  headers: Record<string, string | string[] | undefined>
  text: string
  // biome-ignore lint/suspicious/noExplicitAny: JSON of any shape
  json: any
}

/** A keep-alive pool to `url` whose connections leave from `localAddress`. */
export function clientFrom(url: string, localAddress: string, connections = 8): Pool {
  return new Pool(new URL(url).origin, { connections, localAddress })
}

/** POSTs `body` (a JSON-RPC object or batch) and reads the answer. */
export async function post(
  pool: Pool,
  body: unknown,
  headers: Record<string, string> = {},
  path = '/',
): Promise<Posted> {
  const res = await pool.request({
    method: 'POST',
    path,
    headers: { 'content-type': 'application/json', ...headers },
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headersTimeout: 15_000,
    bodyTimeout: 15_000,
  })
  const text = await res.body.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: res.headers, text, json }
}

/** GETs `path` and reads the answer. */
export async function get(pool: Pool, path: string, headers: Record<string, string> = {}): Promise<Posted> {
  const res = await pool.request({ method: 'GET', path, headers })
  const text = await res.body.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.statusCode, headers: res.headers, text, json }
}

let nextId = 1
/** A JSON-RPC call object. */
export function call(
  method: string,
  params: unknown[] = [],
): { jsonrpc: '2.0'; id: number; method: string; params: unknown[] } {
  return { jsonrpc: '2.0', id: nextId++, method, params }
}

/** JSON-RPC over HTTP for the harness's own requests (seeding, checks); load goes through bench/load. */
import type { Tracked } from './peers/process.js'

/** Time a single harness request may take (seeding a slow node included). */
export const RPC_TIMEOUT_MS = 120_000

export class RpcError extends Error {
  readonly code: number
  constructor(method: string, code: number, message: string) {
    super(`${method}: [${code}] ${message}`)
    this.code = code
  }
}

let nextId = 1

/** One call; throws RpcError on a JSON-RPC error. */
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results are untyped JSON
export async function rpc<T = any>(
  url: string,
  method: string,
  params: unknown[] = [],
  timeoutMs = RPC_TIMEOUT_MS,
): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await res.text()
  let body: { result?: T; error?: { code: number; message: string } }
  try {
    body = JSON.parse(text)
  } catch {
    throw new Error(`${method}: HTTP ${res.status}: ${text.slice(0, 200)}`)
  }
  if (body.error) throw new RpcError(method, body.error.code, body.error.message)
  return body.result as T
}

/** POSTs `body` as is; returns the parsed answer and the wall time, ms. */
export async function rpcTimed(
  url: string,
  body: string,
  timeoutMs = RPC_TIMEOUT_MS,
): Promise<{ ms: number; json: unknown; bytes: number }> {
  const t = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
    signal: AbortSignal.timeout(timeoutMs),
  })
  const text = await res.text()
  const ms = performance.now() - t
  return { ms, json: JSON.parse(text), bytes: Buffer.byteLength(text) }
}

/** Resolves once `url` answers eth_chainId; fails when the process exits or `timeoutMs` passes. */
export async function waitForRpc(url: string, proc: Tracked, timeoutMs = 60_000): Promise<void> {
  const until = Date.now() + timeoutMs
  for (;;) {
    try {
      await rpc(url, 'eth_chainId', [], 2_000)
      return
    } catch {
      if (!proc.running()) throw new Error(`${proc.name} exited before serving:\n${proc.output().slice(-2000)}`)
      if (Date.now() > until)
        throw new Error(`${proc.name} did not answer within ${timeoutMs} ms:\n${proc.output().slice(-2000)}`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

/** Waits for a receipt (polling); throws after `timeoutMs`. */
// biome-ignore lint/suspicious/noExplicitAny: receipt JSON
export async function waitReceipt(url: string, hash: string, timeoutMs = 60_000): Promise<any> {
  const until = Date.now() + timeoutMs
  for (let delay = 2; ; delay = Math.min(delay * 2, 100)) {
    const r = await rpc(url, 'eth_getTransactionReceipt', [hash])
    if (r) return r
    if (Date.now() > until) throw new Error(`no receipt for ${hash} after ${timeoutMs} ms`)
    await new Promise((ok) => setTimeout(ok, delay))
  }
}

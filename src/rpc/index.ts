/**
 * The JSON-RPC service: a Backend over the node's modules, the namespace tables, and the
 * HTTP transport (src/rpc/server). Namespaces not listed in `[jsonrpc] api` are not served.
 *
 *   HTTP body ─▶ server/http ─▶ server/dispatch (envelope, batch, params decode)
 *            ─▶ namespaces/<ns>/<method>.handler(backend, params) ─▶ format/* ─▶ JSON
 */
import { Backend, type BackendDeps } from './backend.js'
import { ethNamespace } from './namespaces/eth/index.js'
import { netNamespace } from './namespaces/net.js'
import { web3Namespace } from './namespaces/web3.js'
import { RpcHttpServer } from './server/http.js'
import type { Namespace } from './types.js'

export interface RunningRpc {
  url: string
  backend: Backend
  stop(): Promise<void>
}

export const NAMESPACES: Namespace<Backend>[] = [ethNamespace, netNamespace, web3Namespace]

export async function createRpcServer(deps: BackendDeps): Promise<RunningRpc> {
  const backend = new Backend(deps)
  const rpc = deps.config.jsonrpc
  const server = new RpcHttpServer<Backend>({
    host: rpc.host,
    port: rpc.port,
    corsOrigins: rpc.corsOrigins,
    maxBodyBytes: rpc.maxBodyBytes,
    maxBatchItems: rpc.maxBatchItems,
    namespaces: NAMESPACES,
    enabledApis: rpc.api,
    ctx: backend,
    onInternalError: (err, method) =>
      deps.log.error(`${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    health: () => {
      const head = backend.store.head
      const ageSeconds = Math.floor(Date.now() / 1000) - Number(head.header.timestamp)
      return { ok: true, body: { status: 'ok', synced: true, head: Number(head.header.number), headAgeSeconds: ageSeconds } }
    },
  })
  if (!rpc.enabled) {
    return { url: '', backend, stop: async () => {} }
  }
  const { url } = await server.start()
  return { url, backend, stop: () => server.stop() }
}

/**
 * The JSON-RPC service: a Backend over the node's modules, the namespace tables, and the
 * HTTP and WebSocket transports on one port (src/rpc/server). Namespaces not listed in
 * `[jsonrpc] api` are not served.
 *
 *   HTTP body / WS message ─▶ server/http | server/ws ─▶ server/dispatch (envelope, batch, params)
 *            ─▶ namespaces/<ns>/<method>.handler(backend, params) ─▶ format/* ─▶ JSON
 *   WS eth_subscribe ─▶ namespaces/eth/subscribe (one session per connection) ─▶ src/filters
 */
import { Backend, type BackendDeps } from './backend.js'
import { debugNamespace } from './namespaces/debug.js'
import { debugTraceNamespace } from './namespaces/debugTrace.js'
import { ethNamespace } from './namespaces/eth/index.js'
import { EthSubscriptionSession } from './namespaces/eth/subscribe.js'
import { netNamespace } from './namespaces/net.js'
import { txpoolNamespace } from './namespaces/txpool.js'
import { web3Namespace } from './namespaces/web3.js'
import { CorsPolicy } from './server/cors.js'
import { RpcHttpServer } from './server/http.js'
import { RpcWebSocketServer } from './server/ws.js'
import type { Namespace } from './types.js'

export interface RunningRpc {
  url: string
  backend: Backend
  stop(): Promise<void>
}

export const NAMESPACES: Namespace<Backend>[] = [ethNamespace, netNamespace, web3Namespace, debugNamespace, debugTraceNamespace, txpoolNamespace]

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
    return { url: '', backend, stop: async () => backend.filters.close() }
  }
  const ethServed = rpc.api.includes('eth')
  const ws = new RpcWebSocketServer(server.httpServer, {
    dispatcher: server.dispatcher,
    enabled: rpc.ws ?? true,
    maxPayloadBytes: rpc.maxBodyBytes,
    maxBufferedBytes: rpc.wsMaxBufferedBytes,
    cors: CorsPolicy.fromOrigins(rpc.corsOrigins),
    createSession: (send) => new EthSubscriptionSession(backend.events, send, ethServed),
  })
  const { url } = await server.start()
  const stop = async () => {
    ws.close()
    backend.filters.close()
    await server.stop()
  }
  return { url, backend, stop }
}

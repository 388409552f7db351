/**
 * The JSON-RPC service: a Backend over the node's modules, the namespace tables, and the
 * HTTP and WebSocket transports on one port (src/rpc/server). Namespaces not listed in
 * `[jsonrpc] api` are not served.
 *
 *   HTTP body / WS message ─▶ server/http | server/ws ─▶ server/dispatch (envelope, batch, params)
 *            ─▶ namespaces/<ns>/<method>.handler(backend, typed params) ─▶ format/* ─▶ JSON
 *                 └─ Backend (backend.ts, an interface) ◀─ NodeBackend (nodeBackend.ts): store, state,
 *                                                          txpool, exec pool, filters, network
 *   WS eth_subscribe ─▶ namespaces/eth/subscribe (one session per connection) ─▶ src/filters
 */
import { borNamespace } from './namespaces/bor.js'
import { debugNamespace } from './namespaces/debug.js'
import { debugTraceNamespace } from './namespaces/debugTrace.js'
import { ethNamespace } from './namespaces/eth/index.js'
import { EthSubscriptionSession } from './namespaces/eth/subscribe.js'
import { netNamespace } from './namespaces/net.js'
import { erigonNamespace, otsNamespace, withImpliedNamespaces } from './namespaces/ots.js'
import { personalNamespace } from './namespaces/personal.js'
import { testingNamespace } from './namespaces/testingApi.js'
import { traceNamespace } from './namespaces/trace.js'
import { txpoolNamespace } from './namespaces/txpool.js'
import { validatorsNamespace } from './namespaces/validators.js'
import { CHEAT_NAMESPACES } from './namespaces/dev/cheats.js'
import { web3Namespace } from './namespaces/web3.js'
import type { Backend } from './backend.js'
import { CorsPolicy } from './server/cors.js'
import { type DrainReport, type HealthReport, type HttpObserver, RpcHttpServer, type StaticSite } from './server/http.js'
import { RpcWebSocketServer } from './server/ws.js'
import { type BackendDeps, NodeBackend } from './nodeBackend.js'
import type { Namespace } from './types.js'

export type { BackendDeps } from './nodeBackend.js'

export interface RunningRpc {
  url: string
  backend: NodeBackend
  /** Drains and stops the transports; reports requests running at the start and those cut. */
  stop(): Promise<DrainReport>
}

/** Operations hooks (src/ops): metrics and the /ready check. */
export interface RpcOps {
  metrics?: HttpObserver
  /** GET /ready; `draining` is true once stop() began. */
  ready?: (draining: boolean) => HealthReport
  /** GET pages served beside JSON-RPC: the built-in explorer (src/explorer). */
  site?: StaticSite
}

export const NAMESPACES: Namespace<Backend>[] = [
  ethNamespace,
  netNamespace,
  web3Namespace,
  debugNamespace,
  debugTraceNamespace,
  txpoolNamespace,
  personalNamespace,
  testingNamespace,
  borNamespace,
  validatorsNamespace,
  otsNamespace,
  erigonNamespace,
  traceNamespace,
]

export async function createRpcServer(deps: BackendDeps, ops: RpcOps = {}): Promise<RunningRpc> {
  const backend = new NodeBackend(deps)
  const rpc = deps.config.jsonrpc
  const server: RpcHttpServer<Backend> = new RpcHttpServer<Backend>({
    host: rpc.host,
    port: rpc.port,
    corsOrigins: rpc.corsOrigins,
    maxBodyBytes: rpc.maxBodyBytes,
    maxBatchItems: rpc.maxBatchItems,
    batchConcurrency: rpc.batchConcurrency,
    // the dev chain's test controls exist only where it has them: elsewhere -32601, whatever [jsonrpc] api says
    namespaces: deps.devChain === undefined ? NAMESPACES : [...NAMESPACES, ...CHEAT_NAMESPACES],
    enabledApis: withImpliedNamespaces(rpc.api),
    ctx: backend,
    onInternalError: (err, method) =>
      deps.log.error(`${method} failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`),
    vhosts: rpc.vhosts,
    trustedProxies: rpc.trustedProxies,
    rateLimit: rpc.rateLimit,
    maxConnections: rpc.maxConnections,
    maxConnectionsPerIp: rpc.maxConnectionsPerIp,
    headerTimeoutMs: rpc.headerTimeoutMs,
    readTimeoutMs: rpc.readTimeoutMs,
    idleTimeoutMs: rpc.idleTimeoutMs,
    fastPath: rpc.fastHttp,
    maxResponseBytes: rpc.maxResponseBytes,
    shutdownGraceMs: rpc.shutdownGraceMs,
    metrics: ops.metrics,
    site: ops.site,
    ready: ops.ready === undefined ? undefined : () => (ops.ready as (d: boolean) => HealthReport)(server.isDraining),
    health: () => {
      const head = backend.head()
      const ageSeconds = Math.floor(Date.now() / 1000) - Number(head.header.timestamp)
      return {
        ok: true,
        body: { status: 'ok', synced: true, head: Number(head.header.number), headAgeSeconds: ageSeconds },
      }
    },
  })
  if (!rpc.enabled) {
    return {
      url: '',
      backend,
      stop: async () => {
        backend.close()
        return { inFlight: 0, cut: 0 }
      },
    }
  }
  const ethServed = rpc.api.includes('eth')
  const ws = new RpcWebSocketServer(server.httpServer, {
    dispatcher: server.dispatcher,
    enabled: rpc.ws ?? true,
    maxPayloadBytes: rpc.maxBodyBytes,
    maxBufferedBytes: rpc.wsMaxBufferedBytes,
    cors: CorsPolicy.fromOrigins(rpc.corsOrigins),
    budgets: server.budgets,
    createSession: (send, client) => new EthSubscriptionSession(backend.subscriptions, send, ethServed, client),
  })
  const { url } = await server.start()
  const stop = async () => {
    ws.close()
    backend.close()
    return server.stop()
  }
  return { url, backend, stop }
}

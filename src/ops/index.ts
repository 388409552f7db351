/**
 * Operating a node on a public host: what src/node.ts wires beside the JSON-RPC server, and the
 * commands an operator runs next to the node.
 *
 *   node.ts ─▶ startNodeOps ─▶ NodeMetrics (metrics.ts) ◀── HttpObserver of rpc/server/http.ts
 *                          │                            ◀── ChainEvents.onBlock
 *                          ├─▶ MetricsServer  GET /metrics on --metrics.addr:--metrics.port
 *                          └─▶ readiness (health.ts) ──▶ GET /ready of the JSON-RPC port
 *   `ibex chain-info` ─▶ chainInfo.ts (chain-registry entry, EIP-3085 wallet parameters)
 *   `ibex faucet`     ─▶ faucet/ (page + POST /faucet, cooldowns that survive restarts)
 *
 * Public-endpoint protection (rate limits, vhosts, trusted proxies, timeouts, response cap) is in
 * src/rpc/server/limits.ts, beside the transport it guards. Unit files: deploy/.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import type { Database } from '../db/db.js'
import type { Engine } from '../chain/hash.js'
import type { ChainStore } from '../chain/store.js'
import { packageRoot } from '../config/genesis.js'
import type { IbexConfig } from '../config/types.js'
import { decodeExtra } from '../consensus/ibft/index.js'
import type { ExecPool } from '../exec/pool/index.js'
import type { ChainEvents } from '../filters/index.js'
import type { Logger } from '../log.js'
import type { NetworkInfo } from '../p2p/network.js'
import { NAMESPACES, type RpcOps } from '../rpc/index.js'
import type { TxPool } from '../txpool/index.js'
import { readiness } from './health.js'
import { MetricsServer, NodeMetrics } from './metrics.js'

export interface NodeOpsDeps {
  config: IbexConfig
  chainDir: string
  db: Database
  store: ChainStore
  pool: TxPool
  events: ChainEvents
  engine: Engine
  chainId: bigint
  exec: ExecPool | undefined
  network: NetworkInfo | undefined
  /** Validators in the head's set (several = consensus needs peers). */
  validators: number
  log: Logger
}

export interface NodeOps {
  /** Hooks for createRpcServer. */
  rpc: RpcOps
  /** The metrics URL, when --metrics is on. */
  metricsUrl: string | undefined
  stop(): Promise<void>
}

function packageVersion(): string {
  try {
    return (
      (JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8')) as { version?: string }).version ??
      'unknown'
    )
  } catch {
    return 'unknown'
  }
}

/** Starts metrics (when configured) and builds the /ready check. */
export async function startNodeOps(d: NodeOpsDeps): Promise<NodeOps> {
  const { config } = d
  const p2p = config.p2p
  const expectPeers = p2p !== undefined && (p2p.bootnodes.length > 0 || d.validators > 1)
  const rpc: RpcOps = {
    ready: (draining) => readiness({ store: d.store, db: d.db, network: d.network, expectPeers }, draining),
  }
  if (!config.metrics.enabled) return { rpc, metricsUrl: undefined, stop: async () => {} }

  const exec = d.exec
  const metrics = new NodeMetrics(
    {
      store: d.store,
      chainDir: d.chainDir,
      txpool: () => d.pool.stats(),
      peers: d.network === undefined ? undefined : () => (d.network as NetworkInfo).peerCount(),
      execPool: exec === undefined ? undefined : () => exec.stats(),
      roundOf: d.engine === 'ibft' ? (block) => decodeExtra(block.header.extraData).round : undefined,
    },
    { version: packageVersion(), network: config.network, chainId: d.chainId.toString() },
  )
  const enabled = new Set<string>(config.jsonrpc.api)
  const methods = ['eth_subscribe', 'eth_unsubscribe']
  for (const ns of NAMESPACES) if (enabled.has(ns.name)) methods.push(...Object.keys(ns.methods))
  metrics.setMethods(methods)
  rpc.metrics = metrics
  const offBlock = d.events.onBlock((e) => metrics.onBlock(e.block))
  const server = new MetricsServer(metrics)
  let metricsUrl: string
  try {
    metricsUrl = await server.start(config.metrics.host, config.metrics.port)
  } catch (err) {
    offBlock()
    throw new Error(
      `metrics: cannot listen on ${config.metrics.host}:${config.metrics.port}: ${(err as Error).message}`,
    )
  }
  d.log.info(`metrics on ${metricsUrl}`)
  return {
    rpc,
    metricsUrl,
    async stop() {
      offBlock()
      await server.stop()
    },
  }
}

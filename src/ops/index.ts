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
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import type { Database } from '../db/db.js'
import type { Engine } from '../chain/hash.js'
import type { ChainStore } from '../chain/store.js'
import { packageRoot } from '../config/genesis.js'
import { loadValidatorKey, validatorKeyPath } from '../config/keys.js'
import type { IbexConfig } from '../config/types.js'
import type { CheckpointStatusView } from '../consensus/checkpoints.js'
import { decodeExtra } from '../consensus/ibft/index.js'
import type { ExecPool } from '../exec/pool/index.js'
import type { ChainEvents } from '../filters/index.js'
import type { Logger } from '../log.js'
import type { NetworkInfo } from '../p2p/network.js'
import { NAMESPACES, type RpcOps } from '../rpc/index.js'
import type { TxPool } from '../txpool/index.js'
import { cannotFollow, maxHeadAge, readiness } from './health.js'
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
  /** Checkpoints and uptime ([checkpoint] enabled): the uptime gauges. */
  checkpoints?: CheckpointStatusView
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

/**
 * FOLLOW_WARNING_FIRST_MS, FOLLOW_WARNING_MAX_MS: a node that cannot follow its chain says so at
 * start, then again after 1 min, 2 min, 4 min … at most hourly while its head stays stale: seen in
 * any log window, never a flood.
 */
export const FOLLOW_WARNING_FIRST_MS = 60_000
export const FOLLOW_WARNING_MAX_MS = 3_600_000

/** The chain's block time: the longer of this node's setting and the genesis' `config.ibft.blockTime`. */
function chainBlockTimeMs(config: IbexConfig, db: Database): number {
  const stored = db.getSync('meta', Buffer.from('genesis.json'))
  const genesis = stored === undefined ? undefined : JSON.parse(Buffer.from(stored).toString('utf8'))
  const fromGenesis = Math.round(Number(genesis?.config?.ibft?.blockTime ?? 0) * 1000)
  return Math.max(config.blockTimeMs, fromGenesis)
}

/** The node's validator address, when it has a key (the same file src/node.ts loads). */
function validatorAddress(config: IbexConfig): string | undefined {
  if (config.validatorKeyFile === undefined && !existsSync(validatorKeyPath(config))) return undefined
  try {
    return loadValidatorKey(config, { create: false }).address.toLowerCase()
  } catch {
    return undefined
  }
}

/** Starts metrics (when configured) and builds the /ready check and the cannot-follow warning. */
export async function startNodeOps(d: NodeOpsDeps): Promise<NodeOps> {
  const { config } = d
  const p2p = config.p2p
  const expectPeers = p2p !== undefined && (p2p.bootnodes.length > 0 || d.validators > 1)
  const address = validatorAddress(config)
  const blockTimeMs = chainBlockTimeMs(config, d.db)
  const maxLagBlocks = config.jsonrpc.readyMaxLagBlocks
  /** This node's place in the head's validator set (the set may change by vote, so read per head). */
  const role = () => {
    const set =
      d.engine === 'ibft'
        ? decodeExtra(d.store.head.header.extraData).validators.map((v) => `0x${Buffer.from(v).toString('hex')}`)
        : []
    const validator = address !== undefined && set.includes(address)
    return { validator, soleValidator: validator && set.length === 1, validators: set.length }
  }
  const rpc: RpcOps = {
    ready: (draining) => {
      const { soleValidator, validators } = role()
      const cadence = { blockTimeMs, validators, roundTimeoutBaseMs: config.ibft.roundTimeoutBaseMs, maxLagBlocks }
      const sources = { store: d.store, db: d.db, network: d.network, expectPeers, soleValidator, maxLagBlocks }
      return readiness({ ...sources, maxHeadAgeMs: maxHeadAge(cadence) }, draining)
    },
  }
  const stopWarning = warnWhileStranded(d, () => {
    const { validator, soleValidator } = role()
    return cannotFollow({
      soleValidator,
      validator,
      p2p: d.network !== undefined,
      bootnodes: p2p?.bootnodes.length ?? 0,
    })
  })
  if (!config.metrics.enabled) return { rpc, metricsUrl: undefined, stop: async () => stopWarning() }

  const exec = d.exec
  const metrics = new NodeMetrics(
    {
      store: d.store,
      chainDir: d.chainDir,
      txpool: () => d.pool.stats(),
      peers: d.network === undefined ? undefined : () => (d.network as NetworkInfo).peerCount(),
      execPool: exec === undefined ? undefined : () => exec.stats(),
      roundOf: d.engine === 'ibft' ? (block) => decodeExtra(block.header.extraData).round : undefined,
      checkpoints: d.checkpoints,
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
    stopWarning()
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
      stopWarning()
      await server.stop()
    },
  }
}

/**
 * warnWhileStranded logs `why()` at start when the node cannot follow its chain, then again on a
 * doubling interval (FOLLOW_WARNING_FIRST_MS … FOLLOW_WARNING_MAX_MS) while its head does not move.
 * Returns the function that stops it.
 */
function warnWhileStranded(d: NodeOpsDeps, why: () => string | undefined): () => void {
  const first = why()
  if (first === undefined) return () => {}
  const warn = (reason: string) =>
    d.log.warn(`this node cannot follow its chain: ${reason}; head ${d.store.head.header.number}, /ready answers 503`)
  warn(first)
  let delay = FOLLOW_WARNING_FIRST_MS
  let lastHead = d.store.head.header.number
  let timer: NodeJS.Timeout | undefined
  const schedule = () => {
    timer = setTimeout(() => {
      const head = d.store.head.header.number
      const reason = why()
      if (reason !== undefined && head === lastHead) warn(reason)
      lastHead = head
      delay = Math.min(delay * 2, FOLLOW_WARNING_MAX_MS)
      schedule()
    }, delay)
    timer.unref()
  }
  schedule()
  return () => clearTimeout(timer)
}

/**
 * Prometheus metrics (`--metrics`; off by default), with prom-client on a registry of its own,
 * served as text on `GET /metrics` of a separate listener (`--metrics.addr`, `--metrics.port`),
 * never on the public JSON-RPC port.
 *
 *   rpc/server/http ──HttpObserver──▶ requests by method and outcome, latency, in flight,
 *                                     batch sizes, rate-limited calls
 *   ChainEvents.onBlock ────────────▶ head, block interval, transactions, IBFT round of each block
 *   scrape (collect) ───────────────▶ txpool pending/queued, peers, exec pool queues and threads,
 *                                     database size, process (CPU, memory, GC, event loop lag)
 *
 * The hot path does no label lookups: each served method's children are made once (`setMethods`);
 * any other name is counted under `method="other"` so a client cannot grow the label set.
 */
import { readdirSync, statSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'

import { bytesToHex } from '@ethereumjs/util'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'

import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { CheckpointStatusView } from '../consensus/checkpoints.js'
import { type Health, UPTIME_SCALE } from '../validators/checkpoint/uptime.js'
import type { Refusal } from '../rpc/server/limits.js'
import type { HttpObserver } from '../rpc/server/http.js'

/** Latency buckets, seconds: a cached read is ~50 µs, an eth_call ms, a trace seconds. */
export const RPC_LATENCY_BUCKETS_S = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
/** Batch size buckets, items (the batch limit is 1000). */
export const BATCH_SIZE_BUCKETS = [1, 2, 5, 10, 20, 50, 100, 200, 500, 1000]
/** Block interval buckets, seconds, around the 2 s block time and IBFT round timeouts. */
export const BLOCK_INTERVAL_BUCKETS_S = [0.1, 0.25, 0.5, 1, 1.5, 2, 2.5, 3, 5, 10, 20, 60]
/** The database directory is measured at most this often: a scrape must not walk it every time. */
export const DB_SIZE_REFRESH_MS = 15_000
/** Health states in the order of the ibex_checkpoint_health gauge's values. */
const HEALTH_LEVELS: readonly Health[] = ['healthy', 'grace period', 'notice of deficiency', 'final notice']
/** Label of every method not served (typos, probes). */
export const OTHER_METHOD = 'other'

/** What the collectors read at scrape time. */
export interface MetricsSources {
  store: ChainStore
  /** Chain data directory, for the database size. */
  chainDir: string
  txpool?: () => { pending: number; queued: number }
  peers?: () => number
  execPool?: () => Record<string, { threads: number; queued: number; completed: number } | undefined>
  /** The IBFT round a block was decided in (from its extraData); undefined for other engines. */
  roundOf?: (block: ChainBlock) => bigint | undefined
  /** Checkpoints on the base chain and the signers' uptime ([checkpoint] enabled). */
  checkpoints?: CheckpointStatusView
}

export interface NodeInfoLabels {
  version: string
  network: string
  chainId: string
}

interface MethodChildren {
  ok: Counter.Internal
  error: Counter.Internal
  limited: Counter.Internal
  latency: Histogram.Internal<'method'>
}

/** Bytes of the files under `dir` (RocksDB keeps a flat directory of SST and log files). */
export function directorySize(dir: string): number {
  let total = 0
  let entries: string[]
  try {
    entries = readdirSync(dir)
  } catch {
    return 0
  }
  for (const name of entries) {
    try {
      const st = statSync(join(dir, name))
      total += st.isDirectory() ? directorySize(join(dir, name)) : st.size
    } catch {
      // removed by a compaction meanwhile
    }
  }
  return total
}

export class NodeMetrics implements HttpObserver {
  readonly registry = new Registry()
  readonly #requests: Counter<'method' | 'outcome'>
  readonly #latency: Histogram<'method'>
  readonly #inFlight: Gauge
  readonly #batch: Histogram
  readonly #limited: Counter<'budget'>
  readonly #blockInterval: Histogram
  readonly #transactions: Counter
  readonly #round: Gauge
  readonly #roundChanges: Counter
  readonly #children = new Map<string, MethodChildren>()
  readonly #other: MethodChildren
  readonly #sources: MetricsSources
  #lastBlockMs = 0
  #dbSize = 0
  #dbSizeAtMs = -Infinity
  readonly #completed = new Map<string, number>()

  constructor(sources: MetricsSources, info: NodeInfoLabels) {
    this.#sources = sources
    const registers = [this.registry]
    collectDefaultMetrics({ register: this.registry })
    new Gauge({
      name: 'ibex_info',
      help: 'Constant 1, labelled with the node version, network and chain id',
      labelNames: ['version', 'network', 'chain_id'],
      registers,
    }).set({ version: info.version, network: info.network, chain_id: info.chainId }, 1)
    this.#requests = new Counter({
      name: 'ibex_rpc_requests_total',
      help: 'JSON-RPC calls (batch items each) by method and outcome: ok, error (a JSON-RPC error answer), limited (refused by the rate limiter)',
      labelNames: ['method', 'outcome'],
      registers,
    })
    this.#latency = new Histogram({
      name: 'ibex_rpc_request_duration_seconds',
      help: 'Time from dispatch to answer of each JSON-RPC call, by method',
      labelNames: ['method'],
      buckets: RPC_LATENCY_BUCKETS_S,
      registers,
    })
    this.#inFlight = new Gauge({
      name: 'ibex_rpc_http_requests_in_flight',
      help: 'HTTP JSON-RPC requests received and not yet answered',
      registers,
    })
    this.#batch = new Histogram({
      name: 'ibex_rpc_batch_size',
      help: 'Items per JSON-RPC batch request',
      buckets: BATCH_SIZE_BUCKETS,
      registers,
    })
    this.#limited = new Counter({
      name: 'ibex_rpc_rate_limited_total',
      help: 'JSON-RPC calls refused with HTTP 429 / -32005, by the budget that ran out (requests, call, logs, debug)',
      labelNames: ['budget'],
      registers,
    })
    const store = sources.store
    new Gauge({
      name: 'ibex_chain_head_block',
      help: 'Number of the head block',
      registers,
      collect() {
        this.set(Number(store.head.header.number))
      },
    })
    new Gauge({
      name: 'ibex_chain_head_timestamp_seconds',
      help: 'Timestamp of the head block (now minus this is its age)',
      registers,
      collect() {
        this.set(Number(store.head.header.timestamp))
      },
    })
    this.#blockInterval = new Histogram({
      name: 'ibex_chain_block_interval_seconds',
      help: 'Wall-clock time between consecutive new head blocks seen by this node',
      buckets: BLOCK_INTERVAL_BUCKETS_S,
      registers,
    })
    this.#transactions = new Counter({
      name: 'ibex_chain_transactions_total',
      help: 'Transactions in the blocks this node added to its chain since start',
      registers,
    })
    this.#round = new Gauge({
      name: 'ibex_ibft_round',
      help: 'IBFT round in which the head block was decided (0 = first proposal)',
      registers,
    })
    this.#roundChanges = new Counter({
      name: 'ibex_ibft_round_changes_total',
      help: 'IBFT round changes: the sum of the decided rounds of the blocks added since start',
      registers,
    })
    const txpool = sources.txpool
    new Gauge({
      name: 'ibex_txpool_transactions',
      help: 'Transactions in the pool by subpool: pending (executable) and queued (future nonces)',
      labelNames: ['subpool'],
      registers,
      collect() {
        const s = txpool?.() ?? { pending: 0, queued: 0 }
        this.set({ subpool: 'pending' }, s.pending)
        this.set({ subpool: 'queued' }, s.queued)
      },
    })
    const peers = sources.peers
    new Gauge({
      name: 'ibex_p2p_peers',
      help: 'Connected p2p peers (0 without p2p)',
      registers,
      collect() {
        this.set(peers?.() ?? 0)
      },
    })
    const exec = sources.execPool
    const completed = this.#completed
    new Counter({
      name: 'ibex_exec_tasks_completed_total',
      help: 'Tasks the execution worker pool finished, by lane (calls, traces)',
      labelNames: ['lane'],
      registers,
      collect() {
        for (const [lane, s] of Object.entries(exec?.() ?? {})) {
          if (s === undefined) continue
          const before = completed.get(lane) ?? 0
          this.inc({ lane }, Math.max(0, s.completed - before))
          completed.set(lane, Math.max(before, s.completed))
        }
      },
    })
    new Gauge({
      name: 'ibex_exec_queue_depth',
      help: 'Tasks waiting for an execution worker, by lane (calls, traces)',
      labelNames: ['lane'],
      registers,
      collect() {
        for (const [lane, s] of Object.entries(exec?.() ?? {})) if (s !== undefined) this.set({ lane }, s.queued)
      },
    })
    new Gauge({
      name: 'ibex_exec_threads',
      help: 'Execution worker threads running, by lane',
      labelNames: ['lane'],
      registers,
      collect() {
        for (const [lane, s] of Object.entries(exec?.() ?? {})) if (s !== undefined) this.set({ lane }, s.threads)
      },
    })
    const self = this
    new Gauge({
      name: 'ibex_db_size_bytes',
      help: `Bytes of the chain database directory (measured at most every ${DB_SIZE_REFRESH_MS / 1000} s)`,
      registers,
      collect() {
        this.set(self.databaseSize(Date.now()))
      },
    })
    const flat = sources.store.flat
    new Gauge({
      name: 'ibex_state_flat_accounts_ready',
      help: "1 when the flat account table holds the head's state (account reads in one lookup), 0 while it is built",
      registers,
      collect() {
        this.set(flat.stats().valid ? 1 : 0)
      },
    })
    new Gauge({
      name: 'ibex_state_flat_accounts_backfill_rows',
      help: 'Accounts the running flat account table build has written (0 when none runs)',
      registers,
      collect() {
        this.set(flat.stats().backfillRows)
      },
    })
    const checkpoints = sources.checkpoints
    if (checkpoints !== undefined) {
      new Gauge({
        name: 'ibex_checkpoint_count',
        help: 'Checkpoints stored in the base chain\'s CheckpointManager (as of the last read)',
        registers,
        collect() {
          this.set(Number(checkpoints.count()))
        },
      })
      new Gauge({
        name: 'ibex_checkpoint_uptime_ratio',
        help: 'Share of the last [checkpoint] uptime_window checkpoints each current signer signed (since it joined), 0..1',
        labelNames: ['signer'],
        registers,
        collect() {
          this.reset()
          for (const v of checkpoints.lastUptime()?.validators ?? [])
            this.set({ signer: bytesToHex(v.signer) }, Number(v.uptimePpm) / Number(UPTIME_SCALE))
        },
      })
      new Gauge({
        name: 'ibex_checkpoint_health',
        help: 'Health of each current signer by the performance rule: 0 healthy, 1 grace period, 2 notice of deficiency, 3 final notice',
        labelNames: ['signer'],
        registers,
        collect() {
          this.reset()
          for (const v of checkpoints.lastUptime()?.validators ?? [])
            this.set({ signer: bytesToHex(v.signer) }, HEALTH_LEVELS.indexOf(v.health))
        },
      })
    }
    this.#other = this.#makeChildren(OTHER_METHOD)
  }

  /** Makes the label children of every served method once (the hot path then only increments). */
  setMethods(methods: Iterable<string>): void {
    for (const m of methods) if (!this.#children.has(m)) this.#children.set(m, this.#makeChildren(m))
  }

  #makeChildren(method: string): MethodChildren {
    return {
      ok: this.#requests.labels(method, 'ok'),
      error: this.#requests.labels(method, 'error'),
      limited: this.#requests.labels(method, 'limited'),
      latency: this.#latency.labels(method),
    }
  }

  #of(method: unknown): MethodChildren {
    return (typeof method === 'string' ? this.#children.get(method) : undefined) ?? this.#other
  }

  // --- HttpObserver -------------------------------------------------------------------------

  readonly call = (method: string, errorCode: number | undefined, seconds: number): void => {
    const c = this.#of(method)
    if (errorCode === undefined) c.ok.inc()
    else c.error.inc()
    c.latency.observe(seconds)
  }

  requestStarted(): void {
    this.#inFlight.inc()
  }

  requestEnded(): void {
    this.#inFlight.dec()
  }

  batch(items: number): void {
    this.#batch.observe(items)
  }

  limited(parsed: unknown, refusal: Refusal): void {
    const items = Array.isArray(parsed) ? parsed : [parsed]
    for (const item of items) {
      const method = typeof item === 'object' && item !== null ? (item as { method?: unknown }).method : undefined
      this.#of(method).limited.inc()
    }
    this.#limited.inc({ budget: refusal.budget }, items.length)
  }

  // --- chain --------------------------------------------------------------------------------

  /** A new head block (consensus, sync or the sole validator's sealer). */
  onBlock(block: ChainBlock, nowMs = performance.now()): void {
    if (this.#lastBlockMs > 0) this.#blockInterval.observe((nowMs - this.#lastBlockMs) / 1000)
    this.#lastBlockMs = nowMs
    this.#transactions.inc(block.transactions.length)
    const round = this.#sources.roundOf?.(block)
    if (round !== undefined) {
      this.#round.set(Number(round))
      if (round > 0n) this.#roundChanges.inc(Number(round))
    }
  }

  /** The chain directory's size, re-measured at most every DB_SIZE_REFRESH_MS. */
  databaseSize(nowMs: number): number {
    if (nowMs - this.#dbSizeAtMs >= DB_SIZE_REFRESH_MS) {
      this.#dbSize = directorySize(this.#sources.chainDir)
      this.#dbSizeAtMs = nowMs
    }
    return this.#dbSize
  }

  /** The exposition text and its content type. */
  async scrape(): Promise<{ text: string; contentType: string }> {
    return { text: await this.registry.metrics(), contentType: this.registry.contentType }
  }
}

/** The metrics listener: GET /metrics; anything else 404. */
export class MetricsServer {
  readonly #server: Server
  readonly #metrics: NodeMetrics

  constructor(metrics: NodeMetrics) {
    this.#metrics = metrics
    this.#server = createServer((req, res) => void this.#onRequest(req, res))
  }

  start(host: string, port: number): Promise<string> {
    return new Promise((resolve, reject) => {
      this.#server.once('error', reject)
      this.#server.listen(port, host, () => {
        this.#server.off('error', reject)
        const { port: bound } = this.#server.address() as AddressInfo
        resolve(`http://${host.includes(':') ? `[${host}]` : host}:${bound}/metrics`)
      })
    })
  }

  async #onRequest(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const path = (req.url ?? '/').split('?')[0]
    if ((req.method !== 'GET' && req.method !== 'HEAD') || path !== '/metrics') {
      res.statusCode = 404
      res.end('not found: GET /metrics\n')
      return
    }
    try {
      const { text, contentType } = await this.#metrics.scrape()
      res.setHeader('Content-Type', contentType)
      res.end(req.method === 'HEAD' ? undefined : text)
    } catch (err) {
      res.statusCode = 500
      res.end(`metrics failed: ${err instanceof Error ? err.message : String(err)}\n`)
    }
  }

  stop(): Promise<void> {
    if (!this.#server.listening) return Promise.resolve()
    return new Promise((resolve) => {
      this.#server.close(() => resolve())
      this.#server.closeAllConnections()
    })
  }
}

/**
 * Polling filters (eth_newFilter, eth_newBlockFilter, eth_newPendingTransactionFilter), per the
 * spec's lifecycle:
 *
 *   (none) ──new*Filter──▶ installed ──getFilterChanges──▶ installed (items since the last poll,
 *                              │                              each exactly once; deadline reset)
 *                              ├──getFilterLogs──▶ installed (logs filter: same as eth_getLogs)
 *                              ├──uninstallFilter──▶ removed (true; then false)
 *                              └──no getFilterChanges for `filter_timeout`──▶ removed
 *   removed / unknown ──any poll──▶ -32000 `filter not found`
 *
 * Expiry is exact: every access checks the deadline; a sweep every filter timeout (at least
 * FILTER_SWEEP_MIN_MS) frees abandoned filters. Ids are geth's rpc.ID: 0x + 16 random bytes in
 * hex without leading zeros. Changes are domain values (block hashes, ChainLogs, pool
 * transactions); the RPC layer formats them.
 */
import { randomBytes } from 'node:crypto'
import type { ChainStore } from '../chain/store.js'
import type { PoolTx } from '../txpool/index.js'
import { filterErrors } from './errors.js'
import type { ChainLog } from './chainLog.js'
import type { ChainEvents, NewBlockEvent } from './events.js'
import { bloomMayMatch, compileMatcher, type LogMatcher, logMatches } from './match.js'
import { inRange, type LogQuery, type LogQueryLimits, queryLogs } from './query.js'

/** Expired filters are swept at most this often (they are refused at once whatever the sweep). */
export const FILTER_SWEEP_MIN_MS = 1_000

/** A new filter or subscription id, as geth's rpc.NewID makes them. */
export function newRpcId(): string {
  const hex = randomBytes(16).toString('hex').replace(/^0+/, '')
  return `0x${hex === '' ? '0' : hex}`
}

/** What a filter gathered since its last poll (eth_getFilterChanges), by filter kind. */
export type FilterChanges =
  | { readonly kind: 'blocks'; readonly hashes: Uint8Array[] }
  | { readonly kind: 'logs'; readonly logs: ChainLog[] }
  /** `fullTx`: the filter asked for transaction objects, not hashes. */
  | { readonly kind: 'pendingTxs'; readonly txs: PoolTx[]; readonly fullTx: boolean }

/** Empty changes of the same kind as `c`. */
function emptyLike(c: FilterChanges): FilterChanges {
  switch (c.kind) {
    case 'blocks':
      return { kind: 'blocks', hashes: [] }
    case 'logs':
      return { kind: 'logs', logs: [] }
    case 'pendingTxs':
      return { kind: 'pendingTxs', txs: [], fullTx: c.fullTx }
  }
}

class InstalledFilter {
  readonly query: LogQuery | undefined
  readonly matcher: LogMatcher | undefined
  deadline: number
  /** Gathered since the last poll. */
  changes: FilterChanges
  constructor(changes: FilterChanges, query: LogQuery | undefined, deadline: number) {
    this.query = query
    this.matcher = query === undefined ? undefined : compileMatcher(query)
    this.deadline = deadline
    this.changes = changes
  }
}

export interface FilterSystemOptions {
  store: ChainStore
  events: ChainEvents
  /** A filter not polled with eth_getFilterChanges for this long is removed. */
  timeoutMs: number
  limits: LogQueryLimits
  now?: () => number
}

export class FilterSystem {
  readonly limits: LogQueryLimits
  readonly #store: ChainStore
  readonly #timeoutMs: number
  readonly #now: () => number
  readonly #filters = new Map<string, InstalledFilter>()
  readonly #off: (() => void)[]
  readonly #sweep: NodeJS.Timeout

  constructor(o: FilterSystemOptions) {
    this.#store = o.store
    this.#timeoutMs = o.timeoutMs
    this.limits = o.limits
    this.#now = o.now ?? Date.now
    this.#off = [o.events.onBlock((e) => this.#onBlock(e)), o.events.onPendingTx((tx) => this.#onPendingTx(tx))]
    this.#sweep = setInterval(() => this.#sweepExpired(), Math.max(o.timeoutMs, FILTER_SWEEP_MIN_MS))
    this.#sweep.unref()
  }

  /** Installed filters (expired ones not yet swept included). */
  get size(): number {
    return this.#filters.size
  }

  newLogFilter(query: LogQuery): string {
    const { fromBlock, toBlock } = query
    if (fromBlock?.kind === 'number' && toBlock?.kind === 'number' && fromBlock.number > toBlock.number) {
      throw filterErrors.invalidRange()
    }
    return this.#install(new InstalledFilter({ kind: 'logs', logs: [] }, query, this.#deadline()))
  }

  newBlockFilter(): string {
    return this.#install(new InstalledFilter({ kind: 'blocks', hashes: [] }, undefined, this.#deadline()))
  }

  newPendingTransactionFilter(fullTx: boolean): string {
    return this.#install(new InstalledFilter({ kind: 'pendingTxs', txs: [], fullTx }, undefined, this.#deadline()))
  }

  /** What the filter gathered since the last poll; restarts the idle timeout. */
  changes(id: string): FilterChanges {
    const f = this.#live(id)
    f.deadline = this.#deadline()
    const changes = f.changes
    f.changes = emptyLike(changes)
    return changes
  }

  /** Every log matching a log filter's criteria, resolved now (eth_getLogs with them). */
  logs(id: string): Promise<ChainLog[]> {
    const f = this.#live(id)
    if (f.query === undefined) throw filterErrors.notFound()
    return queryLogs(this.#store, f.query, this.limits)
  }

  uninstall(id: string): boolean {
    const f = this.#filters.get(id)
    if (f === undefined) return false
    this.#filters.delete(id)
    return f.deadline >= this.#now()
  }

  close(): void {
    clearInterval(this.#sweep)
    for (const off of this.#off) off()
    this.#filters.clear()
  }

  #deadline(): number {
    return this.#now() + this.#timeoutMs
  }

  #install(f: InstalledFilter): string {
    let id = newRpcId()
    while (this.#filters.has(id)) id = newRpcId()
    this.#filters.set(id, f)
    return id
  }

  #live(id: string): InstalledFilter {
    const f = this.#filters.get(id)
    if (f === undefined) throw filterErrors.notFound()
    if (f.deadline < this.#now()) {
      this.#filters.delete(id)
      throw filterErrors.notFound()
    }
    return f
  }

  #sweepExpired(): void {
    const now = this.#now()
    for (const [id, f] of this.#filters) if (f.deadline < now) this.#filters.delete(id)
  }

  #onBlock(e: NewBlockEvent): void {
    if (this.#filters.size === 0) return
    const now = this.#now()
    const block = e.block
    for (const f of this.#filters.values()) {
      if (f.deadline < now) continue
      const c = f.changes
      if (c.kind === 'blocks') {
        c.hashes.push(block.hash)
      } else if (c.kind === 'logs') {
        const q = f.query as LogQuery
        const m = f.matcher as LogMatcher
        if (!inRange(q, block.header.number) || !bloomMayMatch(block.header.logsBloom, m)) continue
        for (const log of e.logs()) if (logMatches(log.address, log.topics, m)) c.logs.push(log)
      }
    }
  }

  #onPendingTx(tx: PoolTx): void {
    if (this.#filters.size === 0) return
    const now = this.#now()
    for (const f of this.#filters.values()) {
      if (f.changes.kind === 'pendingTxs' && f.deadline >= now) f.changes.txs.push(tx)
    }
  }
}

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
 *
 * Cost with many filters installed: a block hash or pending transaction is stored once in a ring
 * that block / pending filters read through their own cursor; a log is matched only against the
 * log filters indexed under its address or topic0 (matcherIndex.ts). Installed filters are capped
 * in all and per client IP (`jsonrpc.max_filters`, `jsonrpc.max_filters_per_ip`; -32005 when full),
 * and what one filter gathers between polls is bounded (`jsonrpc.max_filter_changes`).
 */
import { randomBytes } from 'node:crypto'
import type { ChainStore } from '../chain/store.js'
import type { PoolTx } from '../txpool/index.js'
import { filterErrors } from './errors.js'
import type { ChainLog } from './chainLog.js'
import type { ChainEvents, NewBlockEvent } from './events.js'
import { compileMatcher } from './match.js'
import { MatcherIndex } from './matcherIndex.js'
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

/**
 * An append-only run of items (block hashes, pending transactions) that every filter of that
 * kind reads through its own cursor: an item is stored once however many filters wait for it.
 * The oldest items beyond `capacity` are dropped; a filter polled too rarely to keep up misses
 * them (geth keeps them without bound; FILTER_MAX_CHANGES is our bound).
 */
export class EventRing<T> {
  readonly #capacity: number
  readonly #items: (T | undefined)[]
  /** Sequence number of the next item pushed; items [next - count, next) are held. */
  #next = 0
  #count = 0

  constructor(capacity: number) {
    this.#capacity = Math.max(1, capacity)
    this.#items = new Array(this.#capacity)
  }

  get next(): number {
    return this.#next
  }

  push(item: T): void {
    this.#items[this.#next % this.#capacity] = item
    this.#next++
    if (this.#count < this.#capacity) this.#count++
  }

  /** Items from sequence `from` on (the oldest held, if `from` fell behind). */
  since(from: number): T[] {
    const start = Math.max(from, this.#next - this.#count)
    const out: T[] = []
    for (let seq = start; seq < this.#next; seq++) out.push(this.#items[seq % this.#capacity] as T)
    return out
  }
}

type FilterKind = 'blocks' | 'logs' | 'pendingTxs'

class InstalledFilter {
  readonly kind: FilterKind
  readonly client: string
  readonly query: LogQuery | undefined
  readonly fullTx: boolean
  deadline: number
  /** blocks / pendingTxs: the ring sequence of the first item not yet handed out. */
  cursor: number
  /** logs: gathered since the last poll (at most maxChanges; when full the older half is dropped). */
  logs: ChainLog[] = []
  /** logs: takes the filter out of the matcher index. */
  unindex: () => void = () => {}
  constructor(
    kind: FilterKind,
    client: string,
    query: LogQuery | undefined,
    fullTx: boolean,
    deadline: number,
    cursor: number,
  ) {
    this.kind = kind
    this.client = client
    this.query = query
    this.fullTx = fullTx
    this.deadline = deadline
    this.cursor = cursor
  }
}

/** FILTER_MAX_CHANGES: items a filter gathers between two polls before the oldest are dropped (config jsonrpc.max_filter_changes). */
export const FILTER_MAX_CHANGES = 10_000

export interface FilterSystemOptions {
  store: ChainStore
  events: ChainEvents
  /** A filter not polled with eth_getFilterChanges for this long is removed. */
  timeoutMs: number
  limits: LogQueryLimits
  /** Installed filters in all (0 = no limit). */
  maxFilters?: number
  /** Installed filters per client (IP; 0 = no limit). */
  maxFiltersPerClient?: number
  /** Items gathered per filter between polls. */
  maxChanges?: number
  now?: () => number
}

export class FilterSystem {
  readonly limits: LogQueryLimits
  readonly #store: ChainStore
  readonly #timeoutMs: number
  readonly #now: () => number
  readonly #maxFilters: number
  readonly #maxPerClient: number
  readonly #maxChanges: number
  readonly #filters = new Map<string, InstalledFilter>()
  readonly #perClient = new Map<string, number>()
  readonly #blocks: EventRing<Uint8Array>
  readonly #pending: EventRing<PoolTx>
  readonly #logFilters = new MatcherIndex<InstalledFilter>()
  /** Log filters by what they match (matcherIndex.ts): a log costs its candidates, not every filter. */
  readonly #off: (() => void)[]
  readonly #sweep: NodeJS.Timeout

  constructor(o: FilterSystemOptions) {
    this.#store = o.store
    this.#timeoutMs = o.timeoutMs
    this.limits = o.limits
    this.#now = o.now ?? Date.now
    this.#maxFilters = o.maxFilters ?? 0
    this.#maxPerClient = o.maxFiltersPerClient ?? 0
    this.#maxChanges = o.maxChanges ?? FILTER_MAX_CHANGES
    this.#blocks = new EventRing(this.#maxChanges)
    this.#pending = new EventRing(this.#maxChanges)
    this.#off = [o.events.onBlock((e) => this.#onBlock(e)), o.events.onPendingTx((tx) => this.#onPendingTx(tx))]
    this.#sweep = setInterval(() => this.#sweepExpired(), Math.max(o.timeoutMs, FILTER_SWEEP_MIN_MS))
    this.#sweep.unref()
  }

  /** Installed filters (expired ones not yet swept included). */
  get size(): number {
    return this.#filters.size
  }

  /** Filters installed by `client`. */
  countOf(client: string): number {
    return this.#perClient.get(client) ?? 0
  }

  /** `client` (the caller's IP, '' when unknown) is what the per-client limit counts. */
  newLogFilter(query: LogQuery, client = ''): string {
    const { fromBlock, toBlock } = query
    if (fromBlock?.kind === 'number' && toBlock?.kind === 'number' && fromBlock.number > toBlock.number) {
      throw filterErrors.invalidRange()
    }
    const f = new InstalledFilter('logs', client, query, false, this.#deadline(), 0)
    const id = this.#install(f)
    f.unindex = this.#logFilters.add(compileMatcher(query), f)
    return id
  }

  newBlockFilter(client = ''): string {
    return this.#install(new InstalledFilter('blocks', client, undefined, false, this.#deadline(), this.#blocks.next))
  }

  newPendingTransactionFilter(fullTx: boolean, client = ''): string {
    return this.#install(
      new InstalledFilter('pendingTxs', client, undefined, fullTx, this.#deadline(), this.#pending.next),
    )
  }

  /** What the filter gathered since the last poll; restarts the idle timeout. */
  changes(id: string): FilterChanges {
    const f = this.#live(id)
    f.deadline = this.#deadline()
    switch (f.kind) {
      case 'blocks': {
        const hashes = this.#blocks.since(f.cursor)
        f.cursor = this.#blocks.next
        return { kind: 'blocks', hashes }
      }
      case 'pendingTxs': {
        const txs = this.#pending.since(f.cursor)
        f.cursor = this.#pending.next
        return { kind: 'pendingTxs', txs, fullTx: f.fullTx }
      }
      case 'logs': {
        const logs = f.logs
        f.logs = []
        return { kind: 'logs', logs }
      }
    }
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
    this.#remove(id, f)
    return f.deadline >= this.#now()
  }

  close(): void {
    clearInterval(this.#sweep)
    for (const off of this.#off) off()
    for (const [id, f] of this.#filters) this.#remove(id, f)
  }

  #deadline(): number {
    return this.#now() + this.#timeoutMs
  }

  #install(f: InstalledFilter): string {
    if (this.#maxFilters > 0 && this.#filters.size >= this.#maxFilters) this.#sweepExpired()
    if (this.#maxFilters > 0 && this.#filters.size >= this.#maxFilters)
      throw filterErrors.tooMany(this.#maxFilters, 'jsonrpc.max_filters')
    const mine = this.countOf(f.client)
    if (this.#maxPerClient > 0 && mine >= this.#maxPerClient)
      throw filterErrors.tooMany(this.#maxPerClient, 'jsonrpc.max_filters_per_ip')
    let id = newRpcId()
    while (this.#filters.has(id)) id = newRpcId()
    this.#filters.set(id, f)
    this.#perClient.set(f.client, mine + 1)
    return id
  }

  #remove(id: string, f: InstalledFilter): void {
    if (!this.#filters.delete(id)) return
    f.unindex()
    const left = this.countOf(f.client) - 1
    if (left > 0) this.#perClient.set(f.client, left)
    else this.#perClient.delete(f.client)
  }

  #live(id: string): InstalledFilter {
    const f = this.#filters.get(id)
    if (f === undefined) throw filterErrors.notFound()
    if (f.deadline < this.#now()) {
      this.#remove(id, f)
      throw filterErrors.notFound()
    }
    return f
  }

  #sweepExpired(): void {
    const now = this.#now()
    for (const [id, f] of this.#filters) if (f.deadline < now) this.#remove(id, f)
  }

  #onBlock(e: NewBlockEvent): void {
    if (this.#filters.size === 0) return
    this.#blocks.push(e.block.hash)
    if (this.#logFilters.size === 0) return
    const now = this.#now()
    const n = e.block.header.number
    for (const log of e.logs()) {
      for (const f of this.#logFilters.matching(log.address, log.topics)) {
        if (f.deadline < now || !inRange(f.query as LogQuery, n)) continue
        // full: the older half goes at once (amortized; a filter nobody polls costs no more per log)
        if (f.logs.length >= this.#maxChanges) f.logs = f.logs.slice(Math.floor(this.#maxChanges / 2))
        f.logs.push(log)
      }
    }
  }

  #onPendingTx(tx: PoolTx): void {
    if (this.#filters.size > 0) this.#pending.push(tx)
  }
}

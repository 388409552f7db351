/**
 * The subscriptions of one WebSocket connection (eth_subscribe): `newHeads` (each new block),
 * `logs` (one item per matching log), `newPendingTransactions` (each transaction the pool makes
 * pending, as a hash or, with `true`, as an object). Items are domain values handed to the
 * connection's `deliver`, which formats them as notifications (src/rpc/format/filterChanges.ts):
 *
 *   ChainEvents ─▶ Subscriptions: match, hold while inactive ─▶ deliver(id, item) ─▶ RPC: text ─▶ socket
 *
 * A new subscription is inactive until the answer carrying its id is sent (activate()); what
 * happens meanwhile is kept and delivered right after, so a client never sees a notification
 * for an id it does not know yet. Subscriptions live as long as the connection: no timeout.
 * All connections hang off one SubscriptionHub (one listener, shared items, indexed log
 * matching), which caps subscriptions in all and per client IP.
 */
import type { ChainBlock } from '../chain/store.js'
import type { PoolTx } from '../txpool/index.js'
import type { ChainLog } from './chainLog.js'
import type { ChainEvents, NewBlockEvent } from './events.js'
import { filterErrors } from './errors.js'
import { newRpcId } from './filters.js'
import { compileMatcher } from './match.js'
import { MatcherIndex } from './matcherIndex.js'
import { inRange, type LogQuery } from './query.js'

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions'

/** What one notification carries, by subscription kind. */
export type SubscriptionItem =
  | { readonly kind: 'newHeads'; readonly block: ChainBlock }
  | { readonly kind: 'logs'; readonly log: ChainLog }
  /** `fullTx`: the subscription asked for transaction objects, not hashes. */
  | { readonly kind: 'newPendingTransactions'; readonly tx: PoolTx; readonly fullTx: boolean }

/** Hands one item of subscription `id` to the client. */
export type DeliverItem = (id: string, item: SubscriptionItem) => void

/** SUBSCRIPTION_LIMIT_KEYS: the config keys named in the error when a subscription limit is reached. */
const KEY_TOTAL = 'jsonrpc.max_subscriptions'
const KEY_PER_CLIENT = 'jsonrpc.max_subscriptions_per_ip'

class Subscription {
  readonly id: string
  readonly kind: SubscriptionKind
  readonly query: LogQuery | undefined
  readonly fullTx: boolean
  readonly owner: Subscriptions
  /** Items held until the subscribe answer is out; undefined once active. */
  backlog: SubscriptionItem[] | undefined
  /** Takes the subscription out of the hub's sets and index. */
  detach: () => void = () => {}
  constructor(id: string, kind: SubscriptionKind, query: LogQuery | undefined, fullTx: boolean, owner: Subscriptions) {
    this.id = id
    this.kind = kind
    this.query = query
    this.fullTx = fullTx
    this.owner = owner
    this.backlog = []
  }
}

export interface SubscriptionLimits {
  /** Subscriptions in all, over every connection (0 = no limit). */
  maxTotal: number
  /** Subscriptions per client IP, over its connections (0 = no limit). */
  maxPerClient: number
}

/**
 * SubscriptionHub: every connection's subscriptions behind one listener on the chain events.
 * A new head or pending transaction makes one item shared by all its subscribers (the RPC layer
 * caches each item's JSON, so it is serialized once); a log reaches only the `logs`
 * subscriptions indexed under its address or topic0 (matcherIndex.ts).
 */
export class SubscriptionHub {
  readonly #limits: SubscriptionLimits
  readonly #heads = new Set<Subscription>()
  readonly #pending = new Set<Subscription>()
  readonly #logs = new MatcherIndex<Subscription>()
  readonly #perClient = new Map<string, number>()
  readonly #off: (() => void)[]
  #total = 0

  constructor(events: ChainEvents, limits: SubscriptionLimits = { maxTotal: 0, maxPerClient: 0 }) {
    this.#limits = limits
    this.#off = [events.onBlock((e) => this.#onBlock(e)), events.onPendingTx((tx) => this.#onPendingTx(tx))]
  }

  get size(): number {
    return this.#total
  }

  /** A connection's set of subscriptions; `client` is its IP (what the per-client limit counts). */
  connection(deliver: DeliverItem, client = ''): Subscriptions {
    return new Subscriptions(this, deliver, client)
  }

  close(): void {
    for (const off of this.#off) off()
  }

  /** Files a new subscription (throws TooManyFiltersError when a limit is reached). */
  attach(sub: Subscription, client: string): void {
    const { maxTotal, maxPerClient } = this.#limits
    if (maxTotal > 0 && this.#total >= maxTotal) throw filterErrors.tooMany(maxTotal, KEY_TOTAL)
    const mine = this.#perClient.get(client) ?? 0
    if (maxPerClient > 0 && mine >= maxPerClient) throw filterErrors.tooMany(maxPerClient, KEY_PER_CLIENT)
    let unfile: () => void
    if (sub.kind === 'newHeads') {
      this.#heads.add(sub)
      unfile = () => this.#heads.delete(sub)
    } else if (sub.kind === 'newPendingTransactions') {
      this.#pending.add(sub)
      unfile = () => this.#pending.delete(sub)
    } else {
      unfile = this.#logs.add(compileMatcher(sub.query as LogQuery), sub)
    }
    this.#total++
    this.#perClient.set(client, mine + 1)
    let detached = false
    sub.detach = () => {
      if (detached) return
      detached = true
      unfile()
      this.#total--
      const left = (this.#perClient.get(client) ?? 1) - 1
      if (left > 0) this.#perClient.set(client, left)
      else this.#perClient.delete(client)
    }
  }

  #onBlock(e: NewBlockEvent): void {
    if (this.#heads.size > 0) {
      const head: SubscriptionItem = { kind: 'newHeads', block: e.block }
      for (const sub of this.#heads) sub.owner.notify(sub, head)
    }
    if (this.#logs.size === 0) return
    const n = e.block.header.number
    for (const log of e.logs()) {
      let item: SubscriptionItem | undefined
      for (const sub of this.#logs.matching(log.address, log.topics)) {
        if (!inRange(sub.query as LogQuery, n)) continue
        item ??= { kind: 'logs', log }
        sub.owner.notify(sub, item)
      }
    }
  }

  #onPendingTx(tx: PoolTx): void {
    if (this.#pending.size === 0) return
    const hash: SubscriptionItem = { kind: 'newPendingTransactions', tx, fullTx: false }
    const full: SubscriptionItem = { kind: 'newPendingTransactions', tx, fullTx: true }
    for (const sub of this.#pending) sub.owner.notify(sub, sub.fullTx ? full : hash)
  }
}

/** The subscriptions of one connection (made by SubscriptionHub.connection). */
export class Subscriptions {
  readonly #hub: SubscriptionHub
  readonly #deliver: DeliverItem
  readonly #client: string
  readonly #subs = new Map<string, Subscription>()
  #closed = false

  /** `deliver` hands one item to the client (formatted there; the transport bounds its buffer). */
  constructor(hub: SubscriptionHub, deliver: DeliverItem, client = '') {
    this.#hub = hub
    this.#deliver = deliver
    this.#client = client
  }

  get size(): number {
    return this.#subs.size
  }

  add(kind: SubscriptionKind, opts: { query?: LogQuery; fullTx?: boolean } = {}): string {
    let id = newRpcId()
    while (this.#subs.has(id)) id = newRpcId()
    const sub = new Subscription(id, kind, opts.query, opts.fullTx ?? false, this)
    this.#hub.attach(sub, this.#client)
    this.#subs.set(id, sub)
    return id
  }

  /** eth_unsubscribe: true when the id was a subscription of this connection. */
  remove(id: string): boolean {
    const sub = this.#subs.get(id)
    if (sub === undefined) return false
    sub.detach()
    return this.#subs.delete(id)
  }

  /** Starts delivery for subscriptions created since the last call, backlog first. */
  activate(): void {
    for (const sub of this.#subs.values()) {
      const backlog = sub.backlog
      if (backlog === undefined) continue
      sub.backlog = undefined
      for (const item of backlog) this.#send(sub.id, item)
    }
  }

  close(): void {
    this.#closed = true
    for (const sub of this.#subs.values()) sub.detach()
    this.#subs.clear()
  }

  /** Called by the hub: an item for `sub` (held while the subscription is not yet active). */
  notify(sub: Subscription, item: SubscriptionItem): void {
    if (sub.backlog !== undefined) sub.backlog.push(item)
    else this.#send(sub.id, item)
  }

  #send(id: string, item: SubscriptionItem): void {
    if (!this.#closed) this.#deliver(id, item)
  }
}

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
 */
import type { ChainBlock } from '../chain/store.js'
import type { PoolTx } from '../txpool/index.js'
import type { ChainLog } from './chainLog.js'
import type { ChainEvents, NewBlockEvent } from './events.js'
import { newRpcId } from './filters.js'
import { bloomMayMatch, compileMatcher, type LogMatcher, logMatches } from './match.js'
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

class Subscription {
  readonly id: string
  readonly kind: SubscriptionKind
  readonly query: LogQuery | undefined
  readonly matcher: LogMatcher | undefined
  readonly fullTx: boolean
  /** Items held until the subscribe answer is out; undefined once active. */
  backlog: SubscriptionItem[] | undefined
  constructor(id: string, kind: SubscriptionKind, query: LogQuery | undefined, fullTx: boolean) {
    this.id = id
    this.kind = kind
    this.query = query
    this.matcher = query === undefined ? undefined : compileMatcher(query)
    this.fullTx = fullTx
    this.backlog = []
  }
}

export class Subscriptions {
  readonly #events: ChainEvents
  readonly #deliver: DeliverItem
  readonly #subs = new Map<string, Subscription>()
  #off: (() => void)[] = []
  #closed = false

  /** `deliver` hands one item to the client (formatted there; the transport bounds its buffer). */
  constructor(events: ChainEvents, deliver: DeliverItem) {
    this.#events = events
    this.#deliver = deliver
  }

  get size(): number {
    return this.#subs.size
  }

  add(kind: SubscriptionKind, opts: { query?: LogQuery; fullTx?: boolean } = {}): string {
    if (this.#off.length === 0 && !this.#closed) {
      this.#off = [
        this.#events.onBlock((e) => this.#onBlock(e)),
        this.#events.onPendingTx((tx) => this.#onPendingTx(tx)),
      ]
    }
    let id = newRpcId()
    while (this.#subs.has(id)) id = newRpcId()
    this.#subs.set(id, new Subscription(id, kind, opts.query, opts.fullTx ?? false))
    return id
  }

  /** eth_unsubscribe: true when the id was a subscription of this connection. */
  remove(id: string): boolean {
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
    for (const off of this.#off) off()
    this.#off = []
    this.#subs.clear()
  }

  #notify(sub: Subscription, item: SubscriptionItem): void {
    if (sub.backlog !== undefined) sub.backlog.push(item)
    else this.#send(sub.id, item)
  }

  #send(id: string, item: SubscriptionItem): void {
    if (!this.#closed) this.#deliver(id, item)
  }

  #onBlock(e: NewBlockEvent): void {
    let head: SubscriptionItem | undefined
    for (const sub of this.#subs.values()) {
      if (sub.kind === 'newHeads') {
        head ??= { kind: 'newHeads', block: e.block }
        this.#notify(sub, head)
      } else if (sub.kind === 'logs') {
        const m = sub.matcher as LogMatcher
        const n = e.block.header.number
        if (!inRange(sub.query as LogQuery, n) || !bloomMayMatch(e.block.header.logsBloom, m)) continue
        for (const log of e.logs()) if (logMatches(log.address, log.topics, m)) this.#notify(sub, { kind: 'logs', log })
      }
    }
  }

  #onPendingTx(tx: PoolTx): void {
    let hash: SubscriptionItem | undefined
    let full: SubscriptionItem | undefined
    for (const sub of this.#subs.values()) {
      if (sub.kind !== 'newPendingTransactions') continue
      if (sub.fullTx) {
        full ??= { kind: 'newPendingTransactions', tx, fullTx: true }
        this.#notify(sub, full)
      } else {
        hash ??= { kind: 'newPendingTransactions', tx, fullTx: false }
        this.#notify(sub, hash)
      }
    }
  }
}

/**
 * The subscriptions of one WebSocket connection (eth_subscribe): `newHeads` (header objects),
 * `logs` (one notification per matching log), `newPendingTransactions` (hashes, or transaction
 * objects with `true`). Notifications are geth's:
 *
 *   {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}
 *
 * A new subscription is inactive until the answer carrying its id is sent (activate()); what
 * happens meanwhile is kept and delivered right after, so a client never sees a notification
 * for an id it does not know yet. Subscriptions live as long as the connection: no timeout.
 */
import { formatHeader } from '../rpc/format/block.js'
import { formatTransaction } from '../rpc/format/transaction.js'
import type { PoolTx } from '../txpool/index.js'
import type { ChainEvents, NewBlockEvent } from './events.js'
import { newRpcId } from './filters.js'
import { bloomMayMatch, compileMatcher, type LogMatcher, logMatches } from './match.js'
import { inRange, type LogQuery } from './query.js'

export type SubscriptionKind = 'newHeads' | 'logs' | 'newPendingTransactions'

class Subscription {
  readonly id: string
  readonly kind: SubscriptionKind
  readonly query: LogQuery | undefined
  readonly matcher: LogMatcher | undefined
  readonly fullTx: boolean
  /** Notifications held until the subscribe answer is out; undefined once active. */
  backlog: string[] | undefined
  constructor(id: string, kind: SubscriptionKind, query: LogQuery | undefined, fullTx: boolean) {
    this.id = id
    this.kind = kind
    this.query = query
    this.matcher = query === undefined ? undefined : compileMatcher(query)
    this.fullTx = fullTx
    this.backlog = []
  }
}

function notification(id: string, result: unknown): string {
  return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${JSON.stringify(result)}}}`
}

export class Subscriptions {
  readonly #events: ChainEvents
  readonly #send: (text: string) => void
  readonly #subs = new Map<string, Subscription>()
  #off: (() => void)[] = []
  #closed = false

  /** `send` delivers one notification text to the client (the transport bounds its buffer). */
  constructor(events: ChainEvents, send: (text: string) => void) {
    this.#events = events
    this.#send = send
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
      for (const text of backlog) this.#deliver(text)
    }
  }

  close(): void {
    this.#closed = true
    for (const off of this.#off) off()
    this.#off = []
    this.#subs.clear()
  }

  #notify(sub: Subscription, result: unknown): void {
    const text = notification(sub.id, result)
    if (sub.backlog !== undefined) sub.backlog.push(text)
    else this.#deliver(text)
  }

  #deliver(text: string): void {
    if (!this.#closed) this.#send(text)
  }

  #onBlock(e: NewBlockEvent): void {
    let header: unknown
    for (const sub of this.#subs.values()) {
      if (sub.kind === 'newHeads') {
        header ??= formatHeader(e.block)
        this.#notify(sub, header)
      } else if (sub.kind === 'logs') {
        const m = sub.matcher as LogMatcher
        const n = e.block.header.number
        if (!inRange(sub.query as LogQuery, n) || !bloomMayMatch(e.block.header.logsBloom, m)) continue
        for (const { log, json } of e.logs()) if (logMatches(log[0], log[1], m)) this.#notify(sub, json)
      }
    }
  }

  #onPendingTx(tx: PoolTx): void {
    let full: unknown
    for (const sub of this.#subs.values()) {
      if (sub.kind !== 'newPendingTransactions') continue
      if (sub.fullTx) {
        full ??= formatTransaction(tx.tx, { from: tx.sender })
        this.#notify(sub, full)
      } else {
        this.#notify(sub, tx.hashHex)
      }
    }
  }
}

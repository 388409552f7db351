/**
 * MatcherIndex: the installed log filters and `logs` subscriptions, indexed so that a new log
 * costs the filters that may match it, not every installed one. A log has one address and one
 * topic0, so each matcher is filed under exactly one of:
 *
 *   by address   every address it names           (the common case: a dapp watching its contract)
 *   by topic0    no address, but topic0 choices   (an indexer watching Transfer everywhere)
 *   wildcard     neither                          (everything; few, and capped by the filter limits)
 *
 * and a log looks up its address bucket, its topic0 bucket and the wildcards: every candidate
 * appears once, and logMatches() then checks the remaining positions.
 */
import { bytesToHex } from '@ethereumjs/util'

import { type LogMatcher, logMatches } from './match.js'

interface Entry<T> {
  readonly matcher: LogMatcher
  readonly value: T
}

export class MatcherIndex<T> {
  readonly #byAddress = new Map<string, Set<Entry<T>>>()
  readonly #byTopic0 = new Map<string, Set<Entry<T>>>()
  readonly #wildcard = new Set<Entry<T>>()
  #size = 0
  /** Matchers checked against logs so far (what a log costs; tests read it). */
  examined = 0

  get size(): number {
    return this.#size
  }

  /** Files `value` under its matcher; the returned function removes it (idempotent). */
  add(matcher: LogMatcher, value: T): () => void {
    const entry: Entry<T> = { matcher, value }
    const topic0 = matcher.topics[0]
    let map: Map<string, Set<Entry<T>>> | undefined
    let keys: string[] = []
    if (matcher.addresses.length > 0) {
      map = this.#byAddress
      keys = matcher.addresses.map((a) => bytesToHex(a))
    } else if (topic0 !== null && topic0 !== undefined && topic0.length > 0) {
      map = this.#byTopic0
      keys = topic0.map((t) => bytesToHex(t))
    }
    if (map === undefined) this.#wildcard.add(entry)
    else for (const k of keys) bucket(map, k).add(entry)
    this.#size++
    let removed = false
    return () => {
      if (removed) return
      removed = true
      this.#size--
      if (map === undefined) {
        this.#wildcard.delete(entry)
        return
      }
      for (const k of keys) {
        const b = map.get(k)
        if (b === undefined) continue
        b.delete(entry)
        if (b.size === 0) map.delete(k)
      }
    }
  }

  /** The values whose matcher accepts a log with `address` and `topics`, each once. */
  *matching(address: Uint8Array, topics: readonly Uint8Array[]): Iterable<T> {
    if (this.#size === 0) return
    const byAddress = this.#byAddress.get(bytesToHex(address))
    const t0 = topics[0]
    const byTopic = t0 === undefined ? undefined : this.#byTopic0.get(bytesToHex(t0))
    for (const bucket of [byAddress, byTopic, this.#wildcard]) {
      if (bucket === undefined) continue
      this.examined += bucket.size
      for (const e of bucket) if (logMatches(address, topics, e.matcher)) yield e.value
    }
  }
}

function bucket<T>(map: Map<string, Set<T>>, key: string): Set<T> {
  let b = map.get(key)
  if (b === undefined) {
    b = new Set()
    map.set(key, b)
  }
  return b
}

import { FifoMap } from './fifoMap.js'

/**
 * A map bounded in entries and in total weight (the caller's unit), dropping its oldest
 * insertions first: the kept block logs of src/filters/keptLogs.ts and the formatted objects of
 * src/rpc/format/cache.ts.
 */
export class SizedCache<V> {
  readonly #map = new FifoMap<string, { value: V; weight: number }>()
  readonly #maxEntries: number
  readonly #maxWeight: number
  #weight = 0

  constructor(maxEntries: number, maxWeight: number) {
    this.#maxEntries = maxEntries
    this.#maxWeight = maxWeight
  }

  get(key: string): V | undefined {
    return this.#map.get(key)?.value
  }

  /** Keeps `value` (unless heavier than the whole cache or the key is taken) and returns it. */
  set(key: string, value: V, weight = 1): V {
    if (weight > this.#maxWeight || this.#map.has(key)) return value
    this.#map.set(key, { value, weight })
    this.#weight += weight
    while (this.#map.size > this.#maxEntries || this.#weight > this.#maxWeight) {
      const oldest = this.#map.shift()
      if (oldest === undefined) break
      this.#weight -= oldest[1].weight
    }
    return value
  }
}

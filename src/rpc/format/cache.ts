/**
 * Formatted chain data, kept. Under immediate finality a block, its transactions and receipts
 * never change once stored (no reorgs), so their RPC objects are built once and handed out again
 * (frozen: nobody may change what others share), and the dispatcher keeps the JSON text of such
 * an object next to it (jsonOf), so a repeated answer is a string splice:
 *
 *   formatReceipt(block, i) ─hit─▶ frozen object ─▶ dispatcher: jsonOf(object) ─hit─▶ cached text
 *
 * Keys are the block hash and a position, so an entry can never describe another block.
 */

import { hexOf } from '../../util/bytes.js'
import { SizedCache } from '../../util/sizedCache.js'

/** Formatted receipts and transactions kept (each kind). */
export const FORMAT_CACHE_ENTRIES = 16_384
/** Logs whose formatted objects are kept (~1.7 KB each with their JSON), counted per block (log.ts). */
export const LOG_CACHE_ENTRIES = 50_000
/** Formatted blocks kept, by the blocks' RLP size: full blocks of thousands of transactions are big. */
export const BLOCK_CACHE_RLP_BYTES = 16 * 1024 * 1024
/** JSON texts above this size are not kept. */
export const JSON_CACHE_MAX_CHARS = 256 * 1024

/** FormatCache is a SizedCache of formatted objects, FORMAT_CACHE_ENTRIES of them unless told otherwise. */
export class FormatCache<V> extends SizedCache<V> {
  constructor(maxEntries = FORMAT_CACHE_ENTRIES, maxWeight = Number.POSITIVE_INFINITY) {
    super(maxEntries, maxWeight)
  }
}

/** Hex of hash arrays already seen (a block's logs all pass the same hash array). */
const hexes = new WeakMap<Uint8Array, string>()

/** A cache key: the block hash (hex) and a position. */
export function keyOf(hash: Uint8Array, suffix: string | number): string {
  let hex = hexes.get(hash)
  if (hex === undefined) {
    hex = hexOf(hash)
    hexes.set(hash, hex)
  }
  return `${hex}:${suffix}`
}

/**
 * keyOf for a hash array seen once (a location just read, a request's parameter): its hex is not
 * remembered, so a lookup that misses leaves no WeakMap entry for the collector to sweep.
 */
export function keyOfOnce(hash: Uint8Array, suffix: string | number): string {
  return `${hexOf(hash)}:${suffix}`
}

const immutable = new WeakSet<object>()

/** The JSON text of a kept object and its UTF-8 length. */
export interface KeptText {
  readonly text: string
  readonly bytes: number
}
const texts = new WeakMap<object, KeptText>()

/** Freezes `o` (deeply) and marks it as a result whose JSON may be kept. */
export function keep<T extends object>(o: T): T {
  deepFreeze(o)
  immutable.add(o)
  return o
}

function deepFreeze(o: object): void {
  Object.freeze(o)
  for (const v of Object.values(o)) if (typeof v === 'object' && v !== null && !Object.isFrozen(v)) deepFreeze(v)
}

/** The JSON text of a kept object (computed once by `serialize`), or undefined for any other value. */
export function jsonOf(o: unknown, serialize: (o: unknown) => string): string | undefined {
  return keptTextOf(o, serialize)?.text
}

/** jsonOf with the text's UTF-8 length (counted once, when the text is made). */
export function keptTextOf(o: unknown, serialize: (o: unknown) => string): KeptText | undefined {
  if (typeof o !== 'object' || o === null || !immutable.has(o)) return undefined
  let kept = texts.get(o)
  if (kept === undefined) {
    const text = serialize(o)
    kept = { text, bytes: Buffer.byteLength(text) }
    if (text.length <= JSON_CACHE_MAX_CHARS) texts.set(o, kept)
  }
  return kept
}

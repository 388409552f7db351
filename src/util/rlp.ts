/**
 * RLP decoding for the read paths (trie nodes, stored receipts, block bodies): the same answers
 * and the same rejections as @ethereumjs/rlp's `RLP.decode`, without its copies. ethereumjs
 * copies every list's content before walking it (so a nested item is copied once per level) and
 * allocates a {data, remainder} pair per item; this walks the input by index and returns views
 * into it (`subarray`). Decoding a stored 120-receipt block was most of a receipt lookup's time;
 * a trie node decodes ~3× faster (20,000 nodes of a 1M-account state: 0.7–1.5 µs vs 2.5–4.6 µs).
 *
 * The items are views: they share the input's memory, so neither may be changed afterwards, and
 * they are plain Uint8Arrays even when the input is a Buffer.
 */

export type RlpItem = Uint8Array | RlpItem[]

/** Invalid RLP, with ethereumjs' wording. */
export class RlpError extends Error {
  override name = 'RlpError'
}

/** Decodes one RLP item spanning all of `input`. */
export function decodeRlp(input: Uint8Array): RlpItem {
  const bytes =
    input.constructor === Uint8Array ? input : new Uint8Array(input.buffer, input.byteOffset, input.byteLength)
  if (bytes.length === 0) return new Uint8Array(0)
  const end = readItem(bytes, 0, bytes.length)
  if (end !== bytes.length) throw new RlpError('invalid RLP: remainder must be zero')
  return item
}

/** The item read last (readItem returns the end offset; the item itself goes here). */
let item: RlpItem = new Uint8Array(0)

/** Length of `count` big-endian bytes at `at` (no leading zero allowed). */
function readLength(bytes: Uint8Array, at: number, count: number, limit: number): number {
  if (at + count > limit) throw new RlpError('invalid RLP: not enough bytes for string length')
  if (bytes[at] === 0) throw new RlpError('invalid RLP: extra zeros')
  let n = 0
  for (let i = 0; i < count; i++) n = n * 256 + (bytes[at + i] as number)
  return n
}

/** Reads the item at `at` (not past `limit`) into `item` and returns the offset after it. */
function readItem(bytes: Uint8Array, at: number, limit: number): number {
  const first = bytes[at] as number
  if (first <= 0x7f) {
    item = bytes.subarray(at, at + 1)
    return at + 1
  }
  if (first <= 0xb7) {
    const length = first - 0x80
    const end = at + 1 + length
    if (end > limit) throw new RlpError('invalid RLP (safeSlice): end slice of Uint8Array out-of-bounds')
    if (length === 1 && (bytes[at + 1] as number) < 0x80)
      throw new RlpError('invalid RLP encoding: invalid prefix, single byte < 0x80 are not prefixed')
    item = bytes.subarray(at + 1, end)
    return end
  }
  if (first <= 0xbf) {
    const lengthBytes = first - 0xb7
    const length = readLength(bytes, at + 1, lengthBytes, limit)
    if (length <= 55) throw new RlpError('invalid RLP: expected string length to be greater than 55')
    const start = at + 1 + lengthBytes
    const end = start + length
    if (end > limit) throw new RlpError('invalid RLP (safeSlice): end slice of Uint8Array out-of-bounds')
    item = bytes.subarray(start, end)
    return end
  }
  let start: number
  let end: number
  if (first <= 0xf7) {
    start = at + 1
    end = start + (first - 0xc0)
    if (end > limit) throw new RlpError('invalid RLP (safeSlice): end slice of Uint8Array out-of-bounds')
  } else {
    const lengthBytes = first - 0xf7
    const length = readLength(bytes, at + 1, lengthBytes, limit)
    if (length < 56) throw new RlpError('invalid RLP: encoded list too short')
    start = at + 1 + lengthBytes
    end = start + length
    if (end > limit) throw new RlpError('invalid RLP: total length is larger than the data')
  }
  const list: RlpItem[] = []
  let pos = start
  while (pos < end) {
    pos = readItem(bytes, pos, end)
    list.push(item)
  }
  item = list
  return end
}

/**
 * Where the item `readSpan` read last is: its payload is bytes[start, end), `list` tells a list
 * from a string. One shared object, overwritten by every call (read what you need first).
 */
export const span = { start: 0, end: 0, list: false }

/**
 * Reads the header of the RLP item at `at` (not past `limit`) into `span`, allocating nothing, and
 * returns the offset after the item, or -1 when the bytes there are not an item that fits. It does
 * not check the item's contents or canonical form: for walking stored data (trie nodes, receipts)
 * to the one part a read needs, where decodeRlp would build every item.
 */
export function readSpan(bytes: Uint8Array, at: number, limit: number): number {
  if (at >= limit) return -1
  const first = bytes[at] as number
  if (first <= 0x7f) {
    span.start = at
    span.end = at + 1
    span.list = false
    return at + 1
  }
  let start: number
  let length: number
  if (first <= 0xb7 || (first >= 0xc0 && first <= 0xf7)) {
    start = at + 1
    length = first - (first <= 0xb7 ? 0x80 : 0xc0)
  } else {
    const count = first - (first <= 0xbf ? 0xb7 : 0xf7)
    if (at + 1 + count > limit) return -1
    length = 0
    for (let i = 0; i < count; i++) length = length * 256 + (bytes[at + 1 + i] as number)
    start = at + 1 + count
  }
  if (start + length > limit) return -1
  span.start = start
  span.end = start + length
  span.list = first >= 0xc0
  return start + length
}

/** Items in the list whose payload is bytes[start, end), or -1 when they do not fit it. */
export function countItems(bytes: Uint8Array, start: number, end: number): number {
  let n = 0
  for (let at = start; at < end; n++) {
    at = readSpan(bytes, at, end)
    if (at < 0) return -1
  }
  return n
}

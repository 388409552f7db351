/**
 * decodeRlp against @ethereumjs/rlp, differentially: random nested items (every length class:
 * single bytes, short and long strings, short and long lists) decode to the same structure, and
 * random corruptions of valid encodings are rejected by both or decoded alike by both.
 */
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { prng } from './prng.js'
import { countItems, decodeRlp, type RlpItem, readSpan, span } from './rlp.js'

type Input = Uint8Array | Input[]

function randomItem(rand: () => number, depth: number): Input {
  if (depth > 0 && rand() < 0.35) {
    const n = Math.floor(rand() * (rand() < 0.2 ? 40 : 6))
    return Array.from({ length: n }, () => randomItem(rand, depth - 1))
  }
  const r = rand()
  const length = r < 0.3 ? 1 : r < 0.7 ? Math.floor(rand() * 56) : 56 + Math.floor(rand() * 400)
  return Uint8Array.from({ length }, () => Math.floor(rand() * 256))
}

/** Plain arrays of plain Uint8Arrays, so Buffer/Uint8Array and view/copy differences do not matter. */
function plain(x: RlpItem | Uint8Array | unknown): unknown {
  return Array.isArray(x) ? x.map(plain) : Array.from(x as Uint8Array)
}

function outcome(decode: () => unknown): { ok: true; value: unknown } | { ok: false } {
  try {
    return { ok: true, value: plain(decode()) }
  } catch {
    return { ok: false }
  }
}

describe('decodeRlp', () => {
  it('decodes what ethereumjs encodes, as ethereumjs decodes it', () => {
    const rand = prng(2211)
    for (let i = 0; i < 2_000; i++) {
      const encoded = RLP.encode(randomItem(rand, 4) as never)
      expect(plain(decodeRlp(encoded))).toEqual(plain(RLP.decode(encoded)))
      // a Buffer input (what RocksDB hands out) decodes the same
      expect(plain(decodeRlp(Buffer.from(encoded)))).toEqual(plain(RLP.decode(encoded)))
    }
  })

  it('rejects what ethereumjs rejects, and accepts what it accepts, on corrupted encodings', () => {
    const rand = prng(77)
    let rejected = 0
    for (let i = 0; i < 5_000; i++) {
      const encoded = RLP.encode(randomItem(rand, 3) as never)
      const bad = Uint8Array.from(encoded)
      const cuts = rand() < 0.3
      const mutated = cuts ? bad.subarray(0, Math.floor(rand() * bad.length)) : bad
      if (!cuts || mutated.length === bad.length) {
        const at = Math.floor(rand() * Math.min(bad.length, 8))
        bad[at] = Math.floor(rand() * 256)
      }
      const theirs = outcome(() => RLP.decode(mutated))
      const ours = outcome(() => decodeRlp(mutated))
      expect(ours).toEqual(theirs)
      if (!theirs.ok) rejected++
    }
    expect(rejected).toBeGreaterThan(1_000)
  })

  it('names the known malformations', () => {
    expect(() => decodeRlp(Uint8Array.of(0x81, 0x05))).toThrow(/single byte < 0x80/)
    expect(() => decodeRlp(Uint8Array.of(0x82, 0x05))).toThrow(/out-of-bounds/)
    expect(() => decodeRlp(Uint8Array.of(0xb8, 0x00))).toThrow(/extra zeros/)
    expect(() => decodeRlp(Uint8Array.of(0xb8, 0x05, 1, 2, 3, 4, 5))).toThrow(/greater than 55/)
    expect(() => decodeRlp(Uint8Array.of(0xf8, 0x01, 0x01))).toThrow(/too short/)
    expect(() => decodeRlp(Uint8Array.of(0x01, 0x02))).toThrow(/remainder/)
    expect(decodeRlp(new Uint8Array(0))).toEqual(new Uint8Array(0))
    expect(plain(decodeRlp(Uint8Array.of(0xc0)))).toEqual([])
  })
})

/** The item at bytes[at, end) rebuilt from readSpan's spans alone (strings as bytes, lists walked). */
function viaSpans(bytes: Uint8Array, at: number, limit: number): { item: unknown; next: number } {
  const next = readSpan(bytes, at, limit)
  if (next < 0) throw new Error(`no item at ${at}`)
  if (!span.list) return { item: Array.from(bytes.subarray(span.start, span.end)), next }
  const { start, end } = span
  const items: unknown[] = []
  for (let p = start; p < end; ) {
    const r = viaSpans(bytes, p, end)
    items.push(r.item)
    p = r.next
  }
  expect(countItems(bytes, start, end)).toBe(items.length)
  return { item: items, next }
}

describe('readSpan', () => {
  it('walks to the same items decodeRlp builds, every length class', () => {
    const rand = prng(4417)
    for (let i = 0; i < 1_000; i++) {
      const encoded = RLP.encode(randomItem(rand, 4) as never)
      const r = viaSpans(encoded, 0, encoded.length)
      expect(r.next).toBe(encoded.length)
      expect(r.item).toEqual(plain(decodeRlp(encoded)))
    }
  })

  it('answers -1 for an item that does not fit its limit, or no item at all', () => {
    const long = RLP.encode(Uint8Array.from({ length: 100 }, (_, i) => i))
    expect(readSpan(long, 0, long.length - 1)).toBe(-1)
    expect(readSpan(long, 0, 1)).toBe(-1) // the length bytes themselves are cut
    expect(readSpan(long, long.length, long.length)).toBe(-1)
    const list = RLP.encode([Uint8Array.of(1, 2, 3), Uint8Array.of(4, 5)])
    expect(countItems(list, 1, list.length - 1)).toBe(-1)
    expect(countItems(list, 1, list.length)).toBe(2)
  })
})

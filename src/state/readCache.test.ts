import { describe, expect, it } from 'vitest'
import type { Database } from '../db/db.js'
import { READ_CACHE_ROOTS, readCacheFor } from './readCache.js'

// readCacheFor only keys its maps by the database object; no method of it is called
const fakeDb = (): Database => ({}) as Database

function root(n: number): Uint8Array {
  const r = new Uint8Array(32)
  r[31] = n
  r[0] = n >> 8
  return r
}

describe('readCacheFor', () => {
  it('answers one cache per root by content, not by array, and the last one again without a lookup', () => {
    const db = fakeDb()
    const a = readCacheFor(db, root(1))
    expect(readCacheFor(db, root(1))).toBe(a)
    expect(readCacheFor(db, Buffer.from(root(1)))).toBe(a)
    const b = readCacheFor(db, root(2))
    expect(b).not.toBe(a)
    expect(b.root).toBe(Buffer.from(root(2)).toString('hex'))
    expect(readCacheFor(db, root(1))).toBe(a)
    expect(readCacheFor(db, root(2))).toBe(b)
    // a root differing only in its first byte is another root
    const c = readCacheFor(db, root(256 + 2))
    expect(c).not.toBe(b)
    // another database has its own caches
    expect(readCacheFor(fakeDb(), root(1))).not.toBe(a)
  })

  it('keeps READ_CACHE_ROOTS roots, the least recently asked dropped', () => {
    const db = fakeDb()
    const first = readCacheFor(db, root(1))
    const second = readCacheFor(db, root(2))
    for (let i = 3; i <= READ_CACHE_ROOTS; i++) readCacheFor(db, root(i))
    expect(readCacheFor(db, root(1))).toBe(first)
    readCacheFor(db, root(100))
    // root 2 was the least recently asked: dropped, so a new cache now
    expect(readCacheFor(db, root(2))).not.toBe(second)
    expect(readCacheFor(db, root(1))).toBe(first)
  })

  it('an array changed after the call does not change the cache it named', () => {
    const db = fakeDb()
    const r = root(7)
    const seven = readCacheFor(db, r)
    r[5] = 9
    const other = readCacheFor(db, r)
    expect(other).not.toBe(seven)
    expect(readCacheFor(db, root(7))).toBe(seven)
  })
})

describe('the slots cache', () => {
  it('keeps a slot the second time it is set (at this root or another), accounts at once', () => {
    const db = fakeDb()
    const at1 = readCacheFor(db, root(51))
    const v = Uint8Array.of(7)
    at1.slots.set('aa‖01', v)
    expect(at1.slots.get('aa‖01')).toBeUndefined()
    at1.slots.set('aa‖01', v)
    expect(at1.slots.get('aa‖01')).toBe(v)
    // seen at root 51: kept at once at root 52 (hot slots stay hot from block to block)
    const at2 = readCacheFor(db, root(52))
    at2.slots.set('aa‖01', v)
    expect(at2.slots.get('aa‖01')).toBe(v)
    // accounts have no doorkeeper: a distinct address read twice must not walk the trie twice
    at2.accounts.set('bb', null)
    expect(at2.accounts.get('bb')).toBeNull()
  })

  it('keeps none of many slots each set once', () => {
    const c = readCacheFor(fakeDb(), root(53))
    for (let i = 0; i < 10_000; i++) c.slots.set(`cc‖${i}`, Uint8Array.of(1))
    expect(c.slots.size).toBe(0)
  })
})

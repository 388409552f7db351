/**
 * trieRead (trieLookup.ts) against ethereumjs' own trie: the same tries, built and committed to
 * RocksDB, read both ways for present and absent keys, with a cold and a warm node cache —
 * account-sized values and one-byte storage-like values.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../db/db.js'
import { keccak256 } from '../util/keccak.js'
import { clearNodeCache, MISSING_NODE, NOT_CACHED, trieRead, trieReadCached } from './trieLookup.js'
import { TrieStore } from './trieStore.js'

/** Budget of the tests that build and read thousands of keys (~1 s idle): a ceiling for a busy machine, not a speed check. */
const BIG_TRIE_TEST_TIMEOUT_MS = 60_000

let dir: string
let db: Database

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-trie-lookup-'))
  db = await openDatabase(join(dir, 'db'))
})
afterAll(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

/** A deterministic byte stream (xorshift). */
function bytesFrom(seed: number) {
  let x = seed >>> 0 || 1
  return (n: number): Uint8Array => {
    const out = new Uint8Array(n)
    for (let i = 0; i < n; i++) {
      x ^= x << 13
      x ^= x >>> 17
      x ^= x << 5
      out[i] = x & 0xff
    }
    return out
  }
}

/** Builds a trie of `entries`, commits its nodes to the database, returns its root. */
async function commitTrie(
  entries: [Uint8Array, Uint8Array][],
): Promise<{ root: Uint8Array; trie: MerklePatriciaTrie }> {
  const store = new TrieStore(db)
  const trie = new MerklePatriciaTrie({ db: store, useKeyHashing: true, valueEncoding: 'view' })
  for (const [k, v] of entries) await trie.put(k, v)
  const batch = db.batch()
  store.flushInto(batch)
  await batch.write(false)
  return { root: trie.root(), trie }
}

async function compare(entries: [Uint8Array, Uint8Array][], absent: Uint8Array[]): Promise<void> {
  const { root, trie } = await commitTrie(entries)
  for (const cold of [true, false]) {
    if (cold) clearNodeCache()
    for (const [k] of entries) {
      const want = await trie.get(k)
      const have = trieRead(db, root, k)
      expect(have === MISSING_NODE ? 'missing' : Buffer.from(have ?? []).toString('hex')).toBe(
        Buffer.from(want ?? []).toString('hex'),
      )
    }
    for (const k of absent) {
      expect(await trie.get(k)).toBeNull()
      expect(trieRead(db, root, k)).toBeUndefined()
    }
  }
}

describe('trieRead', () => {
  it(
    'reads what ethereumjs reads: account-sized values, 2,000 keys',
    async () => {
      const next = bytesFrom(1)
      const entries: [Uint8Array, Uint8Array][] = []
      for (let i = 0; i < 2000; i++) entries.push([next(20), next(70)])
      await compare(
        entries,
        Array.from({ length: 500 }, () => next(20)),
      )
    },
    BIG_TRIE_TEST_TIMEOUT_MS,
  )

  it(
    'reads one-byte values, 3,000 keys',
    async () => {
      const next = bytesFrom(2)
      const entries: [Uint8Array, Uint8Array][] = []
      for (let i = 0; i < 3000; i++) entries.push([next(32), Uint8Array.of(1 + (i % 200))])
      await compare(
        entries,
        Array.from({ length: 500 }, () => next(32)),
      )
    },
    BIG_TRIE_TEST_TIMEOUT_MS,
  )

  it(
    'trieReadCached reads the top levels only: NOT_CACHED below them cold, the same answers once the nodes are kept',
    async () => {
      const next = bytesFrom(3)
      const entries: [Uint8Array, Uint8Array][] = []
      // 8,000 keys: most leaves sit on the fifth level (16^3 = 4,096 < 8,000), so a cold walk stops short
      for (let i = 0; i < 8_000; i++) entries.push([next(20), next(70)])
      const absent = Array.from({ length: 100 }, () => next(20))
      const { root } = await commitTrie(entries)
      clearNodeCache()
      let notCached = 0
      for (const [k] of entries.slice(0, 500)) if (trieReadCached(db, root, keccak256(k)) === NOT_CACHED) notCached++
      expect(notCached).toBeGreaterThan(0)
      // the walk never read below the top levels: the same keys stay NOT_CACHED
      for (const [k] of entries.slice(0, 50))
        if (trieRead(db, root, k) === MISSING_NODE) throw new Error('missing node')
      clearNodeCache()
      expect(trieReadCached(db, root, keccak256((entries[0] as [Uint8Array, Uint8Array])[0]))).toBe(NOT_CACHED)
      for (const [k] of entries) trieRead(db, root, k)
      for (const [k, v] of entries) {
        const have = trieReadCached(db, root, keccak256(k))
        expect(
          have === NOT_CACHED || have === MISSING_NODE ? String(have) : Buffer.from(have ?? []).toString('hex'),
        ).toBe(Buffer.from(v).toString('hex'))
      }
      // an absent key: undefined when its path ends in kept nodes, never a value
      for (const k of absent) expect([undefined, NOT_CACHED]).toContain(trieReadCached(db, root, keccak256(k)))
    },
    BIG_TRIE_TEST_TIMEOUT_MS,
  )

  it('reads a trie of one key and the empty trie', async () => {
    const next = bytesFrom(3)
    const key = next(32)
    await compare([[key, next(40)]], [next(32)])
    const empty = new MerklePatriciaTrie({ useKeyHashing: true })
    expect(trieRead(db, empty.root(), key)).toBeUndefined()
  })

  it('answers MISSING_NODE for a root whose nodes are not in the database', async () => {
    const next = bytesFrom(4)
    const store = new TrieStore(db)
    const trie = new MerklePatriciaTrie({ db: store, useKeyHashing: true, valueEncoding: 'view' })
    const key = next(20)
    for (let i = 0; i < 50; i++) await trie.put(i === 0 ? key : next(20), next(70))
    // never flushed: the nodes live in the store's overlay only
    expect(trieRead(db, trie.root(), key)).toBe(MISSING_NODE)
  })
})

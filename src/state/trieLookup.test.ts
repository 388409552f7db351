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
import { clearNodeCache, MISSING_NODE, trieRead } from './trieLookup.js'
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

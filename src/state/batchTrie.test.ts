import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MapDB } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { prng } from '../util/prng.js'
import { EMPTY_TRIE_ROOT, type NodeStore, updateTrie } from './batchTrie.js'

/** Budget of the random-batch differential test (~0.8 s idle): a ceiling for a busy machine, not a speed check. */
const RANDOM_TEST_TIMEOUT_MS = 60_000

// updateTrie must give exactly ethereumjs' root (and store every node a later batch or a reader
// needs) for any batch: random keys, keys sharing long prefixes (embedded nodes), deletions that
// fold branches into extensions and leaves, deletions of absent keys, rewrites of one key.

class MapStore implements NodeStore {
  readonly nodes = new Map<string, Uint8Array>()
  getSync(keyHex: string): Uint8Array | undefined {
    return this.nodes.get(keyHex)
  }
  put(keyHex: string, value: Uint8Array): void {
    this.nodes.set(keyHex, value)
  }
}

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex')

function bytes(random: () => number, n: number): Uint8Array {
  const out = new Uint8Array(n)
  for (let i = 0; i < n; i++) out[i] = Math.floor(random() * 256)
  return out
}

/** Keys that share `prefix` bytes with `base` and differ after (long shared paths, short leaves). */
function near(random: () => number, base: Uint8Array, prefix: number): Uint8Array {
  const k = Uint8Array.from(base)
  for (let i = prefix; i < 32; i++) k[i] = Math.floor(random() * 256)
  // the last nibble pair may still collide with base: make the key differ at `prefix` for sure
  if (prefix < 32) k[prefix] = ((base[prefix] as number) + 1 + Math.floor(random() * 255)) % 256
  return k
}

type Write = [Uint8Array, Uint8Array | null]

async function applyBoth(reference: MerklePatriciaTrie, store: MapStore, root: Uint8Array, writes: Write[]) {
  for (const [key, value] of writes) {
    if (value === null) await reference.del(key)
    else await reference.put(key, value)
  }
  return updateTrie(store, root, writes)
}

describe('updateTrie against ethereumjs MerklePatriciaTrie', () => {
  it(
    'gives the same root over batches of random writes and deletions, from empty',
    async () => {
      const random = prng(11)
      const reference = new MerklePatriciaTrie({ useKeyHashing: false })
      const store = new MapStore()
      let root = EMPTY_TRIE_ROOT
      const live = new Map<string, Uint8Array>()
      for (let round = 0; round < 40; round++) {
        const writes: Write[] = []
        const size = 1 + Math.floor(random() * (round < 5 ? 5 : 300))
        for (let i = 0; i < size; i++) {
          const r = random()
          const keys = [...live.keys()]
          let key: Uint8Array
          if (r < 0.35 || keys.length === 0) key = bytes(random, 32)
          else if (r < 0.5)
            key = near(
              random,
              Buffer.from(keys[Math.floor(random() * keys.length)] as string, 'hex'),
              Math.floor(random() * 32),
            )
          else key = Buffer.from(keys[Math.floor(random() * keys.length)] as string, 'hex')
          // a key once per batch, as a state manager's flush gives them
          if (writes.some(([k]) => hex(k) === hex(key))) continue
          const value = random() < 0.3 ? null : bytes(random, 1 + Math.floor(random() * (random() < 0.5 ? 4 : 90)))
          writes.push([key, value])
          if (value === null) live.delete(hex(key))
          else live.set(hex(key), value)
        }
        // deleting keys that were never there changes nothing
        writes.push([bytes(random, 32), null])
        root = await applyBoth(reference, store, root, writes)
        expect(hex(root)).toBe(hex(reference.root()))
      }
      expect(live.size).toBeGreaterThan(1000)
      // every value is readable from the nodes updateTrie stored (ethereumjs walking them)
      const reader = new MerklePatriciaTrie({ useKeyHashing: false, db: new MapDB(store.nodes), root })
      for (const [k, v] of live) expect(hex((await reader.get(Buffer.from(k, 'hex'))) as Uint8Array)).toBe(hex(v))
    },
    RANDOM_TEST_TIMEOUT_MS,
  )

  it('embedded nodes: keys that differ only in their last nibbles, small values, then all deleted', async () => {
    const random = prng(5)
    const reference = new MerklePatriciaTrie({ useKeyHashing: false })
    const store = new MapStore()
    const base = bytes(random, 32)
    const keys: Uint8Array[] = []
    for (let i = 0; i < 16; i++) {
      const k = Uint8Array.from(base)
      k[31] = ((base[31] as number) & 0xf0) | i
      keys.push(k)
      const k2 = Uint8Array.from(base)
      k2[30] = (base[30] as number) ^ (i + 1)
      keys.push(k2)
    }
    let root = EMPTY_TRIE_ROOT
    for (const batch of [keys.slice(0, 3), keys.slice(3, 20), keys.slice(20)]) {
      root = await applyBoth(
        reference,
        store,
        root,
        batch.map((k): Write => [k, Uint8Array.of(1 + Math.floor(random() * 200))]),
      )
      expect(hex(root)).toBe(hex(reference.root()))
    }
    // one at a time, then in a batch: each fold must match
    for (const k of keys.slice(0, 10)) {
      root = await applyBoth(reference, store, root, [[k, null]])
      expect(hex(root)).toBe(hex(reference.root()))
    }
    root = await applyBoth(
      reference,
      store,
      root,
      keys.slice(10).map((k): Write => [k, null]),
    )
    expect(hex(root)).toBe(hex(EMPTY_TRIE_ROOT))
    expect(hex(reference.root())).toBe(hex(EMPTY_TRIE_ROOT))
  })

  it('a single key, rewritten and deleted; an empty batch keeps the root', async () => {
    const reference = new MerklePatriciaTrie({ useKeyHashing: false })
    const store = new MapStore()
    const key = new Uint8Array(32).fill(7)
    let root = await applyBoth(reference, store, EMPTY_TRIE_ROOT, [[key, Uint8Array.of(1)]])
    expect(hex(root)).toBe(hex(reference.root()))
    root = await applyBoth(reference, store, root, [[key, new Uint8Array(40).fill(9)]])
    expect(hex(root)).toBe(hex(reference.root()))
    expect(hex(updateTrie(store, root, []))).toBe(hex(root))
    root = await applyBoth(reference, store, root, [[key, null]])
    expect(hex(root)).toBe(hex(EMPTY_TRIE_ROOT))
  })

  it('refuses a missing node rather than guessing', () => {
    expect(() =>
      updateTrie(new MapStore(), new Uint8Array(32).fill(1), [[new Uint8Array(32), Uint8Array.of(1)]]),
    ).toThrow(/missing trie node/)
  })
})

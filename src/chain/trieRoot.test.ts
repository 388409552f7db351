import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { keccak256 } from '../util/crypto.js'
import { EMPTY_TRIE_ROOT, orderedTrieRoot, trieRootOf } from './trieRoot.js'

/**
 * Budget of each differential test against ethereumjs' trie (tens of thousands of inserts): ~2.5 s
 * on an idle 2-core box, over 10 s on a loaded one. A ceiling for a busy machine, not a speed check.
 */
const DIFFERENTIAL_TEST_TIMEOUT_MS = 60_000

/** The reference: ethereumjs' trie, one insert at a time. */
async function reference(keys: Uint8Array[], values: Uint8Array[]): Promise<string> {
  const trie = new MerklePatriciaTrie({ useKeyHashing: false, common: { customCrypto: { keccak256 } } as never })
  for (let i = 0; i < keys.length; i++) await trie.put(keys[i] as Uint8Array, values[i] as Uint8Array)
  return Buffer.from(trie.root()).toString('hex')
}

function rng(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function bytes(rand: () => number, n: number): Uint8Array {
  return Uint8Array.from({ length: n }, () => Math.floor(rand() * 256))
}

describe('orderedTrieRoot', () => {
  it('is the empty root for no items', async () => {
    expect(Buffer.from(await orderedTrieRoot([])).toString('hex')).toBe(EMPTY_TRIE_ROOT.toString('hex'))
  })

  it(
    'matches MerklePatriciaTrie for every count up to 300 and at 1,000 and 3,000, short and long values',
    async () => {
      const rand = rng(7)
      for (const n of [...Array.from({ length: 300 }, (_, i) => i + 1), 1000, 3000]) {
        // short values (embedded nodes) and transaction-sized ones
        const items = Array.from({ length: n }, (_, i) =>
          bytes(rand, i % 3 === 0 ? 1 + Math.floor(rand() * 8) : 20 + Math.floor(rand() * 200)),
        )
        const keys = items.map((_, i) => RLP.encode(bigIntToUnpaddedBytes(BigInt(i))))
        expect(Buffer.from(await orderedTrieRoot(items)).toString('hex'), `${n} items`).toBe(
          await reference(keys, items),
        )
      }
    },
    DIFFERENTIAL_TEST_TIMEOUT_MS,
  )

  it(
    'matches MerklePatriciaTrie on random keys, including keys that are prefixes of others',
    async () => {
      const rand = rng(11)
      for (let round = 0; round < 200; round++) {
        const n = 1 + Math.floor(rand() * 40)
        const seen = new Set<string>()
        const keys: Uint8Array[] = []
        const values: Uint8Array[] = []
        while (keys.length < n) {
          // short keys over a small alphabet: shared prefixes, keys ending inside others
          const k = Uint8Array.from({ length: 1 + Math.floor(rand() * 4) }, () => Math.floor(rand() * 4) * 17)
          const hex = Buffer.from(k).toString('hex')
          if (seen.has(hex)) continue
          seen.add(hex)
          keys.push(k)
          values.push(bytes(rand, 1 + Math.floor(rand() * 40)))
        }
        expect(Buffer.from(trieRootOf(keys, values)).toString('hex'), `round ${round}`).toBe(
          await reference(keys, values),
        )
      }
    },
    DIFFERENTIAL_TEST_TIMEOUT_MS,
  )
})

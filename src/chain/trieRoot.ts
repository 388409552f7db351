/**
 * Roots of the per-block ordered tries (transactions, receipts, withdrawals): key =
 * RLP(index), value = the item's consensus encoding.
 *
 * The root is computed in one pass, as geth's DeriveSha does with its stack trie: the keys are
 * sorted, the trie's shape follows from them, and every node is encoded and hashed once, bottom
 * up (Yellow Paper, appendix D: leaf [hp(path, 1), value], extension [hp(path, 0), child],
 * branch [child × 16, value]; a child whose encoding is under 32 bytes is embedded, else
 * referenced by its keccak256). Inserting into a MerklePatriciaTrie instead re-hashes the whole
 * path on every insert: ~100 µs per item, 0.3 s for a block of 2,857 transfers' transactions
 * and again for their receipts. trieRoot.test.ts checks it against MerklePatriciaTrie.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes } from '@ethereumjs/util'
import { keccak256 } from '../util/crypto.js'

export const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')
export const EMPTY_UNCLES_HASH = Buffer.from('1dcc4de8dec75d7aab85b567b6ccd41ad312451b948a7413f0a142fd40d49347', 'hex')

interface Entry {
  nibbles: Uint8Array
  value: Uint8Array
}

function nibblesOf(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    out[2 * i] = (key[i] as number) >> 4
    out[2 * i + 1] = (key[i] as number) & 15
  }
  return out
}

function compareNibbles(a: Uint8Array, b: Uint8Array): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) if (a[i] !== b[i]) return (a[i] as number) - (b[i] as number)
  return a.length - b.length
}

/** Hex-prefix encoding of a nibble path (Yellow Paper appendix C), as an RLP string. */
function hexPrefix(nibbles: Uint8Array, from: number, to: number, leaf: boolean): Uint8Array {
  const len = to - from
  const odd = len % 2 === 1
  const out = new Uint8Array(1 + (len >> 1))
  const flag = (leaf ? 2 : 0) + (odd ? 1 : 0)
  let i = from
  if (odd) out[0] = (flag << 4) | (nibbles[i++] as number)
  else out[0] = flag << 4
  for (let o = 1; i < to; o++, i += 2) out[o] = ((nibbles[i] as number) << 4) | (nibbles[i + 1] as number)
  return RLP.encode(out)
}

function listOf(items: Uint8Array[]): Uint8Array {
  let len = 0
  for (const it of items) len += it.length
  const prefix = len < 56 ? Uint8Array.of(0xc0 + len) : lengthPrefix(0xf7, len)
  const out = new Uint8Array(prefix.length + len)
  out.set(prefix, 0)
  let at = prefix.length
  for (const it of items) {
    out.set(it, at)
    at += it.length
  }
  return out
}

function lengthPrefix(base: number, len: number): Uint8Array {
  const bytes: number[] = []
  for (let l = len; l > 0; l = Math.floor(l / 256)) bytes.unshift(l % 256)
  return Uint8Array.of(base + bytes.length, ...bytes)
}

const EMPTY_STRING = Uint8Array.of(0x80)

/** How a parent holds a child node: embedded when its encoding is under 32 bytes, else by hash. */
function reference(encoded: Uint8Array): Uint8Array {
  return encoded.length < 32 ? encoded : RLP.encode(keccak256(encoded))
}

/** The encoding of the node holding entries [lo, hi) (sorted, distinct), `depth` nibbles in. */
function encodeNode(entries: Entry[], lo: number, hi: number, depth: number): Uint8Array {
  const first = entries[lo] as Entry
  if (hi - lo === 1)
    return listOf([hexPrefix(first.nibbles, depth, first.nibbles.length, true), RLP.encode(first.value)])
  // the longest path all entries share from `depth` (first and last bound it: they are sorted)
  const last = entries[hi - 1] as Entry
  let shared = 0
  while (
    depth + shared < first.nibbles.length &&
    depth + shared < last.nibbles.length &&
    first.nibbles[depth + shared] === last.nibbles[depth + shared]
  )
    shared++
  if (shared > 0)
    return listOf([
      hexPrefix(first.nibbles, depth, depth + shared, false),
      reference(encodeNode(entries, lo, hi, depth + shared)),
    ])
  const slots: Uint8Array[] = []
  let i = lo
  let value: Uint8Array = EMPTY_STRING
  if (first.nibbles.length === depth) {
    value = RLP.encode(first.value)
    i++
  }
  for (let nibble = 0; nibble < 16; nibble++) {
    let j = i
    while (j < hi && (entries[j] as Entry).nibbles[depth] === nibble) j++
    slots.push(j > i ? reference(encodeNode(entries, i, j, depth + 1)) : EMPTY_STRING)
    i = j
  }
  slots.push(value)
  return listOf(slots)
}

/** The root of the trie mapping each key to its value (keys distinct). */
export function trieRootOf(keys: Uint8Array[], values: Uint8Array[]): Uint8Array {
  if (keys.length === 0) return EMPTY_TRIE_ROOT
  const entries: Entry[] = keys.map((k, i) => ({ nibbles: nibblesOf(k), value: values[i] as Uint8Array }))
  entries.sort((a, b) => compareNibbles(a.nibbles, b.nibbles))
  return keccak256(encodeNode(entries, 0, entries.length, 0))
}

export async function orderedTrieRoot(items: Uint8Array[]): Promise<Uint8Array> {
  if (items.length === 0) return EMPTY_TRIE_ROOT
  const keys = items.map((_, i) => RLP.encode(bigIntToUnpaddedBytes(BigInt(i))))
  return trieRootOf(keys, items)
}

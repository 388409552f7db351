/**
 * A read of one key in a Merkle-Patricia trie at a committed root, straight from the trie's
 * nodes in RocksDB: no MerklePatriciaTrie object, no walk controller, no promise per node.
 * ethereumjs' `trie.get` spent ~30 µs on an account or slot read at a warm root (most of it its
 * walk machinery and decoding the same top nodes again); this walks the key's nibbles through
 * nodes decoded once and kept (NODE_CACHE_ENTRIES), so a read costs the keccak of the key and a
 * few map lookups.
 *
 *   trieRead(db, root, key) ─▶ keccak(key) nibbles ─▶ root node ─▶ branch / extension / leaf …
 *                              (nodes by hash: decoded-node cache ─miss─▶ RocksDB `trie` column)
 *
 * What must always hold: only nodes of committed state are read (a root whose nodes are still in
 * a writer's overlay has some missing here); a node the database does not hold makes the read
 * answer MISSING_NODE, never a guess, and the caller reads through ethereumjs instead. Nodes are
 * content-addressed, so a cached decoded node is valid for every root forever.
 */
import { decodeRlp } from '../util/rlp.js'
import type { Database } from '../db/db.js'
import { keccak256 } from '../util/keccak.js'

/**
 * Decoded trie nodes kept (by hash, all roots): the top levels of the account trie and hot storage
 * tries. A decoded branch node is ~2 KB of heap (17 views and the node's bytes); the top four
 * levels of a 1M-account trie are ~70k nodes, and the fifth level's million nodes cannot all be
 * kept anyway (RocksDB's trie block cache serves them): twice as many entries would cost ~200 MB
 * of heap for ~0.1 fewer database reads per account read (issue 22: RSS < 1 GiB at 1M accounts).
 */
export const NODE_CACHE_ENTRIES = 100_000

/** A node the database does not hold: the trie cannot be walked here. */
export const MISSING_NODE: unique symbol = Symbol('ibex.trie.missing-node')

/** Root of the empty trie (keccak256 of RLP of the empty string). */
const EMPTY_TRIE_ROOT = Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex')

type Node = Uint8Array | Node[]

/** Decoded nodes by hash (latin1 string of the 32 bytes), oldest insertions dropped first. */
const nodes = new Map<string, Node[]>()

function remember(key: string, node: Node[]): void {
  if (nodes.size >= NODE_CACHE_ENTRIES) {
    const oldest = nodes.keys().next().value
    if (oldest !== undefined) nodes.delete(oldest)
  }
  nodes.set(key, node)
}

function latin1(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1')
}

/** The node a reference names: a 32-byte hash (read, decoded, kept) or a node embedded inline. */
function resolve(db: Database, ref: Node): Node[] | typeof MISSING_NODE | undefined {
  if (Array.isArray(ref)) return ref.length === 0 ? undefined : ref
  if (ref.length === 0) return undefined
  if (ref.length !== 32) return MISSING_NODE // not a hash and not a list: not a node this walks
  const key = latin1(ref)
  const hit = nodes.get(key)
  if (hit !== undefined) return hit
  const raw = db.getSync('trie', ref)
  if (raw === undefined) return MISSING_NODE
  const node = decodeRlp(raw) as Node
  if (!Array.isArray(node)) return MISSING_NODE
  remember(key, node)
  return node
}

/**
 * The value stored under keccak256(`key`) in the trie at `root`: its bytes, undefined when the
 * key is absent, MISSING_NODE when a node on the way is not in the database.
 */
export function trieRead(
  db: Database,
  root: Uint8Array,
  key: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE {
  if (root.length === 32 && Buffer.compare(root, EMPTY_TRIE_ROOT) === 0) return undefined
  const path = keccak256(key)
  let node = resolve(db, root)
  let at = 0 // nibbles of the path consumed
  for (;;) {
    if (node === undefined || node === MISSING_NODE) return node
    if (node.length === 17) {
      if (at === 64) return leafValue(node[16])
      node = resolve(db, node[nibble(path, at++)] as Node)
      continue
    }
    if (node.length !== 2) return MISSING_NODE
    const encoded = node[0]
    if (Array.isArray(encoded)) return MISSING_NODE
    // hex-prefix: high nibble of byte 0 is 2|odd for a leaf, 0|odd for an extension
    const flag = (encoded[0] ?? 0) >> 4
    const odd = (flag & 1) === 1
    const count = (encoded.length - 1) * 2 + (odd ? 1 : 0)
    for (let i = 0; i < count; i++) {
      const n = odd
        ? i === 0
          ? (encoded[0] as number) & 0x0f
          : byteNibble(encoded, i + 1)
        : byteNibble(encoded, i + 2)
      if (at + i >= 64 || n !== nibble(path, at + i)) return undefined
    }
    at += count
    if (flag >= 2) return at === 64 ? leafValue(node[1]) : undefined
    node = resolve(db, node[1] as Node)
  }
}

/** Nibble `i` of a 32-byte path. */
function nibble(path: Uint8Array, i: number): number {
  const b = path[i >> 1] as number
  return (i & 1) === 0 ? b >> 4 : b & 0x0f
}

/** Nibble `i` of `bytes`, counting from the high nibble of byte 0. */
function byteNibble(bytes: Uint8Array, i: number): number {
  const b = bytes[i >> 1] as number
  return (i & 1) === 0 ? b >> 4 : b & 0x0f
}

function leafValue(v: Node | undefined): Uint8Array | undefined {
  return v === undefined || Array.isArray(v) || v.length === 0 ? undefined : v
}

/** Forgets every decoded node (tests). */
export function clearNodeCache(): void {
  nodes.clear()
}

/**
 * A batch of writes to a Merkle-Patricia trie of 32-byte keys (the account trie and storage
 * tries, whose keys are keccak256 hashes), applied in memory and hashed once.
 *
 * ethereumjs' `trie.put` walks, re-encodes and re-hashes the whole path to the root for every
 * key: a block that changes 2,500 accounts hashed ~12,000 nodes, most of them the same top
 * branches again and again (~18% of the main thread at 2,000 transfers/s). Here the touched nodes
 * are loaded once, changed in place, and each node that changed is encoded and hashed once at the
 * end; untouched subtrees keep their hash and are never read.
 *
 *   updateTrie(store, root, [[key, value | null], …])
 *     ─▶ per key: insert / delete on in-memory nodes (loaded from `store` by hash on first touch)
 *     ─▶ encode bottom-up: a node of 32 bytes or more is stored under its keccak256, a shorter
 *        one is embedded in its parent; the root is always stored ─▶ new root hash
 *
 * What must always hold: the root and the nodes are exactly those ethereumjs' trie produces for
 * the same writes (the differential test batchTrie.test.ts compares them on random batches,
 * deletions that collapse branches, and long shared prefixes that make embedded nodes). Keys are
 * 64 nibbles, so no branch carries a value; a node that breaks that (or a missing node) throws,
 * and nothing has been written to the store by then except complete new nodes.
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from '../util/keccak.js'
import { hexOf } from '../util/bytes.js'

/** Root of the empty trie (keccak256 of RLP of the empty string). */
export const EMPTY_TRIE_ROOT = Uint8Array.from(
  Buffer.from('56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421', 'hex'),
)

/** Where nodes are read (by the hash's unprefixed hex) and new ones written: TrieStore. */
export interface NodeStore {
  getSync(keyHex: string): Uint8Array | undefined
  put(keyHex: string, value: Uint8Array): unknown
  /** Told of each batched flush of the account trie (TrieStore: the flat account table's input). */
  recordAccounts?(from: Uint8Array, to: Uint8Array, writes: [Uint8Array, Uint8Array | null][]): void
}

const BRANCH = 0
const EXTENSION = 1
const LEAF = 2

interface Branch {
  kind: typeof BRANCH
  kids: Ref[]
}
interface Extension {
  kind: typeof EXTENSION
  /** Nibbles. */
  path: Uint8Array
  child: Ref
}
interface Leaf {
  kind: typeof LEAF
  path: Uint8Array
  value: Uint8Array
}
type MemNode = Branch | Extension | Leaf
/** A child: a node in memory, the 32-byte hash of a stored node not loaded, or nothing. */
type Ref = MemNode | Uint8Array | null

type Encodable = Uint8Array | Encodable[]

const EMPTY = new Uint8Array(0)

/** Applies `writes` (value null = delete) to the trie at `root`; returns the new root. */
export function updateTrie(
  store: NodeStore,
  root: Uint8Array,
  writes: Iterable<readonly [key: Uint8Array, value: Uint8Array | null]>,
): Uint8Array {
  let top: Ref = equal(root, EMPTY_TRIE_ROOT) ? null : root
  for (const [key, value] of writes) {
    if (key.length !== 32) throw new Error(`trie key of ${key.length} bytes, expected 32`)
    const nibbles = toNibbles(key)
    top = value === null || value.length === 0 ? remove(store, top, nibbles, 0) : insert(store, top, nibbles, 0, value)
  }
  if (top === null) return EMPTY_TRIE_ROOT
  if (top instanceof Uint8Array) return top
  const encoded = RLP.encode(shape(store, top))
  const hash = keccak256(encoded)
  store.put(hexOf(hash), encoded)
  return hash
}

function insert(store: NodeStore, ref: Ref, key: Uint8Array, at: number, value: Uint8Array): MemNode {
  if (ref === null) return { kind: LEAF, path: key.slice(at), value }
  const node = ref instanceof Uint8Array ? load(store, ref) : ref
  switch (node.kind) {
    case BRANCH: {
      const i = key[at] as number
      node.kids[i] = insert(store, node.kids[i] as Ref, key, at + 1, value)
      return node
    }
    case LEAF: {
      const shared = common(node.path, key, at)
      if (shared === node.path.length) {
        node.value = value
        return node
      }
      // two leaves part at nibble `shared`
      const branch = emptyBranch()
      branch.kids[node.path[shared] as number] = { kind: LEAF, path: node.path.slice(shared + 1), value: node.value }
      branch.kids[key[at + shared] as number] = { kind: LEAF, path: key.slice(at + shared + 1), value }
      return shared === 0 ? branch : { kind: EXTENSION, path: key.slice(at, at + shared), child: branch }
    }
    case EXTENSION: {
      const shared = common(node.path, key, at)
      if (shared === node.path.length) {
        node.child = insert(store, node.child, key, at + shared, value)
        return node
      }
      // the extension splits at nibble `shared`: its rest under one slot, the new leaf under another
      const branch = emptyBranch()
      const rest = node.path.length - shared - 1
      branch.kids[node.path[shared] as number] =
        rest === 0 ? node.child : { kind: EXTENSION, path: node.path.slice(shared + 1), child: node.child }
      branch.kids[key[at + shared] as number] = { kind: LEAF, path: key.slice(at + shared + 1), value }
      return shared === 0 ? branch : { kind: EXTENSION, path: key.slice(at, at + shared), child: branch }
    }
  }
}

/** `ref` without `key`; `ref` itself (not a copy) when the key was not there. */
function remove(store: NodeStore, ref: Ref, key: Uint8Array, at: number): Ref {
  if (ref === null) return null
  const node = ref instanceof Uint8Array ? load(store, ref) : ref
  switch (node.kind) {
    case LEAF:
      return common(node.path, key, at) === node.path.length ? null : ref
    case EXTENSION: {
      if (common(node.path, key, at) !== node.path.length) return ref
      const child = remove(store, node.child, key, at + node.path.length)
      if (child === node.child) return ref
      return joinPath(store, node.path, child)
    }
    case BRANCH: {
      const i = key[at] as number
      const before = node.kids[i] as Ref
      const after = remove(store, before, key, at + 1)
      if (after === before) return ref
      node.kids[i] = after
      if (after !== null) return node
      // a branch left with one child folds into it
      let only = -1
      for (let j = 0; j < 16; j++) {
        if (node.kids[j] === null) continue
        if (only >= 0) return node
        only = j
      }
      if (only < 0) return null
      return joinPath(store, Uint8Array.of(only), node.kids[only] as Ref)
    }
  }
}

/** `path` followed by `child`: an extension, or merged into a leaf or extension child. */
function joinPath(store: NodeStore, path: Uint8Array, child: Ref): Ref {
  if (child === null) return null
  const node = child instanceof Uint8Array ? load(store, child) : child
  switch (node.kind) {
    case LEAF:
      return { kind: LEAF, path: concat(path, node.path), value: node.value }
    case EXTENSION:
      return { kind: EXTENSION, path: concat(path, node.path), child: node.child }
    case BRANCH:
      // the branch stays as it is (stored under its hash, or in memory)
      return { kind: EXTENSION, path, child }
  }
}

/** The RLP structure of a node, its children as references (hash, or the child embedded when under 32 bytes). */
function shape(store: NodeStore, node: MemNode): Encodable[] {
  switch (node.kind) {
    case LEAF:
      return [hexPrefix(node.path, true), node.value]
    case EXTENSION:
      return [hexPrefix(node.path, false), reference(store, node.child)]
    case BRANCH: {
      const items: Encodable[] = new Array(17)
      for (let i = 0; i < 16; i++) items[i] = reference(store, node.kids[i] as Ref)
      items[16] = EMPTY
      return items
    }
  }
}

function reference(store: NodeStore, ref: Ref): Encodable {
  if (ref === null) return EMPTY
  if (ref instanceof Uint8Array) return ref
  const structure = shape(store, ref)
  const encoded = RLP.encode(structure)
  if (encoded.length < 32) return structure
  const hash = keccak256(encoded)
  store.put(hexOf(hash), encoded)
  return hash
}

/** The stored node under `hash`, as a fresh in-memory node this batch may change. */
function load(store: NodeStore, hash: Uint8Array): MemNode {
  const raw = store.getSync(hexOf(hash))
  if (raw === undefined) throw new Error(`missing trie node ${hexOf(hash)}`)
  return fromStructure(RLP.decode(raw) as Encodable)
}

function fromStructure(item: Encodable): MemNode {
  if (!Array.isArray(item)) throw new Error('trie node is not a list')
  if (item.length === 17) {
    const value = item[16]
    if (!(value instanceof Uint8Array) || value.length !== 0)
      throw new Error('branch with a value in a 32-byte-key trie')
    const kids: Ref[] = new Array(16)
    for (let i = 0; i < 16; i++) kids[i] = childRef(item[i] as Encodable)
    return { kind: BRANCH, kids }
  }
  if (item.length !== 2 || !(item[0] instanceof Uint8Array)) throw new Error('malformed trie node')
  const { path, leaf } = fromHexPrefix(item[0])
  if (leaf) {
    if (!(item[1] instanceof Uint8Array)) throw new Error('malformed trie leaf')
    return { kind: LEAF, path, value: item[1] }
  }
  return { kind: EXTENSION, path, child: childRef(item[1] as Encodable) }
}

function childRef(item: Encodable): Ref {
  if (Array.isArray(item)) return item.length === 0 ? null : fromStructure(item)
  if (item.length === 0) return null
  if (item.length !== 32) throw new Error('trie reference neither a hash nor an embedded node')
  return item
}

function emptyBranch(): Branch {
  return { kind: BRANCH, kids: new Array<Ref>(16).fill(null) }
}

/** How many leading nibbles `path` shares with `key` from `at`. */
function common(path: Uint8Array, key: Uint8Array, at: number): number {
  let n = 0
  while (n < path.length && at + n < key.length && path[n] === key[at + n]) n++
  return n
}

function toNibbles(key: Uint8Array): Uint8Array {
  const out = new Uint8Array(key.length * 2)
  for (let i = 0; i < key.length; i++) {
    const b = key[i] as number
    out[2 * i] = b >> 4
    out[2 * i + 1] = b & 0x0f
  }
  return out
}

/** Hex-prefix encoding (Yellow Paper, appendix C): flag nibble 2 for a leaf, +1 when the path is odd. */
function hexPrefix(path: Uint8Array, leaf: boolean): Uint8Array {
  const odd = path.length % 2
  const out = new Uint8Array(1 + (path.length >> 1))
  const flag = (leaf ? 2 : 0) + odd
  let i = 0
  if (odd === 1) {
    out[0] = (flag << 4) | (path[0] as number)
    i = 1
  } else {
    out[0] = flag << 4
  }
  for (let o = 1; i < path.length; i += 2, o++) out[o] = ((path[i] as number) << 4) | (path[i + 1] as number)
  return out
}

function fromHexPrefix(encoded: Uint8Array): { path: Uint8Array; leaf: boolean } {
  if (encoded.length === 0) throw new Error('empty hex-prefix path')
  const flag = (encoded[0] as number) >> 4
  const odd = flag & 1
  const path = new Uint8Array((encoded.length - 1) * 2 + odd)
  let o = 0
  if (odd === 1) path[o++] = (encoded[0] as number) & 0x0f
  for (let i = 1; i < encoded.length; i++) {
    const b = encoded[i] as number
    path[o++] = b >> 4
    path[o++] = b & 0x0f
  }
  return { path, leaf: flag >= 2 }
}

function concat(a: Uint8Array, b: Uint8Array): Uint8Array {
  const out = new Uint8Array(a.length + b.length)
  out.set(a, 0)
  out.set(b, a.length)
  return out
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && Buffer.compare(a, b) === 0
}

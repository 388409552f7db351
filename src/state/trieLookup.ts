/**
 * A read of one key in a Merkle-Patricia trie at a committed root, straight from the trie's
 * nodes in RocksDB: no MerklePatriciaTrie object, no walk controller, no promise per node.
 * ethereumjs' `trie.get` spent ~30 µs on an account or slot read at a warm root (most of it its
 * walk machinery and decoding the same top nodes again); this walks the key's nibbles through
 * nodes kept as stored (NODE_CACHE_BYTES) and read in place, so a read costs the keccak of the key,
 * a few map lookups and no allocation but the value's view.
 *
 *   trieRead(db, root, key) ─▶ keccak(key) nibbles ─▶ root node ─▶ branch / extension / leaf …
 *                              (nodes by hash: kept-node cache ─miss─▶ RocksDB `trie` column)
 *
 * What must always hold: only nodes of committed state are read (a root whose nodes are still in
 * a writer's overlay has some missing here); a node the database does not hold makes the read
 * answer MISSING_NODE, never a guess, and the caller reads through ethereumjs instead. Nodes are
 * content-addressed, so a kept node is valid for every root forever.
 */
import type { Database } from '../db/db.js'
import { keccak256 } from '../util/keccak.js'
import { FifoMap } from '../util/fifoMap.js'
import { readSpan, span } from '../util/rlp.js'

/**
 * Bytes of trie nodes kept (by hash, all roots, as stored: RLP, not decoded): the top levels of the
 * account trie and hot storage tries. The top four levels of a 1M-account trie are ~70k branch
 * nodes of ~530 bytes (~37 MB); the fifth level's million nodes cannot all be kept anyway
 * (RocksDB's trie block cache serves them). Kept as stored and walked in place, a node costs its
 * bytes and one map entry: decoded (17 views a branch) it cost ~2 KB of heap and, on every miss,
 * 18 objects for the collector — a quarter of a 1M-account read mix's main thread was GC (issue 22).
 */
export const NODE_CACHE_BYTES = 64 * 1024 * 1024
/** Heap a kept node costs beside its bytes (map entry, key string, the Uint8Array object). */
const NODE_OVERHEAD_BYTES = 160

/** A node the database does not hold: the trie cannot be walked here. */
export const MISSING_NODE: unique symbol = Symbol('ibex.trie.missing-node')

/** Root of the empty trie (keccak256 of RLP of the empty string). */
export const EMPTY_TRIE_ROOT: Uint8Array = Buffer.from(
  '56e81f171bcc55a6ff8345e692c0f86e5b48e01b996cadc001622fb5e363b421',
  'hex',
)

/** Stored nodes by hash (latin1 string of the 32 bytes), oldest insertions dropped first. */
const nodes = new FifoMap<string, Uint8Array>()
let nodeBytes = 0

function remember(key: string, node: Uint8Array): void {
  // a node is keyed by its hash: one already held is the same node, already counted
  if (!nodes.set(key, node)) return
  nodeBytes += node.length + NODE_OVERHEAD_BYTES
  while (nodeBytes > NODE_CACHE_BYTES) {
    const oldest = nodes.shift()
    if (oldest === undefined) break
    nodeBytes -= oldest[1].length + NODE_OVERHEAD_BYTES
  }
}

function latin1(bytes: Uint8Array, start: number, end: number): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset + start, end - start).toString('latin1')
}

/** Where the node a walk is at lives: buf[nodeStart, nodeEnd) is the payload of its RLP list. */
let nodeBuf: Uint8Array = new Uint8Array(0)
let nodeStart = 0
let nodeEnd = 0

/**
 * Moves the walk to the node buf[span.start, span.end) names (the item just read): a 32-byte hash
 * (read, kept) or a node embedded inline. false: an empty reference (the key is absent);
 * MISSING_NODE: a node the database does not hold, or not a node at all.
 */
/** A node on the way is not in the kept-node cache (trieReadCached: the caller reads elsewhere). */
export const NOT_CACHED: unique symbol = Symbol('ibex.trie.not-cached')

/**
 * Nibbles of path below which trieReadCached still reads a node it does not keep (and keeps it):
 * the top four levels of a trie are at most 4,369 nodes (~2.3 MB), shared by every read of it, so
 * a small state ends up walked from memory; a node deeper than that is one of many (the fifth
 * level of a 1M-account trie has 65,536) and answers NOT_CACHED for the caller to read elsewhere.
 */
export const KEPT_WALK_DEPTH = 4

/** While trieReadCached walks: from this many nibbles of path on, a node not kept answers NOT_CACHED. */
let cachedFrom = Number.POSITIVE_INFINITY
/** Nibbles of path the walk has consumed (set before each follow()). */
let depth = 0

function follow(db: Database, buf: Uint8Array): boolean | typeof MISSING_NODE | typeof NOT_CACHED {
  if (span.list) {
    if (span.end === span.start) return false
    nodeBuf = buf
    nodeStart = span.start
    nodeEnd = span.end
    return true
  }
  const length = span.end - span.start
  if (length === 0) return false
  if (length !== 32) return MISSING_NODE // not a hash and not a list: not a node this walks
  return load(db, buf.subarray(span.start, span.end), latin1(buf, span.start, span.end))
}

/** Moves the walk to the stored node `hash` (`key`: its latin1 string). */
function load(db: Database, hash: Uint8Array, key: string): boolean | typeof MISSING_NODE | typeof NOT_CACHED {
  let raw = nodes.get(key)
  if (raw === undefined) {
    if (depth >= cachedFrom) return NOT_CACHED
    raw = db.getSync('trie', hash)
    if (raw === undefined) return MISSING_NODE
    remember(key, raw)
  }
  if (readSpan(raw, 0, raw.length) !== raw.length || !span.list) return MISSING_NODE
  nodeBuf = raw
  nodeStart = span.start
  nodeEnd = span.end
  return true
}

/**
 * The value stored under keccak256(`key`) in the trie at `root`: its bytes (a view into a stored
 * node: not to be changed), undefined when the key is absent, MISSING_NODE when a node on the way
 * is not in the database.
 */
export function trieRead(
  db: Database,
  root: Uint8Array,
  key: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE {
  return trieReadPath(db, root, keccak256(key))
}

/**
 * As trieReadPath, reading from the database only the nodes of the top KEPT_WALK_DEPTH levels:
 * NOT_CACHED as soon as a deeper node on the way is not kept. Where a trie is all kept — a small
 * state — this is cheaper than any database lookup (flatAccounts.ts reads it first).
 */
export function trieReadCached(
  db: Database,
  root: Uint8Array,
  path: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE | typeof NOT_CACHED {
  cachedFrom = KEPT_WALK_DEPTH
  try {
    return walk(db, root, path)
  } finally {
    cachedFrom = Number.POSITIVE_INFINITY
  }
}

/** As trieRead, given the key's 32-byte path (its keccak256) rather than the key. */
export function trieReadPath(
  db: Database,
  root: Uint8Array,
  path: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE {
  // outside trieReadCached every node is read from the database when not kept: never NOT_CACHED
  return walk(db, root, path) as Uint8Array | undefined | typeof MISSING_NODE
}

function walk(
  db: Database,
  root: Uint8Array,
  path: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE | typeof NOT_CACHED {
  if (root.length !== 32 || path.length !== 32) return MISSING_NODE
  if (Buffer.compare(root, EMPTY_TRIE_ROOT) === 0) return undefined
  depth = 0
  let moved = load(db, root, latin1(root, 0, 32))
  let at = 0 // nibbles of the path consumed
  for (;;) {
    if (moved !== true) return moved === false ? undefined : moved
    const buf = nodeBuf
    const end = nodeEnd
    // the first two items tell a branch (17 items) from a leaf or an extension (2)
    let next = readSpan(buf, nodeStart, end)
    if (next < 0) return MISSING_NODE
    const firstStart = span.start
    const firstEnd = span.end
    const firstList = span.list
    next = readSpan(buf, next, end)
    if (next < 0) return MISSING_NODE
    if (next !== end) {
      // a branch: item `n` for nibble n, item 16 for a key ending here
      const want = at === 64 ? 16 : nibble(path, at++)
      if (want === 0) {
        span.start = firstStart
        span.end = firstEnd
        span.list = firstList
      } else {
        for (let i = 1; i < want; i++) {
          next = readSpan(buf, next, end)
          if (next < 0) return MISSING_NODE
        }
      }
      if (want === 16) return span.list || span.end === span.start ? undefined : buf.subarray(span.start, span.end)
      depth = at
      moved = follow(db, buf)
      continue
    }
    if (firstList || firstEnd === firstStart) return MISSING_NODE
    // hex-prefix: high nibble of byte 0 is 2|odd for a leaf, 0|odd for an extension
    const flag = (buf[firstStart] as number) >> 4
    const odd = (flag & 1) === 1
    const count = (firstEnd - firstStart - 1) * 2 + (odd ? 1 : 0)
    for (let i = 0; i < count; i++) {
      const n = odd
        ? i === 0
          ? (buf[firstStart] as number) & 0x0f
          : byteNibble(buf, firstStart, i + 1)
        : byteNibble(buf, firstStart, i + 2)
      if (at + i >= 64 || n !== nibble(path, at + i)) return undefined
    }
    at += count
    depth = at
    if (flag >= 2)
      return at === 64 && !span.list && span.end > span.start ? buf.subarray(span.start, span.end) : undefined
    moved = follow(db, buf)
  }
}

/** Nibble `i` of a 32-byte path. */
function nibble(path: Uint8Array, i: number): number {
  const b = path[i >> 1] as number
  return (i & 1) === 0 ? b >> 4 : b & 0x0f
}

/** Nibble `i` of the bytes from `start`, counting from the high nibble of byte `start`. */
function byteNibble(bytes: Uint8Array, start: number, i: number): number {
  const b = bytes[start + (i >> 1)] as number
  return (i & 1) === 0 ? b >> 4 : b & 0x0f
}

/** Forgets every kept node (tests). */
export function clearNodeCache(): void {
  nodes.clear()
  nodeBytes = 0
}

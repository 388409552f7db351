/**
 * Every leaf of a committed Merkle-Patricia trie, in key order, a slice at a time: the walk keeps
 * its own stack, so a caller can take a few thousand leaves, yield to the event loop and go on
 * (the flat account table's backfill, flatAccounts.ts). Keys come out as the 32-byte paths the
 * trie stores (keccak256 of the account address), values as stored (a view: not to be changed).
 *
 *   root ─▶ branch: children 0…f pushed in reverse (so 0 comes out first)
 *        ─▶ extension: its nibbles added to the path, child pushed
 *        ─▶ leaf: path ‖ its nibbles = the key ─▶ emitted
 *
 * What must always hold: only committed nodes are read (RocksDB `trie` column, not the node cache
 * of trieLookup.ts, which a full walk would only churn); a node the database does not hold, or
 * bytes that are not a node, stop the walk with a TrieWalkError naming the node — never a partial
 * answer that looks complete.
 */
import type { Database } from '../db/db.js'
import { decodeRlp, type RlpItem } from '../util/rlp.js'
import { EMPTY_TRIE_ROOT } from './trieLookup.js'

/** Nibbles in a 32-byte key. */
const KEY_NIBBLES = 64

export class TrieWalkError extends Error {
  override name = 'TrieWalkError'
}

interface Pending {
  /** A node's hash (32 bytes) or the node itself (embedded inline in its parent). */
  ref: Uint8Array | RlpItem[]
  /** Nibbles of the path down to this node. */
  path: number[]
}

export class TrieWalker {
  readonly #db: Database
  readonly #stack: Pending[] = []
  /** Leaves emitted so far. */
  leaves = 0

  constructor(db: Database, root: Uint8Array) {
    this.#db = db
    if (Buffer.compare(root, EMPTY_TRIE_ROOT) !== 0) this.#stack.push({ ref: root, path: [] })
  }

  /** Whether every leaf has been emitted. */
  get done(): boolean {
    return this.#stack.length === 0
  }

  /**
   * Walks on until `max` more leaves were handed to `emit` (or the trie ends); returns how many were.
   * `key` is a fresh 32-byte array; `value` a view into the stored node.
   */
  next(max: number, emit: (key: Uint8Array, value: Uint8Array) => void): number {
    let n = 0
    while (n < max) {
      const top = this.#stack.pop()
      if (top === undefined) break
      const node = this.#node(top.ref)
      if (node.length === 17) {
        for (let i = 15; i >= 0; i--) {
          const child = node[i] as RlpItem
          if (!Array.isArray(child) && child.length === 0) continue
          this.#stack.push({ ref: this.#ref(child), path: [...top.path, i] })
        }
        if (!Array.isArray(node[16]) && (node[16] as Uint8Array).length > 0)
          throw new TrieWalkError('a branch holds a value: not a trie of 32-byte keys')
        continue
      }
      if (node.length !== 2 || Array.isArray(node[0]))
        throw new TrieWalkError('a trie node is neither a branch nor a leaf or extension')
      const encoded = node[0] as Uint8Array
      if (encoded.length === 0) throw new TrieWalkError('a leaf or extension with an empty path')
      const flag = (encoded[0] as number) >> 4
      const path = [...top.path]
      if ((flag & 1) === 1) path.push((encoded[0] as number) & 0x0f)
      for (let i = 1; i < encoded.length; i++) path.push((encoded[i] as number) >> 4, (encoded[i] as number) & 0x0f)
      if (flag >= 2) {
        if (path.length !== KEY_NIBBLES || Array.isArray(node[1]))
          throw new TrieWalkError('a leaf whose key is not 32 bytes')
        const key = new Uint8Array(32)
        for (let i = 0; i < 32; i++) key[i] = ((path[2 * i] as number) << 4) | (path[2 * i + 1] as number)
        emit(key, node[1] as Uint8Array)
        this.leaves++
        n++
      } else {
        this.#stack.push({ ref: this.#ref(node[1] as RlpItem), path })
      }
    }
    return n
  }

  #ref(child: RlpItem): Uint8Array | RlpItem[] {
    if (Array.isArray(child)) return child
    if (child.length !== 32) throw new TrieWalkError(`a child reference of ${child.length} bytes`)
    return child
  }

  #node(ref: Uint8Array | RlpItem[]): RlpItem[] {
    if (Array.isArray(ref)) return ref
    const raw = this.#db.getSync('trie', ref)
    if (raw === undefined)
      throw new TrieWalkError(`trie node ${Buffer.from(ref).toString('hex')} is not in the database`)
    const node = decodeRlp(raw)
    if (!Array.isArray(node)) throw new TrieWalkError(`trie node ${Buffer.from(ref).toString('hex')} is not a list`)
    return node
  }
}

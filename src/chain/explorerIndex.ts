/**
 * The explorer indexes (issue 21): what Otterscan's `ots_` methods and the built-in explorer ask
 * of a chain that eth_ cannot answer without scanning it. They live in the `explorer` column
 * family and are written in the block's own WriteBatch (ChainStore.commitBlock), so they never lag
 * the chain or survive a block a crash lost. Keys (big-endian numbers):
 *
 *   0x00 ‖ address (20) ‖ block (8) ‖ tx index (4)  → ∅          address appearances: the sender, and
 *        every address a call frame of the transaction ran from or to (internal calls included)
 *   0x01 ‖ sender (20) ‖ nonce (8)                   → tx hash    sender + nonce
 *   0x02 ‖ contract (20)                             → creator (20) ‖ tx hash (32)   last creation
 *   0x03 ‖ block (8)                                 → Σ gasUsed × effectiveGasPrice (unpadded)
 *   0x04 ‖ tx hash (32)                              → return data of a failed transaction
 *
 * Internal appearances and creations come from the block's execution (TxActivity, collected by
 * src/block/activity.ts from the EVM's message events while the block runs: no second
 * execution); sender/nonce and fees from the transactions and receipts. Each index can be turned
 * off (`[explorer]`); `meta/explorer-head` is the last block indexed and `meta/explorer-from` the
 * lowest block from which every block up to the head is indexed (src/block/explorerBackfill.ts
 * lowers it, newest blocks first, for a datadir written without the indexes).
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import type { Database, WriteBatch } from '../db/db.js'
import type { StoredReceipt } from './receipt.js'

const KIND_APPEARANCE = 0x00
const KIND_SENDER_NONCE = 0x01
const KIND_CREATOR = 0x02
const KIND_FEES = 0x03
const KIND_REVERT = 0x04

const ADDRESS_BYTES = 20
const HASH_BYTES = 32
/** Appearance key: kind, address, block number, transaction index. */
const APPEARANCE_KEY_BYTES = 1 + ADDRESS_BYTES + 8 + 4
/** Rows read per synchronous range read of the appearance index. */
export const APPEARANCE_READ_CHUNK = 1024

const HEAD_KEY = Buffer.from('explorer-head')
const FROM_KEY = Buffer.from('explorer-from')
const MASK_KEY = Buffer.from('explorer-indexes')
const EMPTY = new Uint8Array(0)

/** Which explorer indexes a node writes (`[explorer] index_*`). */
export interface ExplorerIndexes {
  appearances: boolean
  senderNonce: boolean
  creators: boolean
  fees: boolean
  reverts: boolean
}

export const NO_EXPLORER_INDEXES: Readonly<ExplorerIndexes> = Object.freeze({
  appearances: false,
  senderNonce: false,
  creators: false,
  fees: false,
  reverts: false,
})

export const ALL_EXPLORER_INDEXES: Readonly<ExplorerIndexes> = Object.freeze({
  appearances: true,
  senderNonce: true,
  creators: true,
  fees: true,
  reverts: true,
})

/** True when any index is on. */
export function anyExplorerIndex(x: ExplorerIndexes): boolean {
  return x.appearances || x.senderNonce || x.creators || x.fees || x.reverts
}

/** True when the indexes need what only execution knows (call frames, creations, revert data). */
export function needsActivity(x: ExplorerIndexes): boolean {
  return x.appearances || x.creators || x.reverts
}

/** What one transaction's execution did, as the explorer indexes need it. */
export interface TxActivity {
  /** Every address a call frame ran from or to (code address of a DELEGATECALL/CALLCODE too), created contracts; no precompiles. */
  touched: Uint8Array[]
  /** Contracts created (top-level and internal CREATE/CREATE2 that succeeded), with their direct creator. */
  created: { address: Uint8Array; creator: Uint8Array }[]
  /** The return data of a failed transaction (a revert's output); undefined on success or when empty. */
  revertOutput: Uint8Array | undefined
}

function blockKey(kind: number, number: bigint): Buffer {
  const k = Buffer.allocUnsafe(9)
  k[0] = kind
  k.writeBigUInt64BE(number, 1)
  return k
}

function appearanceKey(address: Uint8Array, number: bigint, index: number): Buffer {
  const k = Buffer.allocUnsafe(APPEARANCE_KEY_BYTES)
  k[0] = KIND_APPEARANCE
  k.set(address, 1)
  k.writeBigUInt64BE(number, 1 + ADDRESS_BYTES)
  k.writeUInt32BE(index, 1 + ADDRESS_BYTES + 8)
  return k
}

function senderNonceKey(sender: Uint8Array, nonce: bigint): Buffer {
  const k = Buffer.allocUnsafe(1 + ADDRESS_BYTES + 8)
  k[0] = KIND_SENDER_NONCE
  k.set(sender, 1)
  k.writeBigUInt64BE(nonce, 1 + ADDRESS_BYTES)
  return k
}

function addressKey(kind: number, address: Uint8Array): Buffer {
  const k = Buffer.allocUnsafe(1 + ADDRESS_BYTES)
  k[0] = kind
  k.set(address, 1)
  return k
}

function hashKey(kind: number, hash: Uint8Array): Buffer {
  const k = Buffer.allocUnsafe(1 + HASH_BYTES)
  k[0] = kind
  k.set(hash, 1)
  return k
}

const MAX_NONCE = (1n << 64n) - 1n

/** The block's explorer entries, as `write` puts them in the block's batch. */
export interface IndexedBlock {
  number: bigint
  transactions: readonly TypedTransaction[]
  receipts: readonly StoredReceipt[]
  /** One per transaction; undefined when the block's execution was not observed (then only sender/nonce and fees are written). */
  activity: readonly TxActivity[] | undefined
}

/**
 * Adds block `b`'s entries of the indexes `on` to `batch`, and moves `meta/explorer-head` to it
 * (and `meta/explorer-from` when the block does not follow the last indexed one).
 */
export function writeExplorerIndex(db: Database, batch: WriteBatch, b: IndexedBlock, on: ExplorerIndexes): void {
  if (!anyExplorerIndex(on)) return
  putIndexEntries(batch, b, on)
  const head = readNumber(db, HEAD_KEY)
  if (head === undefined || head + 1n !== b.number) batch.put('meta', FROM_KEY, numberBytes(b.number))
  batch.put('meta', HEAD_KEY, numberBytes(b.number))
}

/** The entries of block `b` alone (the backfill's part: it moves `explorer-from` itself). */
export function putIndexEntries(batch: WriteBatch, b: IndexedBlock, on: ExplorerIndexes): void {
  let fees = 0n
  for (let i = 0; i < b.transactions.length; i++) {
    const tx = b.transactions[i] as TypedTransaction
    const receipt = b.receipts[i] as StoredReceipt
    const activity = b.activity?.[i]
    fees += receipt.gasUsed * receipt.effectiveGasPrice
    if (on.senderNonce && tx.nonce <= MAX_NONCE)
      batch.put('explorer', senderNonceKey(receipt.from, tx.nonce), tx.hash())
    if (on.appearances) {
      const seen = new Set<string>()
      const put = (a: Uint8Array) => {
        const id = Buffer.from(a.buffer, a.byteOffset, a.byteLength).toString('latin1')
        if (a.length !== ADDRESS_BYTES || seen.has(id)) return
        seen.add(id)
        batch.put('explorer', appearanceKey(a, b.number, i), EMPTY)
      }
      put(receipt.from)
      if (tx.to !== undefined) put(tx.to.bytes)
      if (receipt.contractAddress !== undefined) put(receipt.contractAddress)
      if (activity !== undefined) for (const a of activity.touched) put(a)
    }
    if (on.creators) {
      if (activity !== undefined) {
        for (const c of activity.created) {
          batch.put('explorer', addressKey(KIND_CREATOR, c.address), Buffer.concat([c.creator, tx.hash()]))
        }
      } else if (receipt.contractAddress !== undefined && receipt.status === 1) {
        batch.put(
          'explorer',
          addressKey(KIND_CREATOR, receipt.contractAddress),
          Buffer.concat([receipt.from, tx.hash()]),
        )
      }
    }
    if (on.reverts && receipt.status === 0 && activity?.revertOutput !== undefined) {
      batch.put('explorer', hashKey(KIND_REVERT, tx.hash()), activity.revertOutput)
    }
  }
  if (on.fees) batch.put('explorer', blockKey(KIND_FEES, b.number), bigIntToUnpaddedBytes(fees))
}

function numberBytes(n: bigint): Buffer {
  const v = Buffer.allocUnsafe(8)
  v.writeBigUInt64BE(n)
  return v
}

function readNumber(db: Database, key: Buffer): bigint | undefined {
  const v = db.getSync('meta', key)
  return v === undefined ? undefined : Buffer.from(v).readBigUInt64BE(0)
}

/** Sets `meta/explorer-head` (the backfill, when it starts over below the chain's head). */
export function putIndexedHead(batch: WriteBatch, head: bigint): void {
  batch.put('meta', HEAD_KEY, numberBytes(head))
}

const INDEX_BITS: readonly (keyof ExplorerIndexes)[] = ['appearances', 'senderNonce', 'creators', 'fees', 'reverts']

/** The indexes as a bit mask (meta/explorer-indexes: which ones the indexed blocks carry). */
function maskOf(x: ExplorerIndexes): number {
  let m = 0
  INDEX_BITS.forEach((k, i) => {
    if (x[k]) m |= 1 << i
  })
  return m
}

/** True when `on` has an index the blocks indexed so far were not indexed with (or that is unknown). */
export function gainsIndexes(db: Database, on: ExplorerIndexes): boolean {
  const v = db.getSync('meta', MASK_KEY)
  if (v === undefined || v.length === 0) return true
  const stored = v[0] as number
  return (maskOf(on) & ~stored) !== 0
}

/** Records which indexes the indexed blocks carry. */
export function putIndexesMask(batch: WriteBatch, on: ExplorerIndexes): void {
  batch.put('meta', MASK_KEY, Uint8Array.of(maskOf(on)))
}

/** Moves `meta/explorer-from` down to `from` (the backfill, in the batch of the blocks it indexed). */
export function putIndexedFrom(batch: WriteBatch, from: bigint): void {
  batch.put('meta', FROM_KEY, numberBytes(from))
}

/** A transaction's place: block number and index in the block. */
export interface TxPosition {
  blockNumber: bigint
  index: number
}

/**
 * Reads of the explorer indexes. Every read is bounded: a search reads at most `limit` matches
 * (plus the rest of the last block's, never split) in chunks of APPEARANCE_READ_CHUNK rows.
 */
export class ExplorerIndex {
  readonly #db: Database
  readonly enabled: Readonly<ExplorerIndexes>

  constructor(db: Database, enabled: ExplorerIndexes) {
    this.#db = db
    this.enabled = Object.freeze({ ...enabled })
  }

  /** The last block indexed; undefined when none ever was. */
  get head(): bigint | undefined {
    return readNumber(this.#db, HEAD_KEY)
  }

  /** The lowest block from which every block up to `head` is indexed; undefined when none. */
  get indexedFrom(): bigint | undefined {
    return readNumber(this.#db, FROM_KEY)
  }

  /**
   * Appearances of `address` in blocks strictly below `before` (newest first): at least `limit`
   * transactions when there are that many, completed to the end of the last block read (a
   * block's matches are never split). `exhausted` is true when no older appearance exists.
   */
  appearancesBefore(address: Uint8Array, before: bigint, limit: number): { txs: TxPosition[]; exhausted: boolean } {
    if (before <= 0n) return { txs: [], exhausted: true }
    const lo = appearanceKey(address, 0n, 0)
    let hi = appearanceKey(address, before, 0) // lt: block `before` itself excluded
    const out: TxPosition[] = []
    for (;;) {
      const rows = this.#range(lo, hi, true)
      for (const key of rows) {
        const pos = positionOf(key)
        const last = out.at(-1)
        if (out.length >= limit && last !== undefined && last.blockNumber !== pos.blockNumber) {
          return { txs: out, exhausted: false }
        }
        out.push(pos)
      }
      if (rows.length < APPEARANCE_READ_CHUNK) return { txs: out, exhausted: true }
      hi = rows.at(-1) as Buffer
    }
  }

  /**
   * Appearances of `address` in blocks strictly above `after` (oldest first), bounded as
   * appearancesBefore; `exhausted` is true when no newer appearance exists.
   */
  appearancesAfter(address: Uint8Array, after: bigint, limit: number): { txs: TxPosition[]; exhausted: boolean } {
    if (after >= MAX_NONCE) return { txs: [], exhausted: true }
    let lo = appearanceKey(address, after + 1n, 0)
    const hi = appearanceKey(address, MAX_NONCE, 0xffffffff)
    const out: TxPosition[] = []
    let first = true
    for (;;) {
      const rows = this.#range(lo, hi, false, first)
      first = false
      for (const key of rows) {
        const pos = positionOf(key)
        const last = out.at(-1)
        if (out.length >= limit && last !== undefined && last.blockNumber !== pos.blockNumber) {
          return { txs: out, exhausted: false }
        }
        out.push(pos)
      }
      if (rows.length < APPEARANCE_READ_CHUNK) return { txs: out, exhausted: true }
      lo = rows.at(-1) as Buffer
    }
  }

  /** The hash of `sender`'s transaction with `nonce`, or undefined. */
  txBySenderAndNonce(sender: Uint8Array, nonce: bigint): Uint8Array | undefined {
    if (nonce > MAX_NONCE) return undefined
    return this.#db.getSync('explorer', senderNonceKey(sender, nonce))
  }

  /** Who created contract `address` and in which transaction (its latest creation), or undefined. */
  contractCreator(address: Uint8Array): { creator: Uint8Array; txHash: Uint8Array } | undefined {
    const v = this.#db.getSync('explorer', addressKey(KIND_CREATOR, address))
    if (v === undefined) return undefined
    return { creator: v.subarray(0, ADDRESS_BYTES), txHash: v.subarray(ADDRESS_BYTES, ADDRESS_BYTES + HASH_BYTES) }
  }

  /** Σ gasUsed × effectiveGasPrice of block `number`'s transactions, or undefined when not indexed. */
  blockFees(number: bigint): bigint | undefined {
    const v = this.#db.getSync('explorer', blockKey(KIND_FEES, number))
    return v === undefined ? undefined : bytesToBigInt(v)
  }

  /** The return data a failed transaction left, or undefined (success, empty output, or not indexed). */
  revertOutput(txHash: Uint8Array): Uint8Array | undefined {
    return this.#db.getSync('explorer', hashKey(KIND_REVERT, txHash))
  }

  /**
   * Keys of the appearance index in [lo, hi) (reverse: newest first) or (lo, hi] forward after the
   * first chunk; at most APPEARANCE_READ_CHUNK of them.
   */
  #range(lo: Buffer, hi: Buffer, reverse: boolean, inclusiveLo = true): Buffer[] {
    // biome-ignore lint/suspicious/noExplicitAny: querySync is the addon's synchronous range read
    const level = this.#db.level as any
    const { rows } = level.querySync({
      ...(inclusiveLo ? { gte: lo } : { gt: lo }),
      ...(reverse ? { lt: hi } : { lte: hi }),
      reverse,
      column: this.#db.columns.explorer,
      keys: true,
      values: false,
      limit: APPEARANCE_READ_CHUNK,
      keyEncoding: 'buffer',
      valueEncoding: 'buffer',
    }) as { rows: (Buffer | undefined)[] }
    const keys: Buffer[] = []
    for (let i = 0; i < rows.length; i += 2) keys.push(rows[i] as Buffer)
    return keys
  }
}

function positionOf(key: Buffer): TxPosition {
  return {
    blockNumber: key.readBigUInt64BE(1 + ADDRESS_BYTES),
    index: key.readUInt32BE(1 + ADDRESS_BYTES + 8),
  }
}

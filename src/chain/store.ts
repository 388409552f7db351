/**
 * ChainStore: the canonical chain on disk. Headers, bodies, receipts, the number → hash
 * index, the transaction lookup and the head pointer live in their own column families
 * (src/db/db.ts). `commitBlock` writes a block, its receipts, its indexes, its state
 * changes and the new head in ONE WriteBatch, so after a crash the head always names a
 * complete block whose state is on disk.
 *
 * The block hash is the IBFT hash (seals blanked, see src/consensus/ibft), passed in by
 * whoever built or verified the block; the store never recomputes it.
 */
import type { BlockHeader } from '@ethereumjs/block'
import { createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { TypedTransaction } from '@ethereumjs/tx'
import { createTxFromBlockBodyData } from '@ethereumjs/tx'
import { bigIntToUnpaddedBytes, bytesToBigInt } from '@ethereumjs/util'
import { FlatAccounts } from '../state/flatAccounts.js'
import type { TrieStore } from '../state/trieStore.js'
import { memoizeParams } from './commonParams.js'
import { decodeRlp } from '../util/rlp.js'
import type { Database, WriteBatch } from '../db/db.js'
import type { Logger } from '../log.js'
import { writeLogIndex } from './logIndex.js'
import {
  ExplorerIndex,
  type ExplorerIndexes,
  NO_EXPLORER_INDEXES,
  needsActivity,
  type TxActivity,
  writeExplorerIndex,
} from './explorerIndex.js'
import {
  decodeStoredReceipts,
  encodeStoredReceipts,
  type ReceiptInBlock,
  receiptInList,
  type StoredReceipt,
  storedReceiptAt,
} from './receipt.js'
import { editedStateRoot, markStateEdits, putEditedStateRoot, stateEditsEnabled } from './stateEdits.js'
import { FifoMap } from '../util/fifoMap.js'

/** Decoded blocks kept in memory (recent blocks are read far more often than old ones). */
export const BLOCK_CACHE_ENTRIES = 4096
/** …and at most this much of them, by RLP size (a decoded block takes several times its RLP). */
export const BLOCK_CACHE_RLP_BYTES = 8 * 1024 * 1024
/** Decoded receipts kept, by the stored size of a block's receipts (every tx lookup reads its block's). */
export const RECEIPT_CACHE_BYTES = 16 * 1024 * 1024

const HEAD_KEY = Buffer.from('head')
/** Position of the state root in a header's fields. */
const HEADER_STATE_ROOT = 3
const GENESIS_KEY = Buffer.from('genesis')

export interface ChainBlock {
  hash: Uint8Array
  /** The header; on a dev chain whose state was edited (stateEdits.ts) its stateRoot is the edited root. */
  header: BlockHeader
  /** Header fields as stored (sealed extraData, the state root the block was sealed with), in fork order. */
  headerRaw: Uint8Array[]
  transactions: TypedTransaction[]
  /** Transaction bytes as they appear in the block body (typed: type ‖ payload). */
  transactionBytes: Uint8Array[]
  uncles: Uint8Array[][]
  /** Withdrawals as raw RLP lists (Shanghai+), else undefined. */
  withdrawals: Uint8Array[][] | undefined
  /** RLP size of the whole block, as geth reports `size`. */
  size: number
  totalDifficulty: bigint
}

/** Decoders of the stored blocks' transactions, one at a time (see blockTransaction). */
const lazyTransactions = new WeakMap<ChainBlock, (index: number) => TypedTransaction>()

/**
 * Transaction `index` of `block`, or undefined past its end. A block read from the store decodes
 * only this one (the rest stay bytes until asked for); any other block answers from its list.
 */
export function blockTransaction(block: ChainBlock, index: number): TypedTransaction | undefined {
  const decode = lazyTransactions.get(block)
  if (decode === undefined) return block.transactions[index]
  if (!Number.isInteger(index) || index < 0 || index >= block.transactionBytes.length) return undefined
  return decode(index)
}

export interface NewBlock {
  hash: Uint8Array
  headerRaw: Uint8Array[]
  transactionBytes: Uint8Array[]
  /**
   * The same transactions already decoded (the builder has them), under the block's fork rules:
   * saves decoding them again for the in-memory block (~20 µs each).
   */
  transactions?: TypedTransaction[]
  uncles?: Uint8Array[][]
  withdrawals?: Uint8Array[][]
  receipts: StoredReceipt[]
  totalDifficulty: bigint
  /** What each transaction's execution touched, for the explorer indexes (explorerIndex.ts); undefined when not observed. */
  activity?: TxActivity[]
}

export interface TxLocation {
  blockHash: Uint8Array
  blockNumber: bigint
  index: number
}

export function numberKey(n: bigint): Uint8Array {
  const key = Buffer.alloc(8)
  key.writeBigUInt64BE(n)
  return key
}

function tdKey(hash: Uint8Array): Uint8Array {
  return Buffer.concat([hash, Buffer.from('t')])
}

/** Encodes the block body as stored: RLP([txs, uncles, withdrawals?]). */
function encodeBody(b: NewBlock): Uint8Array {
  const body: unknown[] = [b.transactionBytes, b.uncles ?? []]
  if (b.withdrawals !== undefined) body.push(b.withdrawals)
  // typed transactions are embedded as byte strings, legacy ones as lists
  const txs = b.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t))
  body[0] = txs
  return RLP.encode(body as never)
}

export class ChainStore {
  readonly db: Database
  readonly common: Common
  #head: ChainBlock | undefined
  #genesisHash: Uint8Array | undefined
  readonly #cache = new Map<string, ChainBlock>()
  #cacheBytes = 0
  /** Decoded receipts by block hash (hex) with their stored size; read-only for every caller. */
  readonly #receipts = new FifoMap<string, { receipts: StoredReceipt[]; bytes: number }>()
  #receiptBytes = 0
  /** The chain may hold state edits (stateEdits.ts): every block handed out is checked for one. */
  #edits: boolean
  /** The explorer indexes written with each block (`[explorer]`; none until the node sets them). */
  #explorer: ExplorerIndex
  /** The flat account table, kept with each commit (src/state/flatAccounts.ts). */
  readonly #flat: FlatAccounts
  /** Rebuild the flat table whenever it does not hold the head's state (the node's store; off in workers and tools). */
  #flatRebuild = false

  constructor(db: Database, common: Common) {
    this.db = db
    this.common = common
    // every block decode builds its transactions on copies of this Common (commonParams.ts)
    memoizeParams(common)
    this.#edits = stateEditsEnabled(db)
    this.#explorer = new ExplorerIndex(db, NO_EXPLORER_INDEXES)
    const head = db.getSync('meta', HEAD_KEY)
    if (head !== undefined) this.#head = this.getBlockByHash(head)
    this.#genesisHash = db.getSync('meta', GENESIS_KEY)
    this.#flat = new FlatAccounts(db, this.#head === undefined, () => this.#head?.header.stateRoot)
  }

  /** Writes a commit's batch; when it fails, the flat table stops building on what it held. */
  async #write(batch: WriteBatch, sync: boolean): Promise<void> {
    try {
      await batch.write(sync)
    } catch (err) {
      this.#flat.abandon()
      throw err
    }
  }

  /** The flat account table (src/state/flatAccounts.ts). */
  get flat(): FlatAccounts {
    return this.#flat
  }

  /**
   * From now on, rebuild the flat account table in the background whenever it does not hold the
   * head's state (an existing datadir, an unrecorded change): the node's store, on the main thread.
   */
  keepFlatAccounts(log: Logger): void {
    this.#flat.setLogger(log)
    this.#flatRebuild = true
    this.#flat.ensure()
  }

  /** The explorer indexes and their reads. */
  get explorer(): ExplorerIndex {
    return this.#explorer
  }

  /** Turns the explorer indexes on or off for the blocks committed from now on. */
  setExplorerIndexes(on: ExplorerIndexes): void {
    this.#explorer = new ExplorerIndex(this.db, on)
  }

  /** True when committed blocks should carry their transactions' activity (NewBlock.activity). */
  get wantsActivity(): boolean {
    return needsActivity(this.#explorer.enabled)
  }

  /** True once a genesis block is stored. */
  get initialized(): boolean {
    return this.#head !== undefined
  }

  /** The head block; throws when the store is empty. */
  get head(): ChainBlock {
    if (this.#head === undefined) throw new Error('chain store has no head block')
    return this.#head
  }

  get genesisHash(): Uint8Array {
    if (this.#genesisHash === undefined) throw new Error('chain store has no genesis block')
    return this.#genesisHash
  }

  getHashByNumber(n: bigint): Uint8Array | undefined {
    if (n < 0n || n > 0xffffffffffffffffn) return undefined
    if (this.#head !== undefined && n > this.#head.header.number) return undefined
    return this.db.getSync('canonical', numberKey(n))
  }

  getBlockByNumber(n: bigint): ChainBlock | undefined {
    const hash = this.getHashByNumber(n)
    return hash === undefined ? undefined : this.getBlockByHash(hash)
  }

  /** True when `hash` is the canonical block at its height. */
  isCanonical(block: ChainBlock): boolean {
    const h = this.getHashByNumber(block.header.number)
    return h !== undefined && Buffer.compare(h, block.hash) === 0
  }

  getBlockByHash(hash: Uint8Array): ChainBlock | undefined {
    const key = Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex')
    const cached = this.#cache.get(key)
    if (cached !== undefined && (!this.#edits || this.#editCurrent(cached))) return cached
    // the header and its total difficulty in one read of their column (each native read costs ~5 µs besides its lookup)
    const [headerBytes, tdBytes] = this.db.getManySync('headers', [hash, tdKey(hash)])
    if (headerBytes === undefined) return undefined
    const bodyBytes = this.db.getSync('bodies', hash)
    if (bodyBytes === undefined) return undefined
    const block = this.#decode(hash, headerBytes, bodyBytes, tdBytes ? bytesToBigInt(tdBytes) : 0n)
    if (cached !== undefined) this.#forget(key)
    this.#remember(key, block)
    return block
  }

  /** True when the cached block's state root is its effective one (an edit may have come since: another thread's store). */
  #editCurrent(block: ChainBlock): boolean {
    const edited = editedStateRoot(this.db, block.hash)
    return edited === undefined || Buffer.compare(edited, block.header.stateRoot) === 0
  }

  /**
   * Allows state edits on this chain (the dev methods, stateEdits.ts): written before any worker
   * opens its own store on the database, so that every store checks blocks for edits.
   */
  async enableStateEdits(): Promise<void> {
    if (this.#edits) return
    const batch = this.db.batch()
    markStateEdits(batch)
    await batch.write(true)
    this.#edits = true
  }

  /**
   * Makes `root` the effective state of the head block: the trie nodes pending in `trie` and the
   * edit in one batch, fsynced; the head is served with the new root from now on.
   */
  async commitStateEdit(root: Uint8Array, trie: TrieStore): Promise<ChainBlock> {
    if (!this.#edits) throw new Error('state edits are not enabled on this chain')
    const head = this.head
    const batch = this.db.batch()
    this.#flat.onCommit(batch, root, trie.takeAccountTransitions())
    trie.flushInto(batch)
    putEditedStateRoot(batch, head.hash, root)
    await this.#flat.settled()
    await this.#write(batch, true)
    const key = Buffer.from(head.hash).toString('hex')
    this.#forget(key)
    const block = this.getBlockByHash(head.hash) as ChainBlock
    this.#head = block
    if (this.#flatRebuild) this.#flat.ensure()
    return block
  }

  /** A block's receipts (shared: callers must not change them). */
  getReceipts(hash: Uint8Array): StoredReceipt[] | undefined {
    const key = Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex')
    const cached = this.#receipts.get(key)
    if (cached !== undefined) return cached.receipts
    const bytes = this.db.getSync('receipts', hash)
    if (bytes === undefined) return undefined
    const receipts = decodeStoredReceipts(bytes)
    // a block's receipts never change once stored: no reorgs under immediate finality
    this.#receipts.set(key, { receipts, bytes: bytes.length })
    this.#receiptBytes += bytes.length
    while (this.#receiptBytes > RECEIPT_CACHE_BYTES) {
      const oldest = this.#receipts.shift()
      if (oldest === undefined) break
      this.#receiptBytes -= oldest[1].bytes
    }
    return receipts
  }

  /**
   * Receipt `index` of a block, with where its logs sit among the block's: from the decoded
   * receipts when they are kept, else decoding that one receipt only (and keeping nothing: a
   * lookup by hash is one of a block's receipts, and the next is most likely another block's).
   */
  getReceipt(hash: Uint8Array, index: number): ReceiptInBlock | undefined {
    const cached = this.#receipts.get(Buffer.from(hash.buffer, hash.byteOffset, hash.byteLength).toString('hex'))
    if (cached !== undefined) return receiptInList(cached.receipts, index)
    const bytes = this.db.getSync('receipts', hash)
    return bytes === undefined ? undefined : storedReceiptAt(bytes, index)
  }

  getTxLocation(txHash: Uint8Array): TxLocation | undefined {
    const bytes = this.db.getSync('txlookup', txHash)
    if (bytes === undefined) return undefined
    const [num, blockHash, index] = decodeRlp(bytes) as Uint8Array[]
    const blockNumber = bytesToBigInt(num as Uint8Array)
    if (this.#head !== undefined && blockNumber > this.#head.header.number) return undefined
    return { blockNumber, blockHash: blockHash as Uint8Array, index: Number(bytesToBigInt(index as Uint8Array)) }
  }

  /**
   * Writes block + receipts + indexes + pending state (from `trie`) + head pointer in one
   * atomic batch, fsynced when `sync`. The block becomes the head.
   */
  async commitBlock(b: NewBlock, trie: TrieStore | undefined, sync: boolean): Promise<ChainBlock> {
    const batch = this.db.batch()
    this.#flat.onCommit(batch, b.headerRaw[3] as Uint8Array, trie?.takeAccountTransitions() ?? [])
    trie?.flushInto(batch)
    const headerBytes = RLP.encode(b.headerRaw)
    const bodyBytes = encodeBody(b)
    const number = bytesToBigInt(b.headerRaw[8] as Uint8Array)
    batch.put('headers', b.hash, headerBytes)
    batch.put('headers', tdKey(b.hash), bigIntToUnpaddedBytes(b.totalDifficulty))
    batch.put('bodies', b.hash, bodyBytes)
    batch.put('receipts', b.hash, encodeStoredReceipts(b.receipts))
    batch.put('canonical', numberKey(number), b.hash)
    const numberBytes = bigIntToUnpaddedBytes(number)
    const block = this.#decode(b.hash, headerBytes, bodyBytes, b.totalDifficulty, b.transactions)
    block.transactions.forEach((tx, i) => {
      batch.put('txlookup', tx.hash(), RLP.encode([numberBytes, b.hash, bigIntToUnpaddedBytes(BigInt(i))]))
    })
    writeLogIndex(batch, number, b.receipts)
    writeExplorerIndex(
      this.db,
      batch,
      { number, transactions: block.transactions, receipts: b.receipts, activity: b.activity },
      this.#explorer.enabled,
    )
    if (number === 0n) batch.put('meta', GENESIS_KEY, b.hash)
    batch.put('meta', HEAD_KEY, b.hash)
    await this.#flat.settled()
    await this.#write(batch, sync)
    if (number === 0n) this.#genesisHash = b.hash
    this.#remember(Buffer.from(b.hash).toString('hex'), block)
    this.#head = block
    if (this.#flatRebuild) this.#flat.ensure()
    return block
  }

  /** Reads a metadata value (UTF-8 key). */
  getMeta(key: string): Uint8Array | undefined {
    return this.db.getSync('meta', Buffer.from(key))
  }

  async putMeta(key: string, value: Uint8Array): Promise<void> {
    const batch = this.db.batch()
    batch.put('meta', Buffer.from(key), value)
    await batch.write(true)
  }

  #forget(key: string): void {
    const known = this.#cache.get(key)
    if (known === undefined) return
    this.#cacheBytes -= known.size
    this.#cache.delete(key)
  }

  #remember(key: string, block: ChainBlock): void {
    if (this.#cache.has(key)) return
    this.#cache.set(key, block)
    this.#cacheBytes += block.size
    while (
      this.#cache.size > BLOCK_CACHE_ENTRIES ||
      (this.#cacheBytes > BLOCK_CACHE_RLP_BYTES && this.#cache.size > 1)
    ) {
      const oldest = this.#cache.keys().next().value
      if (oldest === undefined) break
      this.#cacheBytes -= this.#cache.get(oldest)?.size ?? 0
      this.#cache.delete(oldest)
    }
  }

  #decode(
    hash: Uint8Array,
    headerBytes: Uint8Array,
    bodyBytes: Uint8Array,
    td: bigint,
    decoded?: TypedTransaction[],
  ): ChainBlock {
    const headerRaw = decodeRlp(headerBytes) as Uint8Array[]
    const edited = this.#edits ? editedStateRoot(this.db, hash) : undefined
    // the header readers resolve state through carries the edited root; headerRaw stays as sealed
    const fields = edited === undefined ? headerRaw : headerRaw.with(HEADER_STATE_ROOT, edited)
    const header = createBlockHeaderFromBytesArray(fields, {
      common: this.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    })
    const body = decodeRlp(bodyBytes) as unknown as [unknown[], Uint8Array[][], Uint8Array[][]?]
    const txOpts = { common: header.common }
    const raw = body[0] as (Uint8Array | Uint8Array[])[]
    const transactionBytes = raw.map((t) => (Array.isArray(t) ? RLP.encode(t) : t))
    // transactions the caller decoded under another fork than the block's are decoded again
    const hardfork = header.common.hardfork()
    const reused = decoded?.every((tx) => tx.common.hardfork() === hardfork) ? decoded : undefined
    // decoded on first use, one at a time: a receipt or a lookup by hash needs one of a block's
    // transactions, and building every ethereumjs object of a full block cost ~4 ms (issue 22)
    const one: (TypedTransaction | undefined)[] = reused === undefined ? new Array(raw.length) : [...reused]
    const decodeAt = (i: number): TypedTransaction => {
      let tx = one[i]
      if (tx === undefined) {
        tx = createTxFromBlockBodyData(raw[i] as Uint8Array, txOpts)
        one[i] = tx
      }
      return tx
    }
    let all: TypedTransaction[] | undefined = reused
    const block: ChainBlock = {
      hash,
      header,
      headerRaw,
      get transactions(): TypedTransaction[] {
        all ??= raw.map((_, i) => decodeAt(i))
        return all
      },
      transactionBytes,
      uncles: body[1],
      withdrawals: body[2],
      size: blockSize(headerBytes, bodyBytes),
      totalDifficulty: td,
    }
    lazyTransactions.set(block, decodeAt)
    return block
  }
}

/**
 * The RLP size of the whole block [header, txs, uncles, withdrawals?] from the stored header and
 * body (RLP([txs, uncles, withdrawals?])) without encoding it again: the body's items follow the
 * header in the block's list.
 */
function blockSize(headerBytes: Uint8Array, bodyBytes: Uint8Array): number {
  const first = bodyBytes[0] as number
  const bodyPrefix = first <= 0xf7 ? 1 : 1 + (first - 0xf7)
  const payload = headerBytes.length + bodyBytes.length - bodyPrefix
  let prefix = 1
  if (payload >= 56) for (let l = payload; l > 0; l = Math.floor(l / 256)) prefix++
  return prefix + payload
}

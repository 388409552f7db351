/**
 * Block import: executes a block received from outside (a `geth export` file, later a peer)
 * under its own fork rules on top of the head, verifies it, and commits it exactly as the
 * BlockBuilder commits our own blocks (one WriteBatch: block, receipts, indexes, state).
 *
 *   RLP ─▶ decode (header's fork by number/timestamp) ─▶ hash, parent link, header vs parent
 *       ─▶ runBlock (system calls, txs, withdrawals, PoW rewards, EIP-7685 requests; checks tx
 *          and uncle/withdrawal roots, gas used, bloom, receipts root, state root, requests hash)
 *       ─▶ stored receipts ─▶ ChainStore.commitBlock
 *
 * Seals are not verified (no PoW/PoS/IBFT seal checks): imported files are trusted for
 * consensus, not for execution. One consensus rule is checked when the caller gives
 * `checkConsensus` (IBFT with spans, issue 19: src/validators/importCheck.ts): a block's validators
 * must be its span's committee, and a span record must be a valid switch (the draw from our own
 * state at its reference block, consent by > 2/3 of that set's power); it runs before the block
 * executes, on the chain imported so far. A block that does not verify stops the import with an
 * ImportError naming the block and the mismatch; the blocks before it stay committed.
 *
 * On IBFT chains the base fee goes to `baseFeeRecipient` when the genesis names one (as the
 * BlockBuilder does): credited after the block's last transaction.
 */
import { type Block, createBlockFromBytesArray } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, bytesToBigInt, bytesToHex, createAccount, equalsBytes } from '@ethereumjs/util'
import type { TxActivity } from '../chain/explorerIndex.js'
import { ActivityCollector } from './activity.js'
import { runBlock, type RunTxResult, type TxReceipt, type VM } from '@ethereumjs/vm'
import { GAS_PER_BLOB } from '../chain/common.js'
import { blockHashOf, type Engine } from '../chain/hash.js'
import { encodeConsensusReceipt, type LogTuple, type StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { orderedTrieRoot } from '../chain/trieRoot.js'
import { createStateManager, type TrieStore } from '../state/index.js'
import { blockHashSource, newVM } from '../evm/vm.js'

export interface ImporterOptions {
  store: ChainStore
  /** The chain's Common (copied: the importer moves its own copy from fork to fork). */
  common: Common
  trie: TrieStore
  engine: Engine
  /** IBFT chains: where the base fee goes instead of being burned. */
  baseFeeRecipient: Uint8Array | undefined
  /** fsync each block commit. An import may batch-commit without it and sync at the end. */
  syncWrites: boolean
  /** A consensus check of block `number` (its extraData) on the chain so far; throws Error naming what is wrong. */
  checkConsensus?(number: bigint, extraData: Uint8Array): Promise<void>
}

/** A block that does not verify, or does not fit on the chain. */
export class ImportError extends Error {
  override name = 'ImportError'
  readonly number: bigint
  readonly hash: string
  constructor(number: bigint, hash: Uint8Array, reason: string, options?: { cause?: unknown }) {
    super(`block ${number} (${bytesToHex(hash)}): ${reason}`, options)
    this.number = number
    this.hash = bytesToHex(hash)
  }
}

export type ImportOutcome = { kind: 'imported'; block: ChainBlock } | { kind: 'known'; number: bigint }

type BodyItem = Uint8Array | Uint8Array[]
type DecodedBlock = [Uint8Array[], BodyItem[], Uint8Array[][], Uint8Array[][]?]

interface TxOutcome {
  tx: TypedTransaction
  result: RunTxResult
}

export class BlockImporter {
  readonly #opts: ImporterOptions
  readonly #common: Common
  #sm: MerkleStateManager
  #vm: VM
  /** Transaction results of the block being run (from the VM's afterTx event). */
  #outcomes: TxOutcome[] = []
  /** Each transaction's activity for the explorer indexes (when the store writes them). */
  #activity: TxActivity[] = []
  #collector: ActivityCollector | undefined
  #running: Block | undefined
  /** A failure of the base-fee credit inside the VM's afterTx event, rethrown after the block. */
  #creditError: unknown

  private constructor(opts: ImporterOptions, common: Common, sm: MerkleStateManager, vm: VM) {
    this.#opts = opts
    this.#common = common
    this.#sm = sm
    this.#vm = vm
  }

  static async create(opts: ImporterOptions): Promise<BlockImporter> {
    const common = opts.common.copy()
    const sm = createStateManager(opts.trie, common, opts.store.head.header.stateRoot)
    const importer = new BlockImporter(opts, common, sm, await BlockImporter.#newVM(opts, common, sm))
    importer.#listen()
    return importer
  }

  static #newVM(opts: ImporterOptions, common: Common, sm: MerkleStateManager): Promise<VM> {
    // biome-ignore lint/suspicious/noExplicitAny: the EVM only calls getBlock/shallowCopy
    return newVM({ common, stateManager: sm, blockchain: blockHashSource(opts.store) as any, setHardfork: true })
  }

  #listen(): void {
    this.#collector?.detach()
    this.#collector = this.#opts.store.wantsActivity ? new ActivityCollector() : undefined
    if (this.#collector !== undefined) {
      const collector = this.#collector
      collector.attach(this.#vm.evm)
      this.#vm.events.on('beforeTx', (_event, resolve) => {
        collector.begin()
        resolve?.()
      })
    }
    this.#vm.events.on('afterTx', (event, resolve) => {
      if (this.#collector !== undefined) this.#activity.push(this.#collector.end(event as unknown as RunTxResult))
      this.#afterTx(event as unknown as RunTxResult & { transaction: TypedTransaction })
        .then(() => resolve?.())
        .catch((err) => {
          this.#creditError = err
          resolve?.()
        })
    })
  }

  async #afterTx(event: RunTxResult & { transaction: TypedTransaction }): Promise<void> {
    this.#outcomes.push({ tx: event.transaction, result: event })
    const block = this.#running
    const recipient = this.#opts.baseFeeRecipient
    if (block === undefined || recipient === undefined || this.#opts.engine !== 'ibft') return
    const baseFee = block.header.baseFeePerGas
    if (baseFee === undefined || this.#outcomes.length !== block.transactions.length) return
    const gasUsed = this.#outcomes.reduce((sum, o) => sum + o.result.totalGasSpent, 0n)
    if (gasUsed === 0n) return
    const address = new Address(recipient)
    const account = (await this.#sm.getAccount(address)) ?? createAccount({})
    account.balance += baseFee * gasUsed
    await this.#sm.putAccount(address, account)
  }

  async #reset(): Promise<void> {
    this.#opts.trie.discard()
    this.#sm = createStateManager(this.#opts.trie, this.#common, this.#opts.store.head.header.stateRoot)
    this.#vm = await BlockImporter.#newVM(this.#opts, this.#common, this.#sm)
    this.#listen()
  }

  /** Verifies, executes and commits one RLP-encoded block on top of the head. */
  async import(rlp: Uint8Array): Promise<ImportOutcome> {
    try {
      return await this.#import(rlp)
    } catch (err) {
      await this.#reset()
      throw err
    } finally {
      this.#outcomes = []
      this.#activity = []
      this.#running = undefined
      this.#creditError = undefined
    }
  }

  async #import(rlp: Uint8Array): Promise<ImportOutcome> {
    const { store, engine } = this.#opts
    const decoded = RLP.decode(rlp) as unknown as DecodedBlock
    if (!Array.isArray(decoded) || !Array.isArray(decoded[0]) || decoded[0].length < 15) {
      throw new Error('not an RLP block [header, transactions, uncles, ...]')
    }
    const headerRaw = decoded[0]
    const hash = blockHashOf(headerRaw, engine)
    const number = bytesToBigInt(headerRaw[8] as Uint8Array)
    const head = store.head
    if (number <= head.header.number) {
      const known = store.getHashByNumber(number)
      if (known !== undefined && equalsBytes(known, hash)) return { kind: 'known', number }
      throw new ImportError(
        number,
        hash,
        `conflicts with the stored chain (canonical ${known ? bytesToHex(known) : 'none'}; reorgs are not imported)`,
      )
    }
    if (number !== head.header.number + 1n) {
      throw new ImportError(number, hash, `missing parent: the chain head is block ${head.header.number}`)
    }
    if (!equalsBytes(headerRaw[0] as Uint8Array, head.hash)) {
      throw new ImportError(number, hash, mismatch('parent hash', headerRaw[0] as Uint8Array, head.hash))
    }
    let block: Block
    try {
      block = createBlockFromBytesArray(decoded as never, {
        common: this.#common,
        setHardfork: true,
        skipConsensusFormatValidation: engine === 'ibft',
      })
    } catch (err) {
      throw new ImportError(number, hash, `malformed: ${firstLine(err)}`, { cause: err })
    }
    verifyHeader(block, head, engine, (reason) => new ImportError(number, hash, reason))
    if (this.#opts.checkConsensus !== undefined) {
      try {
        await this.#opts.checkConsensus(number, block.header.extraData)
      } catch (err) {
        throw new ImportError(number, hash, firstLine(err), { cause: err })
      }
    }

    this.#running = block
    try {
      await runBlock(this.#vm, { block, skipHeaderValidation: true, skipHardForkValidation: true })
    } catch (err) {
      throw new ImportError(number, hash, await this.#explain(block, err), { cause: err })
    }
    if (this.#creditError !== undefined) throw this.#creditError

    const receipts = this.#storedReceipts(block)
    const committed = await store.commitBlock(
      {
        hash,
        headerRaw,
        transactionBytes: decoded[1].map((t) => (Array.isArray(t) ? RLP.encode(t) : t)),
        uncles: decoded[2],
        withdrawals: decoded[3],
        receipts,
        totalDifficulty: head.totalDifficulty + block.header.difficulty,
        activity: this.#collector === undefined ? undefined : this.#activity,
      },
      this.#opts.trie,
      this.#opts.syncWrites,
    )
    return { kind: 'imported', block: committed }
  }

  /** What ethereumjs refused, with have/want from the transaction results seen so far. */
  async #explain(block: Block, err: unknown): Promise<string> {
    const msg = firstLine(err)
    const h = block.header
    const gasUsed = this.#outcomes.at(-1)?.result.receipt.cumulativeBlockGasUsed ?? 0n
    if (/invalid gasUsed/.test(msg)) return `gas used mismatch: have ${gasUsed}, want ${h.gasUsed}`
    if (/invalid receiptTrie/.test(msg)) {
      const items = this.#outcomes.map((o, i) =>
        encodeConsensusReceipt(this.#stored(block, o, i), o.result.receipt.bitvector),
      )
      return (
        mismatch('receipts root', await orderedTrieRoot(items), h.receiptTrie) +
        ` (gas used ${gasUsed}, want ${h.gasUsed})`
      )
    }
    if (/invalid block stateRoot/.test(msg)) {
      const got = /got: (0x[0-9a-f]+)/.exec(msg)?.[1] ?? '?'
      return `state root mismatch: have ${got}, want ${bytesToHex(h.stateRoot)}`
    }
    if (/invalid bloom/.test(msg)) return 'logs bloom mismatch'
    if (/invalid requestsHash/.test(msg))
      return `requests hash mismatch: want ${bytesToHex(h.requestsHash ?? new Uint8Array())}`
    if (/invalid transactions trie/i.test(msg))
      return `transactions root mismatch: want ${bytesToHex(h.transactionsTrie)}`
    return msg.replace(/\s*\(block number=.*$/, '')
  }

  #storedReceipts(block: Block): StoredReceipt[] {
    if (this.#outcomes.length !== block.transactions.length) {
      throw new Error(`ran ${this.#outcomes.length} of ${block.transactions.length} transactions`)
    }
    return this.#outcomes.map((o, i) => this.#stored(block, o, i))
  }

  #stored(block: Block, o: TxOutcome, index: number): StoredReceipt {
    const { tx, result } = o
    const r = result.receipt as TxReceipt & { status?: 0 | 1; stateRoot?: Uint8Array }
    const prev = index === 0 ? 0n : (this.#outcomes[index - 1]?.result.receipt.cumulativeBlockGasUsed ?? 0n)
    const blobs = BigInt((tx as { blobVersionedHashes?: unknown[] }).blobVersionedHashes?.length ?? 0)
    return {
      type: tx.type,
      status: r.stateRoot !== undefined ? undefined : (r.status ?? 0),
      root: r.stateRoot,
      cumulativeGasUsed: r.cumulativeBlockGasUsed,
      gasUsed: r.cumulativeBlockGasUsed - prev,
      logs: r.logs as LogTuple[],
      from: tx.getSenderAddress().bytes,
      contractAddress: result.createdAddress?.bytes,
      effectiveGasPrice: effectivePrice(tx, block.header.baseFeePerGas),
      blobGasUsed: blobs * BigInt(GAS_PER_BLOB),
      blobGasPrice: blobs > 0n ? block.header.getBlobGasPrice() : 0n,
    }
  }
}

/** The price per gas a transaction paid in a block with `baseFee`. */
export function effectivePrice(tx: TypedTransaction, baseFee: bigint | undefined): bigint {
  const t = tx as { gasPrice?: bigint; maxFeePerGas?: bigint; maxPriorityFeePerGas?: bigint }
  if (t.maxFeePerGas === undefined) return t.gasPrice ?? 0n
  if (baseFee === undefined) return t.maxFeePerGas
  const withTip = baseFee + (t.maxPriorityFeePerGas ?? 0n)
  return withTip < t.maxFeePerGas ? withTip : t.maxFeePerGas
}

/** Header rules against the parent that runBlock leaves to a blockchain object. */
function verifyHeader(block: Block, parent: ChainBlock, engine: Engine, fail: (reason: string) => Error): void {
  const h = block.header
  const p = parent.header
  if (h.timestamp <= p.timestamp) throw fail(`timestamp ${h.timestamp} not after the parent's ${p.timestamp}`)
  if (engine === 'ethereum') {
    try {
      h.validateGasLimit(p)
    } catch (err) {
      throw fail(firstLine(err))
    }
    if (h.common.consensusType() === 'pow') {
      const want = h.ethashCanonicalDifficulty(p)
      if (h.difficulty !== want) throw fail(`difficulty mismatch: have ${h.difficulty}, want ${want}`)
    }
  }
  if (h.common.isActivatedEIP(1559) && p.common.isActivatedEIP(1559)) {
    const want = p.calcNextBaseFee()
    if (h.baseFeePerGas !== want) throw fail(`base fee mismatch: have ${h.baseFeePerGas}, want ${want}`)
  }
  if (h.common.isActivatedEIP(4844)) {
    const want = p.common.isActivatedEIP(4844) ? p.calcNextExcessBlobGas(h.common) : 0n
    if (h.excessBlobGas !== want) throw fail(`excess blob gas mismatch: have ${h.excessBlobGas}, want ${want}`)
  }
}

function mismatch(what: string, have: Uint8Array, want: Uint8Array): string {
  return `${what} mismatch: have ${bytesToHex(have)}, want ${bytesToHex(want)}`
}

function firstLine(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.split('\n')[0] as string
}

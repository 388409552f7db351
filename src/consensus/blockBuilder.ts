/**
 * Block assembly for a producing validator: the block executor of src/block/execute.ts (ethereumjs'
 * `buildBlock` is quadratic in the number of transactions), then roots, the IBFT seal and
 * one atomic commit of block + receipts + state.
 *
 *   candidates ─▶ pre-block system calls ─▶ each transaction: a plain transfer directly,
 *   the rest through runMessage.ts (skip what does not fit, drop what is invalid) ─▶ base fee to its recipient ─▶ state root ─▶ tx / receipt roots, bloom ─▶
 *   header ─▶ seal ─▶ ChainStore.commitBlock (one WriteBatch, fsynced)
 *
 * The builder keeps one state manager across blocks (its caches stay warm); after a failed
 * build it is rebuilt from the head's state root and the pending trie writes are discarded.
 * `propose` (multi-validator IBFT) runs the same assembly (src/block/execute.ts) on a fresh state
 * overlay and returns the block proposer-sealed and uncommitted: it is committed once decided.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { VM } from '@ethereumjs/vm'
import type { TxActivity } from '../chain/explorerIndex.js'
import type { StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import {
  attachSeals,
  decodeExtra,
  encodeExtra,
  ibftBlockHash,
  type IbftExtra,
  sealHeader,
  signProposerSeal,
} from './ibft/index.js'
import type { SpanRecord } from '../chain/ibft/span.js'
import { createStateManager, TrieStore, type WriterStateManager } from '../state/index.js'
import type { PoolTx } from '../txpool/index.js'
import { executeTransactions, finishHeader, nextHeaderFields } from '../block/execute.js'
import { createChainVM } from '../evm/vm.js'

export interface BuilderOptions {
  store: ChainStore
  common: Common
  trie: TrieStore
  /** Validator key that seals the blocks. */
  privateKey: Uint8Array
  /** `miner` of the blocks: the fee recipient. */
  coinbase: Uint8Array
  /** When set, the EIP-1559 base fee is credited to this address instead of burned. */
  baseFeeRecipient: Uint8Array | undefined
  /** fsync every block commit (true in production; crash safety depends on it). */
  syncWrites: boolean
  /** Plain value transfers without the EVM (transfers.ts); default true, false to compare (bench/block-exec.ts). */
  fastTransfers?: boolean
  /** Every SSTORE through the storage trie instead of the write cache (src/state/cachedStorage.ts); default false, true to compare. */
  storageThroughTrie?: boolean
  /** Span committees (issue 19): the header's validators and span record; absent: the parent's validators, no record. */
  spans?: BuilderSpans
}

/** What the builder asks when spans are on. */
export interface BuilderSpans {
  /** Signers of the committee of block `height` (its header's `validators`). */
  validatorsAt(height: bigint): Uint8Array[] | undefined
  /** The span record block `height` carries (the last block of a span with consent collected), if any. */
  recordFor(height: bigint): SpanRecord | undefined
}

/**
 * A block executed on top of the head but not committed: its pending state writes sit in `trie`
 * until ChainStore.commitBlock flushes them. `headerRaw` carries the proposer seal (and, once
 * decided, the committed seals); `hash` is the IBFT hash, the same either way.
 */
export interface ExecutedBlock {
  hash: Uint8Array
  number: bigint
  parentHash: Uint8Array
  headerRaw: Uint8Array[]
  transactionBytes: Uint8Array[]
  withdrawals: Uint8Array[][] | undefined
  receipts: StoredReceipt[]
  trie: TrieStore
  /** Each transaction's activity for the explorer indexes, when the store writes them. */
  activity?: TxActivity[]
}

/** What BlockBuilder.propose returns: the executed block and what happened to the candidates. */
export interface ProposedBlock extends ExecutedBlock {
  included: PoolTx[]
  dropped: { ptx: PoolTx; reason: string }[]
}

export interface BuildResult {
  block: ChainBlock
  included: PoolTx[]
  /** Transactions found invalid while building (to be removed from the pool). */
  dropped: { ptx: PoolTx; reason: string }[]
}

export class BlockBuilder {
  readonly #opts: BuilderOptions
  #sm: WriterStateManager
  #vm: VM

  private constructor(opts: BuilderOptions, sm: WriterStateManager, vm: VM) {
    this.#opts = opts
    this.#sm = sm
    this.#vm = vm
  }

  static async create(opts: BuilderOptions): Promise<BlockBuilder> {
    const sm = createStateManager(opts.trie, opts.common, opts.store.head.header.stateRoot, opts)
    return new BlockBuilder(opts, sm, await createChainVM(opts.store, opts.common, sm))
  }

  async #reset(): Promise<void> {
    this.#opts.trie.discard()
    this.#sm = createStateManager(
      this.#opts.trie,
      this.#opts.common,
      this.#opts.store.head.header.stateRoot,
      this.#opts,
    )
    this.#vm = await createChainVM(this.#opts.store, this.#opts.common, this.#sm)
  }

  /** Reads the head's state again (it was edited in place: ChainStore.commitStateEdit); no build may be running. */
  resync(): Promise<void> {
    return this.#reset()
  }

  /** Builds, seals and commits the next block on top of the current head. */
  async build(candidates: PoolTx[], timestamp: bigint): Promise<BuildResult> {
    try {
      return await this.#build(candidates, timestamp)
    } catch (err) {
      await this.#reset()
      throw err
    }
  }

  async #build(candidates: PoolTx[], timestamp: bigint): Promise<BuildResult> {
    const { store, common } = this.#opts
    const parent = store.head
    const { header, transactionBytes, executed } = await this.#assemble(this.#vm, this.#sm, candidates, timestamp)
    const sealedRaw = sealHeader(header.raw(), this.#opts.privateKey, 0n)
    const hash = ibftBlockHash(sealedRaw)
    const block = await store.commitBlock(
      {
        hash,
        headerRaw: sealedRaw,
        transactionBytes,
        transactions: executed.included.map((p) => p.tx),
        withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
        receipts: executed.receipts,
        totalDifficulty: parent.totalDifficulty + 1n,
        activity: executed.activity,
      },
      this.#opts.trie,
      this.#opts.syncWrites,
    )
    // the accounts this block changed, as committed: readers at the new head find them cached
    this.#sm.seedReadCache(store.db, block.header.stateRoot)
    return { block, included: executed.included, dropped: executed.dropped }
  }

  /** Header fields, body execution and roots of the next block on `vm`/`sm` (src/block/execute.ts). */
  async #assemble(vm: VM, sm: MerkleStateManager, candidates: PoolTx[], timestamp: bigint) {
    const { store, common } = this.#opts
    const parent = store.head
    const parentExtra = decodeExtra(parent.header.extraData)
    const height = parent.header.number + 1n
    const extra: IbftExtra = {
      vanity: parentExtra.vanity,
      validators: this.#opts.spans?.validatorsAt(height) ?? parentExtra.validators,
      proposerSeal: new Uint8Array(0),
      committedSeals: [],
      parentCommittedSeals: parentExtra.committedSeals,
      round: 0n,
    }
    const record = this.#opts.spans?.recordFor(height)
    if (record !== undefined) extra.span = record
    const extraData = encodeExtra(extra)
    const choice = { coinbase: this.#opts.coinbase, timestamp, extraData, gasLimit: parent.header.gasLimit }
    const fields = nextHeaderFields(parent, common, choice)
    const executed = await executeTransactions(vm, sm, common, fields, candidates, {
      strict: false,
      baseFeeRecipient: this.#opts.baseFeeRecipient,
      fastTransfers: this.#opts.fastTransfers,
      activity: store.wantsActivity,
    })
    const { header, transactionBytes } = await finishHeader(sm, common, fields, executed)
    return { header, transactionBytes, executed }
  }

  /**
   * propose builds the next block for a multi-validator IBFT round without committing it: on a
   * fresh state overlay (the proposal may never be decided), signed with the proposer seal only.
   * The caller commits it with `ChainStore.commitBlock(…, proposal.trie, …)` once decided.
   */
  async propose(candidates: PoolTx[], timestamp: bigint): Promise<ProposedBlock> {
    const { store, common } = this.#opts
    const parent = store.head
    const trie = new TrieStore(store.db)
    const sm = createStateManager(trie, common, parent.header.stateRoot, this.#opts)
    const vm = await createChainVM(store, common, sm)
    const { header, transactionBytes, executed } = await this.#assemble(vm, sm, candidates, timestamp)
    const raw = header.raw()
    const hash = ibftBlockHash(raw)
    const headerRaw = attachSeals(raw, {
      proposerSeal: signProposerSeal(hash, this.#opts.privateKey),
      committedSeals: [],
      round: 0n,
    })
    return {
      hash,
      number: parent.header.number + 1n,
      parentHash: parent.hash,
      headerRaw,
      transactionBytes,
      withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
      receipts: executed.receipts,
      trie,
      activity: executed.activity,
      included: executed.included,
      dropped: executed.dropped,
    }
  }
}

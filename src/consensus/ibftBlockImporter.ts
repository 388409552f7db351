/**
 * IbftBlockImporter: the one writer of IBFT blocks on top of the head — our decided proposals and
 * blocks synced from peers — one at a time, each executed (ibftImport.ts) on the state the block
 * before it left when that is still the head's, then committed in one batch.
 */
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, equalsBytes } from '@ethereumjs/util'
import { attachSeals, decodeExtra } from './ibft/index.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { PoolTx } from '../txpool/index.js'
import type { ExecutedBlock, ProposedBlock } from './blockBuilder.js'
import { type ExecutionState, executeIbftBlockOn, type IbftImportOptions, type WireBlock } from './ibftImport.js'

/** A block the importer committed, and how it got there. */
export interface CommittedBlock {
  block: ChainBlock
  source: 'consensus' | 'sync'
  /** Pool transactions found invalid while we built this block (our own proposal only). */
  dropped: PoolTx[]
}

/** Serializes the commits of IBFT blocks (our decisions and synced ones) on top of the head. */
export class IbftBlockImporter {
  readonly #opts: IbftImportOptions & { syncWrites: boolean; onCommitted(c: CommittedBlock): void }
  #queue: Promise<unknown> = Promise.resolve()
  /** The state the last synced or decided block was executed on, for the next one (valid while `headHash` is the head). */
  #warm: { headHash: Uint8Array; state: ExecutionState } | undefined
  /** The state each verified proposal was executed on: the decided one's becomes #warm. */
  readonly #proposalStates = new WeakMap<ExecutedBlock, ExecutionState>()

  constructor(opts: IbftImportOptions & { syncWrites: boolean; onCommitted(c: CommittedBlock): void }) {
    this.#opts = opts
  }

  get store(): ChainStore {
    return this.#opts.store
  }

  /**
   * Executes a proposal for the next block (not committed), on the state the head block was
   * executed on when we have it (#warm: taken, so a second proposal of the height starts afresh);
   * if this proposal is decided, its state is kept for the next one.
   */
  async verifyProposal(bytes: Uint8Array, proposer: string | undefined): Promise<ExecutedBlock> {
    const nowSeconds = BigInt(Math.floor(Date.now() / 1000))
    const head = this.#opts.store.head
    const warm = this.#warmFor(head.hash)
    if (warm !== undefined) this.#warm = undefined
    let ran: { executed: ExecutedBlock; state: ExecutionState }
    try {
      ran = await executeIbftBlockOn(this.#opts, head, bytes, { kind: 'proposal', proposer, nowSeconds }, warm)
    } catch (err) {
      warm?.trie.discard() // it may hold part of this block
      throw err
    }
    this.#proposalStates.set(ran.executed, ran.state)
    return ran.executed
  }

  /** Commits a decided block with its committed seals and round; false when the head moved past it already. */
  commitDecided(executed: ExecutedBlock, seals: { committedSeals: Uint8Array[]; round: bigint }): Promise<boolean> {
    return this.#serial(async () => {
      if (!this.#extendsHead(executed)) return false
      const proposerSeal = decodeExtra(executed.headerRaw[12] as Uint8Array).proposerSeal
      const headerRaw = attachSeals(executed.headerRaw, {
        proposerSeal,
        committedSeals: seals.committedSeals,
        round: seals.round,
      })
      const dropped = 'dropped' in executed ? (executed as ProposedBlock).dropped.map((d) => d.ptx) : []
      const block = await this.#commit({ ...executed, headerRaw }, 'consensus', dropped)
      const state = this.#proposalStates.get(executed)
      if (state !== undefined) {
        // as after a synced block: readers at the new head find the accounts it changed cached
        state.sm.seedReadCache(this.#opts.store.db, block.header.stateRoot)
        this.#warm = { headHash: block.hash, state }
      }
      return true
    })
  }

  /**
   * Verifies (seals included), executes and commits a decided block from a peer; 'known' when we
   * have it. Consecutive imports execute on the state the previous one left (#warm) while the head
   * is still that block. `durable: false` skips the fsync of this commit (block sync: a range's
   * blocks are fsynced by its last, durable one; a crash before it loses only blocks a peer serves
   * again, never the order of the writes); default: the importer's syncWrites.
   */
  importSealed(bytes: Uint8Array, opts: { durable?: boolean } = {}): Promise<'imported' | 'known'> {
    return this.#serial(async () => {
      const head = this.#opts.store.head
      const header = (RLP.decode(bytes) as unknown as WireBlock)[0]
      const number = bytesToBigInt(header?.[8] ?? new Uint8Array(0))
      if (number <= head.header.number) return 'known'
      const warm = this.#warmFor(head.hash)
      this.#warm = undefined
      let ran: { executed: ExecutedBlock; state: ExecutionState } | undefined
      try {
        ran = await executeIbftBlockOn(this.#opts, head, bytes, { kind: 'sealed' }, warm)
        const block = await this.#commit(ran.executed, 'sync', [], opts.durable ?? this.#opts.syncWrites)
        // the accounts this block changed, as committed: readers at the new head find them cached
        ran.state.sm.seedReadCache(this.#opts.store.db, block.header.stateRoot)
        this.#warm = { headHash: block.hash, state: ran.state }
      } catch (err) {
        // the state may hold part of this block: the next import starts afresh
        warm?.trie.discard()
        ran?.state.trie.discard()
        throw err
      }
      return 'imported'
    })
  }

  /** The state the block `headHash` was executed on, when we kept it. */
  #warmFor(headHash: Uint8Array): ExecutionState | undefined {
    return this.#warm !== undefined && equalsBytes(this.#warm.headHash, headHash) ? this.#warm.state : undefined
  }

  #extendsHead(b: ExecutedBlock): boolean {
    const head = this.#opts.store.head
    return b.number === head.header.number + 1n && equalsBytes(b.parentHash, head.hash)
  }

  async #commit(
    b: ExecutedBlock,
    source: CommittedBlock['source'],
    dropped: PoolTx[],
    durable = this.#opts.syncWrites,
  ): Promise<ChainBlock> {
    const { store } = this.#opts
    const block = await store.commitBlock(
      {
        hash: b.hash,
        headerRaw: b.headerRaw,
        transactionBytes: b.transactionBytes,
        withdrawals: b.withdrawals,
        receipts: b.receipts,
        totalDifficulty: store.head.totalDifficulty + 1n,
        activity: b.activity,
      },
      b.trie,
      durable,
    )
    this.#opts.onCommitted({ block, source, dropped })
    return block
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn)
    this.#queue = run.catch(() => undefined)
    return run
  }
}

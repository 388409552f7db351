/**
 * IbftValidator: a validator's side of multi-validator IBFT, the IbftBackend of the engine
 * (src/consensus/ibft/engine.ts) over the node's chain, pool and network.
 *
 *   p2p IBFT topic ─▶ engine.receive ──▶ verifyProposal ─▶ IbftBlockImporter.verifyProposal (execute on a
 *                          │                               fresh overlay; kept by hash for the decision)
 *                          ├──────────▶ buildProposal ─▶ BlockBuilder.propose(pool.candidates) (kept too)
 *                          ├──────────▶ finalize ─▶ IbftBlockImporter.commitDecided (seals + round attached)
 *                          └──────────▶ broadcast ─▶ p2p IBFT topic
 *   any block inserted (ours, synced) ─▶ onNewHead ─▶ engine.onNewHead (cancels that height's sequence)
 */
import { bytesToHex } from '@ethereumjs/util'

import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { BlockBuilder, ExecutedBlock } from './blockBuilder.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import type { IbftBlockImporter } from './ibftBlockImporter.js'
import { IbftBlockError } from './ibftImport.js'
import type { Logger } from '../log.js'
import type { IbftStateStore } from './ibft/persist.js'
import type { TxPool } from '../txpool/index.js'
import type { SpanCommittees } from '../validators/index.js'
import {
  decodeExtra,
  type Finalized,
  HeightContext,
  type IbftBackend,
  IbftEngine,
  proposalDigest,
  recoverProposerSeal,
  type Signer,
} from './ibft/index.js'

/** Executed blocks kept for the height being decided (proposals seen in its rounds). */
export const IBFT_EXECUTED_BLOCKS_KEPT = 16

export interface IbftValidatorOptions {
  store: ChainStore
  builder: BlockBuilder
  importer: IbftBlockImporter
  pool: TxPool
  signer: Signer
  blockTimeMs: number
  roundTimeoutBaseMs: number
  /** Sends a consensus message to the other validators. */
  broadcast(wire: Uint8Array): void
  log: Logger
  /** Where the engine's votes survive a restart (`<datadir>/ibft-state.rlp`); none in unit tests. */
  stateStore?: IbftStateStore
  /** Span committees (issue 19): each height is decided by its span's committee, weighted; absent: spans off. */
  committees?: SpanCommittees
}

export class IbftValidator implements IbftBackend {
  readonly engine: IbftEngine
  readonly #o: IbftValidatorOptions
  readonly #executed = new Map<string, ExecutedBlock>()

  constructor(opts: IbftValidatorOptions) {
    this.#o = opts
    this.engine = new IbftEngine({
      signer: opts.signer,
      backend: this,
      roundTimeoutBaseMs: opts.roundTimeoutBaseMs,
      blockTimeMs: opts.blockTimeMs,
      log: opts.log,
      stateStore: opts.stateStore,
    })
  }

  /** Starts deciding the block after the current head. */
  start(): void {
    this.engine.start(this.#o.store.head.header.number + 1n)
  }

  stop(): void {
    this.engine.stop()
  }

  /** A block was inserted (decided here or synced): drop what was kept for its height, move on. */
  onNewHead(block: ChainBlock): void {
    for (const [key, b] of this.#executed) if (b.number <= block.header.number) this.#executed.delete(key)
    this.engine.onNewHead(block.header.number)
  }

  // IbftBackend -------------------------------------------------------------------------------

  context(height: bigint): HeightContext | undefined {
    const parent = this.#o.store.getBlockByNumber(height - 1n)
    if (parent === undefined) return undefined
    const extra = decodeExtra(parent.header.extraData)
    const lastProposer = parent.header.number === 0n ? null : recoverProposerSeal(parent.hash, extra.proposerSeal)
    const committees = this.#o.committees
    if (committees === undefined) return new HeightContext(height, extra.validators, lastProposer)
    const committee = committees.committeeAt(height)
    if (committee === undefined) return undefined
    return new HeightContext(
      height,
      committee.map((m) => m.signer),
      lastProposer,
      committee.map((m) => m.power),
    )
  }

  proposeAtMs(height: bigint): number {
    const parent = this.#o.store.getBlockByNumber(height - 1n)
    return parent === undefined ? 0 : Number(parent.header.timestamp) * 1000 + this.#o.blockTimeMs
  }

  async buildProposal(height: bigint): Promise<Uint8Array | undefined> {
    const { store, pool, builder } = this.#o
    const head = store.head
    if (head.header.number + 1n !== height) return undefined
    const baseFee = head.header.common.isActivatedEIP(1559) ? head.header.calcNextBaseFee() : 0n
    const now = BigInt(Math.floor(Date.now() / 1000))
    const timestamp = now > head.header.timestamp ? now : head.header.timestamp + 1n
    const proposal = await builder.propose(pool.candidates(baseFee), timestamp)
    if (store.head.header.number + 1n !== height) return undefined
    this.#keep(proposal)
    return encodeWireBlock(proposal)
  }

  async verifyProposal(
    height: bigint,
    _round: bigint,
    bytes: Uint8Array,
    proposer: string | undefined,
  ): Promise<boolean> {
    if (this.#o.store.head.header.number + 1n !== height) return false
    const known = this.#executed.get(bytesToHex(proposalDigest(bytes)))
    if (known !== undefined) return proposer === undefined || proposerOf(known) === proposer
    try {
      this.#keep(await this.#o.importer.verifyProposal(bytes, proposer))
      return true
    } catch (err) {
      if (!(err instanceof IbftBlockError)) throw err
      this.#o.log.warn(`ibft: ${err.message}`)
      return false
    }
  }

  async finalize(decided: Finalized): Promise<void> {
    const executed =
      this.#executed.get(bytesToHex(decided.digest)) ??
      (await this.#o.importer.verifyProposal(decided.proposal, undefined))
    await this.#o.importer.commitDecided(executed, { committedSeals: decided.committedSeals, round: decided.round })
  }

  broadcast(wire: Uint8Array): void {
    this.#o.broadcast(wire)
  }

  #keep(block: ExecutedBlock): void {
    if (this.#executed.size >= IBFT_EXECUTED_BLOCKS_KEPT) {
      const oldest = this.#executed.keys().next().value
      if (oldest !== undefined) this.#executed.delete(oldest)
    }
    this.#executed.set(bytesToHex(block.hash), block)
  }
}

/** Lowercase hex address that made an executed block's proposer seal. */
function proposerOf(block: ExecutedBlock): string {
  const extra = decodeExtra(block.headerRaw[12] as Uint8Array)
  return bytesToHex(recoverProposerSeal(block.hash, extra.proposerSeal))
}

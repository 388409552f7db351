/**
 * ChainEvents: what filters and subscriptions listen to. The node emits a block once it is the
 * head (the sealer's onBlock) and a transaction once the pool makes it pending. A block's logs
 * are read and placed (ChainLog) at most once, and only when some listener asks for them.
 */
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { Logger } from '../log.js'
import type { PoolTx } from '../txpool/index.js'
import type { ChainLog } from './chainLog.js'
import { blockLogs } from './match.js'

export interface NewBlockEvent {
  block: ChainBlock
  /** The block's logs with their positions (read on first call, then shared). */
  logs(): readonly ChainLog[]
}

export type BlockListener = (event: NewBlockEvent) => void
export type PendingTxListener = (tx: PoolTx) => void

class BlockEvent implements NewBlockEvent {
  readonly block: ChainBlock
  readonly #store: ChainStore
  #logs: ChainLog[] | undefined
  constructor(block: ChainBlock, store: ChainStore) {
    this.block = block
    this.#store = store
  }
  logs(): readonly ChainLog[] {
    if (this.#logs === undefined) {
      const hasLogs = this.block.header.logsBloom.some((b) => b !== 0)
      this.#logs = hasLogs ? blockLogs(this.block, this.#store.getReceipts(this.block.hash) ?? []) : []
    }
    return this.#logs
  }
}

export class ChainEvents {
  readonly #store: ChainStore
  readonly #log: Logger | undefined
  readonly #blockListeners = new Set<BlockListener>()
  readonly #txListeners = new Set<PendingTxListener>()

  constructor(store: ChainStore, log?: Logger) {
    this.#store = store
    this.#log = log
  }

  /** Registers a listener; returns its removal. */
  onBlock(listener: BlockListener): () => void {
    this.#blockListeners.add(listener)
    return () => this.#blockListeners.delete(listener)
  }

  onPendingTx(listener: PendingTxListener): () => void {
    this.#txListeners.add(listener)
    return () => this.#txListeners.delete(listener)
  }

  emitBlock(block: ChainBlock): void {
    if (this.#blockListeners.size === 0) return
    const event = new BlockEvent(block, this.#store)
    for (const l of this.#blockListeners) this.#call(l, event)
  }

  emitPendingTx(tx: PoolTx): void {
    for (const l of this.#txListeners) this.#call(l, tx)
  }

  #call<T>(listener: (v: T) => void, value: T): void {
    try {
      listener(value)
    } catch (err) {
      this.#log?.error(`event listener failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`)
    }
  }
}

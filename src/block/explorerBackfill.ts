/**
 * ExplorerBackfill: indexes the blocks a datadir holds from before the explorer indexes were on
 * (src/chain/explorerIndex.ts), while the node runs. Newest blocks first — recent history is what
 * people look at — one block per turn of the event loop:
 *
 *   start: explorer-head ≠ the chain's head (never indexed, or indexed with gaps while the indexes
 *          were off), or an index is on that the indexed blocks lack (meta/explorer-indexes)
 *          ─▶ explorer-head = head, explorer-from = head + 1: blocks from now on are indexed live
 *          with their commit, every block below is indexed again
 *   turn:  block explorer-from − 1 re-executed on its parent's state with the ActivityCollector
 *          (only when an index needs call frames) by the `replay` the owner gives — in the node a
 *          trace-lane worker task, so no EVM runs on the main thread — then its entries and
 *          explorer-from − 1 in one batch
 *   done:  explorer-from = 0
 *
 * What holds: the backfill only ever writes entries of blocks below explorer-from, the live
 * commits only above it, so they never meet; a restart resumes at explorer-from. The main thread
 * only reads the block and writes its batch, one block per event-loop turn; a replay the workers
 * cannot take now (`replay` answers BUSY) is asked again EXPLORER_BACKFILL_RETRY_MS later, so
 * clients' traces keep the lane first. Progress is logged every EXPLORER_BACKFILL_LOG_MS.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import {
  type ExplorerIndexes,
  gainsIndexes,
  needsActivity,
  putIndexesMask,
  putIndexEntries,
  putIndexedFrom,
  putIndexedHead,
  type TxActivity,
} from '../chain/explorerIndex.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { runTransaction } from '../evm/runMessage.js'
import { applyPreBlockSystemCalls } from '../evm/systemCalls.js'
import { createChainVM, envBlock } from '../evm/vm.js'
import type { Logger } from '../log.js'
import { stateAt } from '../state/index.js'
import { ActivityCollector } from './activity.js'

/** How often the backfill reports its progress, ms. */
export const EXPLORER_BACKFILL_LOG_MS = 10_000
/** How long the backfill waits before asking again for a replay the workers were too busy to take, ms. */
export const EXPLORER_BACKFILL_RETRY_MS = 1000

/** What a replay answers when its workers cannot take it now (their queue is full): ask again later. */
export const BUSY = Symbol('busy')
/** Re-executes a stored block for its transactions' activity; BUSY when it cannot be done now. */
export type ActivityReplay = (block: ChainBlock) => Promise<TxActivity[] | typeof BUSY>

/** A replay on the calling thread (generators and tests; the node replays on a worker). */
export function replayHere(store: ChainStore): ActivityReplay {
  return (block) => replayActivity(store, block)
}

/** The activity of each transaction of `block`, replayed on its parent's state (what the live commit records). */
export async function replayActivity(store: ChainStore, block: ChainBlock): Promise<TxActivity[]> {
  const parent = store.getBlockByHash(block.header.parentHash)
  if (parent === undefined) throw new Error(`block ${block.header.number}: parent not stored`)
  const header = block.header
  const common = header.common.copy()
  const state = stateAt(store.db, common, parent.header.stateRoot)
  const vm = await createChainVM(store, common, state)
  await applyPreBlockSystemCalls(
    state,
    common,
    header.number,
    header.timestamp,
    header.parentHash,
    header.parentBeaconBlockRoot,
  )
  const env = envBlock(header)
  const collector = new ActivityCollector()
  collector.attach(vm.evm)
  const out: TxActivity[] = []
  try {
    let gasUsed = 0n
    for (const tx of block.transactions as TypedTransaction[]) {
      collector.begin()
      const result = await runTransaction(vm, tx, env, 'block', { blockGasUsed: gasUsed })
      gasUsed += result.totalGasSpent
      out.push(collector.end(result))
    }
  } finally {
    collector.detach()
  }
  return out
}

/** Indexes block `number` and moves explorer-from to it, in one batch; false (nothing written) when the replay was BUSY. */
export async function backfillBlock(
  store: ChainStore,
  number: bigint,
  on: ExplorerIndexes,
  replay: ActivityReplay,
): Promise<boolean> {
  const block = store.getBlockByNumber(number)
  if (block === undefined) throw new Error(`block ${number} is not in the chain`)
  const receipts = store.getReceipts(block.hash) ?? []
  let activity: TxActivity[] | undefined
  if (needsActivity(on) && block.transactions.length > 0) {
    const replayed = await replay(block)
    if (replayed === BUSY) return false
    activity = replayed
  }
  const batch = store.db.batch()
  putIndexEntries(batch, { number, transactions: block.transactions, receipts, activity }, on)
  putIndexedFrom(batch, number)
  await batch.write(false)
  return true
}

export class ExplorerBackfill {
  readonly #store: ChainStore
  readonly #log: Logger
  readonly #replay: ActivityReplay
  #stopped = false
  #wake: (() => void) | undefined
  /** Settles when the backfill ends (done, stopped or failed). */
  readonly done: Promise<void>

  constructor(store: ChainStore, log: Logger, replay: ActivityReplay) {
    this.#store = store
    this.#log = log
    this.#replay = replay
    this.done = this.#run().catch((err) => {
      this.#log.error(`explorer index backfill stopped: ${err instanceof Error ? err.message : String(err)}`)
    })
  }

  /** Stops after the block being indexed (a restart resumes there). */
  async stop(): Promise<void> {
    this.#stopped = true
    this.#wake?.()
    await this.done
  }

  /** Waits `ms`, or less when stopped meanwhile. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms)
      function done(): void {
        clearTimeout(timer)
        resolve()
      }
      this.#wake = done
    }).finally(() => {
      this.#wake = undefined
    })
  }

  async #run(): Promise<void> {
    const store = this.#store
    const x = store.explorer
    const on = x.enabled
    const head = store.head.header.number
    if (x.head !== head || gainsIndexes(store.db, on)) {
      // never indexed, blocks committed while the indexes were off, or an index turned on since:
      // every block below the head is indexed again (entries already there are rewritten as they were)
      const batch = store.db.batch()
      putIndexedHead(batch, head)
      putIndexedFrom(batch, head + 1n)
      putIndexesMask(batch, on)
      await batch.write(true)
    } else {
      const batch = store.db.batch()
      putIndexesMask(batch, on)
      await batch.write(true)
    }
    let from = x.indexedFrom ?? 0n
    if (from === 0n) return
    const total = from
    this.#log.info(`explorer indexes: indexing blocks ${from - 1n}..0 (newest first) in the background`)
    let lastLog = performance.now()
    while (from > 0n && !this.#stopped) {
      if (!(await backfillBlock(store, from - 1n, on, this.#replay))) {
        await this.#pause(EXPLORER_BACKFILL_RETRY_MS)
        continue
      }
      from--
      if (performance.now() - lastLog >= EXPLORER_BACKFILL_LOG_MS) {
        lastLog = performance.now()
        const done = total - from
        this.#log.info(`explorer indexes: ${done} of ${total} blocks indexed, down to block ${from}`)
      }
      // one block per turn: consensus and RPC run between two blocks
      await new Promise<void>((resolve) => setImmediate(resolve))
    }
    if (from === 0n) this.#log.info(`explorer indexes: all ${total} blocks indexed`)
  }
}

/**
 * The base chain's checkpoints as the node serves them (issue 20): the CheckpointSource of block
 * proofs and exit payloads, the checkpoint methods of the validators namespace and uptime.
 *
 *   refresh() every poll_interval (any node with [checkpoint] base_rpc and manager, validators or not):
 *     currentHeaderBlock() ─▶ count
 *     eth_getLogs of the manager (NewHeaderBlock, CheckpointSigners, ValidatorSetUpdated), in
 *       pages of LOG_PAGE_BLOCKS: forward from the last block read to the head, and, until the
 *       constructor's ValidatorSetUpdated(0) is found, backward from where the node started
 *       (at most LOG_PAGES_PER_REFRESH pages a refresh: a long history is read over several)
 *     kept: the last CHECKPOINTS_KEPT checkpoints (3 uptime windows) with their signers, and every
 *     set change (few: a change rides a checkpoint)
 *   checkpoint(id), checkpointOfBlock(n), latest(): from what is kept, else headerBlocks(id) by
 *     binary search over ids (log2(count) view calls), cached
 *   uptime(): uptime.ts over what is kept
 */
import type { Logger } from '../../log.js'
import type { BaseChain, ManagerReader } from './baseChain.js'
import { BaseChainError } from './baseErrors.js'
import { decodeManagerEvent, HEADER_BLOCK_STEP, type HeaderBlock, TOPICS } from './managerAbi.js'
import type { Checkpoint, CheckpointSource } from './source.js'
import { computeUptime, type SetChange, type UptimeReport } from './uptime.js'

/** Base-chain blocks per eth_getLogs request: inside the 10,000 most providers allow. */
export const LOG_PAGE_BLOCKS = 5_000n
/** Pages read per refresh, so one refresh stays a few seconds however long the history is. */
export const LOG_PAGES_PER_REFRESH = 20
/** Header blocks read by id kept in memory (binary searches for checkpointOfBlock hit them again). */
export const HEADER_BLOCKS_CACHED = 4096
/** Set changes kept (each carried by a checkpoint; far more than a network makes). */
export const SET_CHANGES_KEPT = 10_000

interface Kept {
  header: HeaderBlock
  signers: Uint8Array[] | undefined
  txHash: Uint8Array | undefined
  blockNumber: bigint | undefined
}

export interface CheckpointHistoryOptions {
  chain: BaseChain
  reader: ManagerReader
  uptimeWindow: number
  log: Logger
}

export class CheckpointHistory implements CheckpointSource {
  readonly #o: CheckpointHistoryOptions
  /** Kept checkpoints by id (ascending insertion for the newest ones). */
  readonly #kept = new Map<bigint, Kept>()
  readonly #headers = new Map<bigint, HeaderBlock>()
  #sets: SetChange[] = []
  #count = 0n
  /** Lowest and highest base block read; undefined before the first refresh. */
  #low: bigint | undefined
  #high: bigint | undefined
  /** The constructor's set event was found: the history is whole back to deployment. */
  #complete = false
  #refreshing: Promise<void> | undefined

  constructor(opts: CheckpointHistoryOptions) {
    this.#o = opts
  }

  /** Checkpoints kept: three uptime windows (grace, notice, final notice). */
  get keep(): number {
    return 3 * this.#o.uptimeWindow
  }

  /** Checkpoints stored on the base chain, as of the last refresh. */
  get count(): bigint {
    return this.#count
  }

  /** Reads what changed on the base chain (module doc); one at a time. Throws BaseChainError. */
  refresh(): Promise<void> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = undefined
    })
    return this.#refreshing
  }

  async #refresh(): Promise<void> {
    const { chain, reader } = this.#o
    const [current, head] = await Promise.all([reader.currentHeaderBlock(), chain.blockNumber()])
    this.#count = current / HEADER_BLOCK_STEP
    let pages = 0
    if (this.#high === undefined) {
      this.#high = head
      this.#low = head + 1n
    }
    while ((this.#high as bigint) < head && pages < LOG_PAGES_PER_REFRESH) {
      const from: bigint = (this.#high as bigint) + 1n
      const to: bigint = from + LOG_PAGE_BLOCKS - 1n < head ? from + LOG_PAGE_BLOCKS - 1n : head
      await this.#read(from, to)
      this.#high = to
      pages++
    }
    while (!this.#complete && (this.#low as bigint) > 0n && pages < LOG_PAGES_PER_REFRESH && !this.#enough()) {
      const to: bigint = (this.#low as bigint) - 1n
      const from: bigint = to + 1n > LOG_PAGE_BLOCKS ? to + 1n - LOG_PAGE_BLOCKS : 0n
      await this.#read(from, to)
      this.#low = from
      pages++
    }
  }

  /** Whether the kept events already cover every checkpoint uptime needs and the set before them. */
  #enough(): boolean {
    const needFrom = this.#count > BigInt(this.keep) ? this.#count - BigInt(this.keep) + 1n : 1n
    for (let k = needFrom; k <= this.#count; k++) if (this.#kept.get(k * HEADER_BLOCK_STEP)?.signers === undefined) return false
    return this.#sets.some((s) => s.id < needFrom * HEADER_BLOCK_STEP)
  }

  async #read(from: bigint, to: bigint): Promise<void> {
    const { chain, reader } = this.#o
    const logs = await chain.logs(
      reader.address,
      [[TOPICS.newHeaderBlock, TOPICS.checkpointSigners, TOPICS.validatorSetUpdated]],
      from,
      to,
    )
    for (const log of logs) {
      let e: ReturnType<typeof decodeManagerEvent>
      try {
        e = decodeManagerEvent(log)
      } catch (err) {
        this.#o.log.warn(`checkpoint history: log in base block ${log.blockNumber} skipped: ${(err as Error).message}`)
        continue
      }
      if (e === undefined) continue
      if (e.kind === 'set') {
        if (!this.#sets.some((s) => s.id === e.id)) {
          this.#sets.push({ id: e.id, signers: e.signers, powers: e.powers })
          this.#sets.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
          if (this.#sets.length > SET_CHANGES_KEPT) this.#sets.shift()
        }
        if (e.id === 0n) this.#complete = true
        continue
      }
      const k = this.#keptOf(e.id)
      if (e.kind === 'signers') k.signers = e.signers
      else {
        k.header = { id: e.id, root: e.root, start: e.start, end: e.end, createdAt: k.header.createdAt, proposer: e.proposer }
        k.txHash = e.txHash
        k.blockNumber = e.blockNumber
      }
    }
    this.#trim()
  }

  #keptOf(id: bigint): Kept {
    let k = this.#kept.get(id)
    if (k === undefined) {
      k = {
        header: { id, root: new Uint8Array(32), start: 0n, end: 0n, createdAt: 0n, proposer: new Uint8Array(20) },
        signers: undefined,
        txHash: undefined,
        blockNumber: undefined,
      }
      this.#kept.set(id, k)
    }
    return k
  }

  #trim(): void {
    const keepFrom = (this.#count - BigInt(this.keep)) * HEADER_BLOCK_STEP
    for (const id of this.#kept.keys()) if (id <= keepFrom) this.#kept.delete(id)
  }

  async #header(id: bigint): Promise<HeaderBlock | undefined> {
    if (id <= 0n || id % HEADER_BLOCK_STEP !== 0n) return undefined
    let h = this.#headers.get(id)
    if (h === undefined) {
      h = await this.#o.reader.headerBlock(id)
      if (h.end === 0n) return undefined // not stored (yet)
      if (this.#headers.size >= HEADER_BLOCKS_CACHED) {
        const oldest = this.#headers.keys().next().value
        if (oldest !== undefined) this.#headers.delete(oldest)
      }
      this.#headers.set(id, h)
    }
    return h
  }

  /** The checkpoint with header block id `id` (signers from the kept events, else read by id). */
  async checkpoint(id: bigint): Promise<Checkpoint | undefined> {
    const header = await this.#header(id)
    if (header === undefined) return undefined
    const kept = this.#kept.get(id)
    let signers = kept?.signers
    let txHash = kept?.txHash
    if (signers === undefined) {
      const logs = await this.#o.chain.logs(
        this.#o.reader.address,
        [[TOPICS.checkpointSigners, TOPICS.newHeaderBlock], null, null],
        0n,
        await this.#o.chain.blockNumber(),
      )
      for (const log of logs) {
        const e = decodeManagerEvent(log)
        if (e?.kind === 'signers' && e.id === id) signers = e.signers
        if (e?.kind === 'checkpoint' && e.id === id) txHash = e.txHash
      }
    }
    return {
      id,
      start: header.start,
      end: header.end,
      root: header.root,
      proposer: header.proposer,
      signers: signers ?? [],
      ...(txHash === undefined ? {} : { baseTxHash: txHash }),
    }
  }

  /** When the checkpoint was stored (base-chain seconds). */
  async createdAt(id: bigint): Promise<bigint | undefined> {
    return (await this.#header(id))?.createdAt
  }

  async latest(): Promise<Checkpoint | undefined> {
    return this.#count === 0n ? undefined : this.checkpoint(this.#count * HEADER_BLOCK_STEP)
  }

  /** The checkpoint whose range holds block `n`: binary search over ids (ranges are contiguous from block 1). */
  async checkpointOfBlock(n: bigint): Promise<Checkpoint | undefined> {
    if (n < 1n || this.#count === 0n) return undefined
    let lo = 1n
    let hi = this.#count
    const last = await this.#header(hi * HEADER_BLOCK_STEP)
    if (last === undefined || n > last.end) return undefined
    while (lo < hi) {
      const mid = (lo + hi) / 2n
      const h = await this.#header(mid * HEADER_BLOCK_STEP)
      if (h === undefined) throw new BaseChainError('bad-answer', `checkpoint ${mid * HEADER_BLOCK_STEP} is missing below the last`)
      if (h.end < n) lo = mid + 1n
      else hi = mid
    }
    return this.checkpoint(lo * HEADER_BLOCK_STEP)
  }

  /** Uptime of the contract's current signers over the last uptime_window checkpoints (uptime.ts). */
  uptime(currentSigners: readonly Uint8Array[]): UptimeReport {
    const checkpoints: { id: bigint; signers: Uint8Array[] }[] = []
    for (const [id, k] of this.#kept) if (k.signers !== undefined) checkpoints.push({ id, signers: k.signers })
    checkpoints.sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    return computeUptime({
      checkpoints,
      sets: this.#sets,
      setsComplete: this.#complete,
      current: currentSigners,
      window: this.#o.uptimeWindow,
    })
  }

  /** For logs: how far back the events were read. */
  describe(): string {
    return `checkpoints ${this.#count}, events from base block ${this.#low ?? '-'} to ${this.#high ?? '-'}${this.#complete ? ' (since deployment)' : ''}, signers kept for ${this.#kept.size}`
  }
}

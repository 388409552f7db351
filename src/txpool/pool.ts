/**
 * TransactionPool: pending and queued transactions per sender, replacement by fee bump, limits
 * with eviction of the cheapest, the reset after each block, and the journal (see index.ts for
 * the state diagram). Every change runs through one serial queue, so an admission that awaits a
 * state read never interleaves with a block reset.
 */
import type { TypedTransaction } from '@ethereumjs/tx'
import type { Logger } from '../log.js'
import { keccak256 } from '../util/keccak.js'
import { SenderTxs } from './account.js'
import { txErrors } from './errors.js'
import type { NewTxListener, PoolContent, PoolStats, PoolTx, TxPool } from './index.js'
import type { TxJournal } from './journal.js'
import { orderByTip } from './order.js'
import type { SenderRecovery } from './recovery.js'
import { type AdmissionContext, decodeRawTransaction, TX_MAX_SIZE_BYTES, validateTransaction } from './validate.js'

/** How often queued transactions are checked against `lifetime` (geth's evictionInterval). */
export const TXPOOL_EVICTION_INTERVAL_MS = 60_000
/** During a reset, the event loop gets a turn after this many senders were re-read. */
export const TXPOOL_RESET_YIELD_ACCOUNTS = 256
/** Journal records refused at reload that are named in the log one by one; the rest are counted (a big stale journal would flood it). */
export const TXPOOL_RELOAD_LOGGED_REFUSALS = 32

export interface TxPoolLimits {
  /** A replacement must raise both fee cap and tip by at least this many percent. */
  priceBumpPercent: number
  /** Most queued (future) transactions one sender may have. */
  accountQueue: number
  /** Executable slots; with globalQueue the capacity of the whole pool. */
  globalSlots: number
  /** Most queued transactions over all senders. */
  globalQueue: number
  /** A sender's queued transactions are dropped after this long without activity. */
  lifetimeMs: number
  /** The journal is rewritten this often (0 = only at start, stop and when it grows). */
  rejournalMs: number
}

type AccountState = { nonce: bigint; balance: bigint }

/** What the pool reads from the chain, always at the current head. */
export interface PoolChain {
  /** Admission parameters at the head (validate.ts) except the pool's own answers. */
  admission(): Omit<AdmissionContext, 'account' | 'known'>
  /** True when a transaction with this hash is in a block. */
  isMined(hash: Uint8Array): boolean
  /** A reader of accounts at the head (one state view per call). */
  accountReader(): (sender: Uint8Array) => Promise<AccountState>
}

export interface TransactionPoolOptions {
  chain: PoolChain
  limits: TxPoolLimits
  journal?: TxJournal
  log?: Logger
  now?: () => number
  /** Sender recovery on worker threads (recovery.ts); absent = on the main thread. */
  recovery?: SenderRecovery
}

/** True when `a` pays less than `b` at `baseFee`: by effective tip, then by fee cap. */
function cheaper(a: PoolTx, b: PoolTx, baseFee: bigint): boolean {
  const ta = a.tipAt(baseFee)
  const tb = b.tipAt(baseFee)
  return ta < tb || (ta === tb && a.feeCap < b.feeCap)
}

/** geth's list.Add: both caps strictly higher, and each at least old × (100 + bump) / 100. */
function bumped(old: PoolTx, next: PoolTx, percent: number): boolean {
  if (next.feeCap <= old.feeCap || next.tipCap <= old.tipCap) return false
  const factor = BigInt(100 + percent)
  return next.feeCap >= (old.feeCap * factor) / 100n && next.tipCap >= (old.tipCap * factor) / 100n
}

/** The hash of a raw transaction, for a log line (0x hex). */
function journalHash(raw: Uint8Array): string {
  return `0x${Buffer.from(keccak256(raw)).toString('hex')}`
}

function hexBytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2), 'hex')
}

export class TransactionPool implements TxPool {
  readonly #chain: PoolChain
  readonly #limits: TxPoolLimits
  readonly #journal: TxJournal | undefined
  readonly #log: Logger | undefined
  readonly #now: () => number
  readonly #recovery: SenderRecovery | undefined
  readonly #byHash = new Map<string, PoolTx>()
  readonly #accounts = new Map<string, SenderTxs>()
  readonly #listeners: NewTxListener[] = []
  readonly #timers: NodeJS.Timeout[] = []
  #pendingCount = 0
  /** Transactions evicted for better-paying ones since the last reset (one info line per block, not per eviction: spam evicts thousands). */
  #evicted = 0
  #queue: Promise<unknown> = Promise.resolve()
  #replaying = false
  #started = false

  constructor(opts: TransactionPoolOptions) {
    this.#chain = opts.chain
    this.#limits = opts.limits
    this.#journal = opts.journal
    this.#log = opts.log
    this.#recovery = opts.recovery
    this.#now = opts.now ?? Date.now
  }

  get size(): number {
    return this.#byHash.size
  }

  has(hashHex: string): boolean {
    return this.#byHash.has(hashHex)
  }

  get(hashHex: string): PoolTx | undefined {
    return this.#byHash.get(hashHex)
  }

  stats(): PoolStats {
    return { pending: this.#pendingCount, queued: this.#byHash.size - this.#pendingCount }
  }

  onNewTx(listener: NewTxListener): void {
    this.#listeners.push(listener)
  }

  submit(raw: Uint8Array): Promise<PoolTx> {
    const recovery = this.#recovery
    if (recovery === undefined) return this.#serial(() => this.#submit(raw, undefined))
    // decoded and its sender recovered on a worker before the turn (recovery.ts); a body that
    // does not decode is left to the validation, which words the error
    let tx: TypedTransaction | undefined
    try {
      if (raw.length <= TX_MAX_SIZE_BYTES) tx = decodeRawTransaction(raw, this.#chain.admission().common)
    } catch {
      tx = undefined
    }
    return recovery.prime(tx).then(() => this.#serial(() => this.#submit(raw, tx)))
  }

  onBlock(dropped: readonly PoolTx[]): Promise<void> {
    return this.#serial(() => this.#reset(dropped))
  }

  /** Replays the journal (re-validating each transaction), rewrites it, starts the timers. */
  async start(): Promise<{ loaded: number; kept: number }> {
    let loaded = 0
    this.#started = true
    if (this.#journal !== undefined) {
      const { raws, damaged } = this.#journal.load()
      if (damaged) this.#log?.warn(`txpool journal ${this.#journal.path}: damaged record, kept what precedes it`)
      loaded = raws.length
      this.#replaying = true
      let refused = 0
      try {
        for (const raw of raws) {
          await this.submit(raw).catch((err: Error & { kind?: string }) => {
            // mined since it was journaled: the usual case, not a drop
            if (err.kind === 'nonceTooLow' || err.kind === 'alreadyKnown') return
            if (++refused <= TXPOOL_RELOAD_LOGGED_REFUSALS)
              this.#log?.info(`txpool: dropped journaled transaction ${journalHash(raw)} at reload: ${err.message}`)
          })
        }
      } finally {
        this.#replaying = false
      }
      if (refused > TXPOOL_RELOAD_LOGGED_REFUSALS)
        this.#log?.info(`txpool: ${refused} journaled transactions dropped at reload in all`)
      this.#rotate()
    }
    const every = (ms: number, fn: () => void) => {
      if (ms <= 0) return
      const t = setInterval(() => void this.#serial(async () => fn()), ms)
      t.unref()
      this.#timers.push(t)
    }
    every(Math.min(TXPOOL_EVICTION_INTERVAL_MS, this.#limits.lifetimeMs), () => this.#evictStale())
    every(this.#limits.rejournalMs, () => this.#rotate())
    return { loaded, kept: this.size }
  }

  /** Stops the timers and leaves the journal holding exactly the pool (once started). */
  async stop(): Promise<void> {
    for (const t of this.#timers) clearInterval(t)
    this.#timers.length = 0
    await this.#recovery?.close()
    if (!this.#started) return
    this.#started = false
    await this.#serial(async () => {
      this.#rotate()
      this.#journal?.close()
    })
  }

  nextNonce(senderHex: string, stateNonce: bigint): bigint {
    const acct = this.#accounts.get(senderHex)
    let n = stateNonce
    if (acct === undefined) return n
    while (acct.byNonce.has(n)) n++
    return n
  }

  candidates(baseFee: bigint): PoolTx[] {
    const runs: PoolTx[][] = []
    for (const acct of this.#accounts.values()) {
      if (acct.pending === 0) continue
      const run = acct.pendingTxs()
      // a transaction that cannot pay the base fee waits, and so does every later nonce
      const cut = run.findIndex((t) => t.feeCap < baseFee)
      runs.push(cut < 0 ? run : run.slice(0, cut))
    }
    return orderByTip(runs, baseFee)
  }

  content(): PoolContent {
    const out: PoolContent = { pending: new Map(), queued: new Map() }
    for (const acct of this.#accounts.values()) {
      if (acct.pending > 0) out.pending.set(acct.senderHex, acct.pendingTxs())
      if (acct.queued > 0) out.queued.set(acct.senderHex, acct.queuedTxs())
    }
    return out
  }

  contentFrom(senderHex: string): { pending: PoolTx[]; queued: PoolTx[] } {
    const acct = this.#accounts.get(senderHex)
    return acct === undefined ? { pending: [], queued: [] } : { pending: acct.pendingTxs(), queued: acct.queuedTxs() }
  }

  #serial<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.#queue.then(fn, fn)
    this.#queue = run.catch(() => undefined)
    return run
  }

  async #submit(raw: Uint8Array, decoded: TypedTransaction | undefined): Promise<PoolTx> {
    const params = this.#chain.admission()
    let state: AccountState | undefined
    const ptx = await validateTransaction(
      raw,
      {
        ...params,
        known: (hashHex) => this.#byHash.has(hashHex),
        mined: (hash) => this.#chain.isMined(hash),
        account: async (sender) => {
          const acct = this.#accounts.get(`0x${Buffer.from(sender).toString('hex')}`)
          state = acct !== undefined ? { nonce: acct.stateNonce, balance: acct.balance } : await this.#readOne(sender)
          return state
        },
      },
      decoded,
    )
    this.#admit(ptx, state as AccountState, params.nextBaseFee)
    return ptx
  }

  #readOne(sender: Uint8Array): Promise<AccountState> {
    return this.#chain.accountReader()(sender)
  }

  /** Pool rules after validation: funds over the pending run, replacement, limits, insertion. */
  #admit(ptx: PoolTx, state: AccountState, baseFee: bigint): void {
    const known = this.#accounts.get(ptx.senderHex)
    const acct = known ?? new SenderTxs(ptx.senderHex, state.nonce, state.balance, this.#now())
    const old = acct.byNonce.get(ptx.nonce)
    const spent = acct.pendingCost()
    if (old !== undefined && acct.isPending(ptx.nonce)) {
      const bump = ptx.cost - old.cost
      if (acct.balance < spent + bump) throw txErrors.bumpedCost(acct.balance, spent, bump)
    } else if (acct.balance < spent + ptx.cost) {
      throw txErrors.queuedCost(acct.balance, spent, ptx.cost)
    }
    if (old !== undefined) {
      if (!bumped(old, ptx, this.#limits.priceBumpPercent)) throw txErrors.replaceUnderpriced()
      this.#byHash.delete(old.hashHex)
      this.#insert(acct, ptx)
      if (acct.isPending(ptx.nonce)) this.#emit([ptx])
      return
    }
    const executable = ptx.nonce === acct.nextNonce
    if (!executable && acct.queued >= this.#limits.accountQueue) throw txErrors.accountLimit(acct.size)
    const { globalSlots, globalQueue } = this.#limits
    if (this.size >= globalSlots + globalQueue) this.#evictFor(ptx, executable, false, baseFee)
    else if (!executable && this.size - this.#pendingCount >= globalQueue) this.#evictFor(ptx, false, true, baseFee)
    if (known === undefined) this.#accounts.set(ptx.senderHex, acct)
    this.#insert(acct, ptx)
    this.#emit(this.#recount(acct))
  }

  #insert(acct: SenderTxs, ptx: PoolTx): void {
    acct.byNonce.set(ptx.nonce, ptx)
    this.#byHash.set(ptx.hashHex, ptx)
    acct.lastActiveMs = this.#now()
    if (this.#journal === undefined || this.#replaying) return
    try {
      this.#journal.append(ptx.tx.serialize())
    } catch (err) {
      this.#log?.warn(`txpool journal append failed: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  /**
   * Makes room for `ptx` by evicting the cheapest tail transaction of another sender (a tail,
   * so no pending run gets a hole); refuses when `ptx` pays no more, or when a future
   * transaction would push out a pending one.
   */
  #evictFor(ptx: PoolTx, executable: boolean, queuedOnly: boolean, baseFee: bigint): void {
    let victim: PoolTx | undefined
    let victimPending = false
    for (const acct of this.#accounts.values()) {
      if (acct.senderHex === ptx.senderHex) continue
      const tail = acct.tail()
      if (tail === undefined) continue
      const pending = acct.isPending(tail.nonce)
      if (queuedOnly && pending) continue
      if (victim === undefined || cheaper(tail, victim, baseFee)) {
        victim = tail
        victimPending = pending
      }
    }
    if (victim === undefined) throw txErrors.poolFull()
    if (!cheaper(victim, ptx, baseFee)) throw txErrors.underpricedFull()
    if (!executable && victimPending) throw txErrors.futureReplacePending()
    this.#log?.debug(`txpool: dropped ${victim.hashHex}: pool full, evicted for ${ptx.hashHex}`)
    this.#evicted++
    this.#remove(victim)
  }

  #remove(ptx: PoolTx): void {
    const acct = this.#accounts.get(ptx.senderHex)
    if (acct === undefined || acct.byNonce.get(ptx.nonce) !== ptx) return
    acct.byNonce.delete(ptx.nonce)
    this.#byHash.delete(ptx.hashHex)
    this.#recount(acct)
    if (acct.size === 0) this.#accounts.delete(acct.senderHex)
  }

  #recount(acct: SenderTxs): PoolTx[] {
    const before = acct.pending
    const promoted = acct.recount()
    this.#pendingCount += acct.pending - before
    if (promoted.length > 0) acct.lastActiveMs = this.#now()
    return promoted
  }

  async #reset(dropped: readonly PoolTx[]): Promise<void> {
    for (const ptx of dropped) {
      if (this.#byHash.get(ptx.hashHex) === ptx)
        this.#log?.info(`txpool: dropped ${ptx.hashHex}: invalid in block building`)
      this.#remove(ptx)
    }
    if (this.#evicted > 0) {
      this.#log?.info(`txpool: dropped ${this.#evicted} transactions evicted for better-paying ones (pool full)`)
      this.#evicted = 0
    }
    const { blockGasLimit } = this.#chain.admission()
    const read = this.#chain.accountReader()
    let i = 0
    for (const acct of [...this.#accounts.values()]) {
      const state = await read(hexBytes(acct.senderHex))
      acct.stateNonce = state.nonce
      acct.balance = state.balance
      for (const [nonce, tx] of acct.byNonce) {
        const why =
          nonce < state.nonce
            ? this.#chain.isMined(tx.hash)
              ? undefined
              : `nonce ${nonce} used on chain by another transaction`
            : tx.cost > state.balance
              ? `cost ${tx.cost} over balance ${state.balance}`
              : tx.tx.gasLimit > blockGasLimit
                ? `gas ${tx.tx.gasLimit} over the block gas limit ${blockGasLimit}`
                : null
        if (why === null) continue
        acct.byNonce.delete(nonce)
        this.#byHash.delete(tx.hashHex)
        if (why !== undefined) this.#log?.info(`txpool: dropped ${tx.hashHex}: ${why}`)
      }
      this.#emit(this.#recount(acct))
      if (acct.size === 0) this.#accounts.delete(acct.senderHex)
      if (++i % TXPOOL_RESET_YIELD_ACCOUNTS === 0) await new Promise((r) => setImmediate(r))
    }
    if (this.#journal?.needsRotation(this.size)) this.#rotate()
  }

  /** Drops the queued transactions of senders idle for longer than `lifetime`. */
  #evictStale(): void {
    const cutoff = this.#now() - this.#limits.lifetimeMs
    for (const acct of [...this.#accounts.values()]) {
      if (acct.queued === 0 || acct.lastActiveMs > cutoff) continue
      for (const tx of acct.queuedTxs()) {
        this.#log?.info(`txpool: dropped ${tx.hashHex}: queued behind a nonce gap for longer than the lifetime`)
        this.#remove(tx)
      }
    }
  }

  #rotate(): void {
    if (this.#journal === undefined) return
    const raws: Uint8Array[] = []
    for (const acct of this.#accounts.values()) {
      for (const tx of [...acct.pendingTxs(), ...acct.queuedTxs()]) raws.push(tx.tx.serialize())
    }
    try {
      this.#journal.rotate(raws)
    } catch (err) {
      this.#log?.warn(`txpool journal rotation failed: ${err instanceof Error ? err.message : String(err)}`)
    }
  }

  #emit(txs: readonly PoolTx[]): void {
    for (const tx of txs) {
      for (const listener of this.#listeners) {
        try {
          listener(tx)
        } catch (err) {
          this.#log?.error(`txpool listener failed: ${err instanceof Error ? err.message : String(err)}`)
        }
      }
    }
  }
}

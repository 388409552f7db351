/**
 * The flat account table: every account of ONE state root, keyed by its trie path
 * (keccak256(address) → account RLP), in the `flat` column, beside a marker naming that root.
 * An account read at that root is one RocksDB lookup instead of a walk of 6–8 trie nodes, which
 * on a 1M-account state are mostly not in any cache (issue 22: eth_getBalance ran at 0.11 of its
 * small-state rate because every read was IO on the trie column, where all versions of all
 * nodes live).
 *
 *   block commit ─▶ the account writes of its state transition (recorded by the trie writer's
 *                   flush: TrieStore.recordAccounts) ─▶ same WriteBatch as the block, marker = its root
 *   read at root R ─▶ one multi-get of [marker, path] ─▶ marker = R ? the row : walk the trie
 *
 * What must always hold:
 *  - the table holds exactly the state at the root its marker names, or has no marker. A commit
 *    updates it only when its recorded transitions chain from the marker's root to the block's
 *    root (each `from` the `to` before it): a change that reached the trie any other way breaks
 *    the chain, and the commit deletes the marker instead (then a backfill rebuilds the table).
 *  - readers on any thread see the marker and the row of one moment: RocksDB's MultiGet reads one
 *    column under one sequence number, and a block's writes land in one batch.
 *  - the backfill never writes a value older than one a commit wrote: commits made while it runs
 *    write their own rows (remembered as touched, the walk skips them), and a commit waits for a
 *    backfill write in flight before its own (settled()), so writes land in the order decided.
 *
 * The backfill (an existing datadir, or after an unrecorded change such as a restart during one)
 * walks the head's account trie on the main thread in slices of FLAT_BACKFILL_SLICE_MS, yielding
 * between them, with progress in the log. Readers fall back to the trie until it is done.
 */
import type { Database, WriteBatch } from '../db/db.js'
import type { Logger } from '../log.js'
import { hexOf, sameBytes } from '../util/bytes.js'
import { keccak256 } from '../util/keccak.js'
import { EMPTY_TRIE_ROOT, MISSING_NODE, NOT_CACHED, trieReadCached, trieReadPath } from './trieLookup.js'
import { TrieWalker } from './trieWalk.js'

/** Key of the marker: the state root the table holds. Rows have 32-byte keys, so no row is this key. */
export const FLAT_ROOT_KEY: Uint8Array = Buffer.from('root', 'latin1')
/** Main-thread time a backfill slice may take before yielding to the event loop, ms. */
export const FLAT_BACKFILL_SLICE_MS = 20
/** Leaves a backfill slice walks between checks of the clock. */
const FLAT_BACKFILL_STEP = 256
/** Interval of the backfill's progress lines, ms. */
export const FLAT_BACKFILL_PROGRESS_MS = 10_000

/** The account writes of one flush of the account trie: `from` root → `to` root. */
export interface AccountTransition {
  from: Uint8Array
  to: Uint8Array
  /** [keccak256(address), account RLP or null = deleted], in the order written. */
  writes: [Uint8Array, Uint8Array | null][]
}

/**
 * The account with trie path `path` at `root` from the flat table: its RLP, null when the
 * account does not exist, undefined when the table does not hold `root` (then walk the trie).
 */
export function flatAccount(db: Database, root: Uint8Array, path: Uint8Array): Uint8Array | null | undefined {
  const [marker, row] = db.getManySync('flat', [FLAT_ROOT_KEY, path])
  if (marker === undefined || !sameBytes(marker, root)) return undefined
  return row ?? null
}

/**
 * The account `address` (20 bytes) at the committed `root`: from the kept trie nodes when every
 * node on its path is kept, else from the flat table when it holds `root`, else from the trie's
 * nodes in the database. Its RLP (a view: not to be changed), undefined when absent,
 * MISSING_NODE when the trie's nodes are not all in the database.
 */
export function readAccount(
  db: Database,
  root: Uint8Array,
  address: Uint8Array,
): Uint8Array | undefined | typeof MISSING_NODE {
  const path = keccak256(address)
  // kept trie nodes first: cheaper than any database read where the trie's top is all kept (a small state)
  const kept = trieReadCached(db, root, path)
  if (kept !== NOT_CACHED) return kept
  const flat = flatAccount(db, root, path)
  if (flat !== undefined) return flat ?? undefined
  return trieReadPath(db, root, path)
}

/** When `transitions` lead from `from` to `to`, one after another; an empty list leads nowhere. */
function chains(transitions: readonly AccountTransition[], from: Uint8Array, to: Uint8Array): boolean {
  let at = from
  for (const t of transitions) {
    if (!sameBytes(t.from, at)) return false
    at = t.to
  }
  return sameBytes(at, to)
}

function putWrites(batch: WriteBatch, transitions: readonly AccountTransition[], touched?: Set<string>): void {
  for (const t of transitions)
    for (const [path, rlp] of t.writes) {
      if (rlp === null) batch.del('flat', path)
      else batch.put('flat', path, rlp)
      touched?.add(hexOf(path))
    }
}

/** A backfill under way: the root it walks, the root the rows now reach, the rows commits wrote. */
interface Building {
  last: Uint8Array
  touched: Set<string>
  /** A commit did not chain: the walk starts over at the head. */
  restart: boolean
}

/** Counts of what the table did (metrics, tests). */
export interface FlatStats {
  /** Whether the marker names a root (the table answers reads at it). */
  valid: boolean
  /** Backfills finished since the node started. */
  backfills: number
  /** Commits that could not update the table (their changes were not all recorded). */
  invalidations: number
  /** Rows the running backfill has written, or 0. */
  backfillRows: number
}

/** The main thread's side of the table: commits update it, a backfill rebuilds it. */
export class FlatAccounts {
  readonly #db: Database
  #log: Logger | undefined
  /** The head's effective state root (undefined before genesis). */
  readonly #headRoot: () => Uint8Array | undefined
  /** The root the table holds, as of the last batch this thread prepared; undefined = no marker. */
  #root: Uint8Array | undefined
  #building: Building | undefined
  #walker: TrieWalker | undefined
  /** A backfill write in flight: commits wait for it before writing. */
  #inflight: Promise<void> | undefined
  #running = false
  #stopped = false
  #backfills = 0
  #invalidations = 0

  /**
   * `fresh`: the database holds no chain yet (the empty table holds the empty state). Otherwise
   * the marker says which root the table holds; a table without one is rebuilt by backfill().
   */
  constructor(db: Database, fresh: boolean, headRoot: () => Uint8Array | undefined, log?: Logger) {
    this.#db = db
    this.#log = log
    this.#headRoot = headRoot
    this.#root = fresh ? EMPTY_TRIE_ROOT : db.getSync('flat', FLAT_ROOT_KEY)
  }

  /** Where the backfill's progress and the table's invalidations are logged. */
  setLogger(log: Logger): void {
    this.#log = log
  }

  stats(): FlatStats {
    return {
      valid: this.#root !== undefined,
      backfills: this.#backfills,
      invalidations: this.#invalidations,
      backfillRows: this.#walker?.leaves ?? 0,
    }
  }

  /**
   * Puts a commit's account changes into its batch: `root` is the state root the commit makes
   * effective, `transitions` what the trie writer recorded on the way there.
   */
  onCommit(batch: WriteBatch, root: Uint8Array, transitions: readonly AccountTransition[]): void {
    const building = this.#building
    if (building !== undefined) {
      if (sameBytes(building.last, root) && transitions.length === 0) return
      if (chains(transitions, building.last, root)) {
        putWrites(batch, transitions, building.touched)
        building.last = root
      } else building.restart = true
      return
    }
    const held = this.#root
    if (held === undefined) return
    if (transitions.length === 0 && sameBytes(held, root)) return
    if (chains(transitions, held, root)) {
      putWrites(batch, transitions)
      batch.put('flat', FLAT_ROOT_KEY, root)
      this.#root = root
      return
    }
    batch.del('flat', FLAT_ROOT_KEY)
    this.#root = undefined
    this.#invalidations++
    this.#log?.info('flat account table: a state change was not recorded; rebuilding it from the trie')
  }

  /**
   * A commit's batch failed to write after onCommit: what this thread believed the table holds is
   * no longer known (the marker still names what the rows hold), so no later commit builds on it.
   */
  abandon(): void {
    this.#root = undefined
    if (this.#building !== undefined) this.#building.restart = true
  }

  /** Waits for a backfill write in flight (a commit's batch must land after it). */
  async settled(): Promise<void> {
    while (this.#inflight !== undefined) await this.#inflight
  }

  /** Starts the backfill when the table does not hold the head's root (nothing when it does or one runs). */
  ensure(): void {
    if (this.#running || this.#stopped || this.#root !== undefined) return
    if (this.#headRoot() === undefined) return
    this.#running = true
    this.#backfill().then(
      () => {
        this.#running = false
      },
      (err: unknown) => {
        this.#running = false
        this.#building = undefined
        this.#walker = undefined
        this.#log?.warn(`flat account table: backfill stopped: ${(err as Error).message}; reads walk the trie`)
      },
    )
  }

  /** Stops a running backfill at its next slice (node shutdown); waits for its write in flight. */
  async stop(): Promise<void> {
    this.#stopped = true
    await this.settled()
  }

  async #backfill(): Promise<void> {
    for (;;) {
      const root = this.#headRoot()
      if (root === undefined || this.#stopped) return
      const started = Date.now()
      this.#log?.info(`flat account table: building it from the state at ${hexOf(root)}`)
      // no marker from here on: readers walk the trie until the last slice writes one
      const building: Building = { last: root, touched: new Set(), restart: false }
      this.#building = building
      const walker = new TrieWalker(this.#db, root)
      this.#walker = walker
      await this.#db.clearColumn('flat')
      let progressAt = started
      while (!building.restart && !this.#stopped) {
        const batch = this.#db.batch()
        const until = performance.now() + FLAT_BACKFILL_SLICE_MS
        while (!walker.done && performance.now() < until)
          walker.next(FLAT_BACKFILL_STEP, (path, rlp) => {
            if (!building.touched.has(hexOf(path))) batch.put('flat', path, rlp)
          })
        const last = walker.done
        if (last) {
          // from this batch on the table holds building.last: later commits update it as usual
          batch.put('flat', FLAT_ROOT_KEY, building.last)
          this.#root = building.last
          this.#building = undefined
          this.#walker = undefined
        }
        const write = batch.write(false)
        this.#inflight = write
        try {
          await write
        } finally {
          this.#inflight = undefined
        }
        if (last) {
          this.#backfills++
          this.#log?.info(
            `flat account table: built, ${walker.leaves} accounts in ${((Date.now() - started) / 1000).toFixed(1)} s`,
          )
          return
        }
        if (Date.now() - progressAt >= FLAT_BACKFILL_PROGRESS_MS) {
          progressAt = Date.now()
          this.#log?.info(`flat account table: ${walker.leaves} accounts so far`)
        }
        await new Promise((resolve) => setImmediate(resolve))
      }
      this.#building = undefined
      this.#walker = undefined
      if (this.#stopped) return
      this.#log?.info('flat account table: the state changed in a way the build cannot follow; starting again')
    }
  }
}

export { MISSING_NODE }

/**
 * What a task executes against: the database, the chain's Common and a ChainStore over them.
 * In a worker the database is the main thread's, attached by handle (sharedDb.ts); in the
 * in-process executor (`[exec] workers = 0`) it is the node's own.
 *
 * The ChainStore remembers the head it saw when built and refuses block numbers above it (its
 * canonical index may run ahead of a half-written block otherwise). A task names the head the
 * main thread had when it sent the task; a worker whose store is older builds a new one, which
 * then sees at least that head: RocksDB makes the main thread's committed batches visible to
 * every reader.
 */
import type { Common } from '@ethereumjs/common'
import { createChainCommon, type GenesisJson, hasCancun } from '../../chain/common.js'
import type { Database } from '../../db/db.js'
import { ChainStore } from '../../chain/store.js'
import { loadKzg } from '../../util/kzg.js'
import { installEvmPatches } from '../../evm/patches.js'
import { attachDatabase } from './sharedDb.js'

/** What the main thread hands every worker (Piscina workerData). */
export interface ExecWorkerData {
  /** `level.handle` of the node's open RocksDB. */
  dbHandle: bigint
  /** The chain's genesis (for its Common). */
  genesis: GenesisJson
  /** Byte budget of the worker's trie-node cache. */
  cacheBytes: number
}

export class ExecContext {
  readonly db: Database
  readonly common: Common
  /** The EVM checks the task's deadline itself (deadline.ts): only in a worker thread. */
  readonly evmDeadline: boolean
  #store: ChainStore

  constructor(db: Database, common: Common, store?: ChainStore, evmDeadline = false) {
    this.db = db
    this.common = common
    this.#store = store ?? new ChainStore(db, common)
    this.evmDeadline = evmDeadline
  }

  /** A worker's context over the shared database. */
  static async attach(data: ExecWorkerData): Promise<ExecContext> {
    const db = await attachDatabase(data.dbHandle, data.cacheBytes)
    const common = createChainCommon(data.genesis)
    if (hasCancun(data.genesis)) await loadKzg()
    // the EVM patches (deadline check, lazy tracer steps …: src/evm/patches.ts), before any task
    await installEvmPatches()
    return new ExecContext(db, common, undefined, true)
  }

  /** A store that knows blocks up to at least `head`. */
  store(head: bigint): ChainStore {
    if (this.#store.initialized && this.#store.head.header.number >= head) return this.#store
    this.#store = new ChainStore(this.db, this.common)
    return this.#store
  }
}

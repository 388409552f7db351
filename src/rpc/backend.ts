/**
 * The Backend: what the JSON-RPC namespaces read and call, over the chain store, state,
 * pool and executor (geth's ethapi.Backend). Handlers get it as their context.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { Database } from '../chain/db.js'
import type { Engine } from '../chain/hash.js'
import type { StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { IbexConfig } from '../config/types.js'
import { type ChainEvents, FilterSystem } from '../filters/index.js'
import type { SingleValidatorSealer } from '../consensus/sealer.js'
import { ExecPool } from '../exec/pool/index.js'
import type { Logger } from '../log.js'
import type { NetworkInfo } from '../p2p/network.js'
import { stateAt } from '../state/index.js'
import type { TxPool } from '../txpool/index.js'
import { ServerError } from './errors.js'
import type { BlockRef } from './params/index.js'

export interface BackendDeps {
  config: IbexConfig
  db: Database
  store: ChainStore
  common: Common
  pool: TxPool
  engine: Engine
  sealer: SingleValidatorSealer | undefined
  log: Logger
  /** New blocks and pending transactions, for filters and subscriptions. */
  events: ChainEvents
  /** EVM work (eth_call, eth_estimateGas, debug_trace*); default: run in process. */
  exec?: ExecPool
  /** Peers and sync state (net_peerCount, net_listening, eth_syncing); undefined without p2p. */
  network?: NetworkInfo
}

export class Backend {
  readonly config: IbexConfig
  readonly db: Database
  readonly store: ChainStore
  readonly common: Common
  readonly pool: TxPool
  readonly engine: Engine
  readonly chainId: bigint
  readonly log: Logger
  readonly events: ChainEvents
  /** Polling filters (eth_newFilter…) and the log-query limits. */
  readonly filters: FilterSystem
  readonly #sealer: SingleValidatorSealer | undefined
  /** The execution pool: calls and traces on worker threads (src/exec/pool). */
  readonly exec: ExecPool
  /** Peers and sync state; undefined when p2p is off. */
  readonly network: NetworkInfo | undefined

  constructor(deps: BackendDeps) {
    this.config = deps.config
    this.db = deps.db
    this.store = deps.store
    this.common = deps.common
    this.pool = deps.pool
    this.engine = deps.engine
    this.log = deps.log
    this.chainId = deps.common.chainId()
    this.#sealer = deps.sealer
    this.events = deps.events
    this.network = deps.network
    this.exec = deps.exec ?? ExecPool.inProcess(deps.db, deps.store, deps.common)
    const rpc = deps.config.jsonrpc
    this.filters = new FilterSystem({
      store: deps.store,
      events: deps.events,
      timeoutMs: rpc.filterTimeoutMs,
      limits: { maxBlockRange: rpc.maxLogBlockRange, maxResults: rpc.maxLogResults },
    })
  }

  /** The block a reference names, or undefined (block-returning methods answer null). */
  resolveBlock(ref: BlockRef): ChainBlock | undefined {
    const store = this.store
    switch (ref.kind) {
      case 'number':
        return store.getBlockByNumber(ref.number)
      case 'hash': {
        const block = store.getBlockByHash(ref.hash)
        if (block !== undefined && ref.requireCanonical && !store.isCanonical(block)) return undefined
        return block
      }
      case 'tag':
        // immediate finality: safe and finalized are the head; pending is the head too
        // (transactions waiting in the pool are not executed speculatively)
        return ref.tag === 'earliest' ? store.getBlockByNumber(0n) : store.head
    }
  }

  /** The block whose state a state method reads; geth's errors when there is none. */
  stateBlock(ref: BlockRef): ChainBlock {
    if (ref.kind === 'hash') {
      const block = this.store.getBlockByHash(ref.hash)
      if (block === undefined) throw new ServerError('header for hash not found')
      if (ref.requireCanonical && !this.store.isCanonical(block)) throw new ServerError('hash is not currently canonical')
      return block
    }
    const block = this.resolveBlock(ref)
    if (block === undefined) throw new ServerError('header not found')
    return block
  }

  stateAt(block: ChainBlock): MerkleStateManager {
    return stateAt(this.db, this.common, block.header.stateRoot)
  }

  /** Senders of a block's transactions, from its stored receipts. */
  senders(block: ChainBlock): Uint8Array[] {
    if (block.transactions.length === 0) return []
    const receipts = this.store.getReceipts(block.hash) ?? []
    return receipts.map((r: StoredReceipt) => r.from)
  }

  /** eth_sendRawTransaction: admission checks and pool rules (src/txpool), then the pool. */
  async submitTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return (await this.pool.submit(raw)).hash
  }
}

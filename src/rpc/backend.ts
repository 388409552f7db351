/**
 * The Backend: what the JSON-RPC namespaces read and call, over the chain store, state,
 * pool and executor (geth's ethapi.Backend). Handlers get it as their context.
 */
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address } from '@ethereumjs/util'
import type { Database } from '../chain/db.js'
import type { Engine } from '../chain/hash.js'
import type { StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { IbexConfig } from '../config/types.js'
import type { SingleValidatorSealer } from '../consensus/sealer.js'
import type { Logger } from '../log.js'
import { stateAt } from '../state/index.js'
import type { TxPool } from '../txpool/index.js'
import { validateTransaction } from '../txpool/validate.js'
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
  readonly #sealer: SingleValidatorSealer | undefined

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

  /** eth_sendRawTransaction: admission checks, then into the pool. */
  async submitTransaction(raw: Uint8Array): Promise<Uint8Array> {
    const head = this.store.head
    const state = this.stateAt(head)
    const nextBaseFee = this.common.isActivatedEIP(1559) ? head.header.calcNextBaseFee() : 0n
    const ptx = await validateTransaction(raw, {
      common: this.common,
      chainId: this.chainId,
      blockGasLimit: head.header.gasLimit,
      nextBaseFee,
      priceLimit: this.config.txpool.priceLimit,
      known: (hashHex) => this.pool.has(hashHex) || this.store.getTxLocation(hexBytes(hashHex)) !== undefined,
      account: async (sender) => {
        const account = await state.getAccount(new Address(sender))
        const nonce = account?.nonce ?? 0n
        this.#sealer?.noteNonce(`0x${Buffer.from(sender).toString('hex')}`, nonce)
        return { nonce, balance: account?.balance ?? 0n }
      },
    })
    this.pool.add(ptx)
    return ptx.hash
  }
}

function hexBytes(hex: string): Uint8Array {
  return Buffer.from(hex.slice(2), 'hex')
}

/**
 * The pool over the node's chain: PoolChain (admission parameters of the next block, the
 * mined-transaction lookup, account reads at the head) and the configured pool itself.
 */
import { isAbsolute, join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { Address } from '@ethereumjs/util'
import type { Database } from '../chain/db.js'
import type { ChainStore } from '../chain/store.js'
import type { IbexConfig } from '../config/types.js'
import type { Logger } from '../log.js'
import { stateAt } from '../state/index.js'
import { TxJournal } from './journal.js'
import { SenderRecovery } from './recovery.js'
import { type PoolChain, TransactionPool } from './pool.js'

export function createPoolChain(store: ChainStore, db: Database, common: Common, priceLimit: bigint): PoolChain {
  const chainId = common.chainId()
  return {
    admission() {
      const head = store.head.header
      return {
        common,
        chainId,
        blockGasLimit: head.gasLimit,
        nextBaseFee: common.isActivatedEIP(1559) ? head.calcNextBaseFee() : 0n,
        priceLimit,
      }
    },
    isMined: (hash) => store.getTxLocation(hash) !== undefined,
    accountReader() {
      const state = stateAt(db, common, store.head.header.stateRoot)
      return async (sender) => {
        const account = await state.getAccount(new Address(sender))
        return { nonce: account?.nonce ?? 0n, balance: account?.balance ?? 0n }
      }
    },
  }
}

/** The node's pool as configured: limits from `[txpool]`, the journal in the datadir. */
export function openTxPool(
  config: IbexConfig,
  deps: { store: ChainStore; db: Database; common: Common; log: Logger },
): TransactionPool {
  const t = config.txpool
  const journalPath = isAbsolute(t.journal) ? t.journal : join(config.datadir, t.journal)
  return new TransactionPool({
    chain: createPoolChain(deps.store, deps.db, deps.common, t.priceLimit),
    limits: {
      priceBumpPercent: t.priceBump,
      accountQueue: t.accountQueue,
      globalSlots: t.globalSlots,
      globalQueue: t.globalQueue,
      lifetimeMs: t.lifetimeMs,
      rejournalMs: t.rejournalMs,
    },
    journal: t.journal === '' ? undefined : new TxJournal(journalPath),
    log: deps.log,
    recovery: config.exec.recoverWorkers > 0 ? new SenderRecovery(config.exec.recoverWorkers) : undefined,
  })
}

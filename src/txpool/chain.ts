/**
 * The pool over the node's chain: PoolChain (admission parameters of the next block, the
 * mined-transaction lookup, account reads at the head) and the configured pool itself.
 */
import { isAbsolute, join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { Address, createAccountFromRLP } from '@ethereumjs/util'
import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import type { IbexConfig } from '../config/types.js'
import type { Logger } from '../log.js'
import { accountAt, stateAt } from '../state/index.js'
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
      const root = store.head.header.stateRoot
      let state: ReturnType<typeof stateAt> | undefined
      return async (sender) => {
        // the root's flat cache or its committed trie nodes; a state manager only when those miss
        const raw = accountAt(
          db,
          root,
          Buffer.from(sender.buffer, sender.byteOffset, sender.byteLength).toString('hex'),
        )
        if (raw === null) return { nonce: 0n, balance: 0n }
        if (raw !== undefined) {
          const account = createAccountFromRLP(raw)
          return { nonce: account.nonce, balance: account.balance }
        }
        state ??= stateAt(db, common, root)
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

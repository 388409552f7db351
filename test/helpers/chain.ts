/**
 * A dev chain opened in-process (no RPC, no CLI), for unit tests and benchmarks of block
 * building: genesis from the dev preset around `validator`, a BlockBuilder sealing with its key,
 * and an admission context reading the head state.
 */
import { join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { Address, hexToBytes } from '@ethereumjs/util'
import { createChainCommon, type GenesisJson } from '../../src/chain/common.js'
import { type Database, openDatabase } from '../../src/db/db.js'
import { buildGenesis } from '../../src/chain/genesis.js'
import { ChainStore } from '../../src/chain/store.js'
import type { ExplorerIndexes } from '../../src/chain/explorerIndex.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { buildGenesis as buildPresetGenesis } from '../../src/config/genesis.js'
import { stateAt, TrieStore } from '../../src/state/index.js'
import type { AdmissionContext } from '../../src/txpool/validate.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'

export interface TestChainOptions {
  validator: { address: string; privateKey: string }
  /** fsync block commits (default false: tests do not crash the process). */
  syncWrites?: boolean
  /** Extra genesis accounts, as a geth genesis' `alloc`. */
  alloc?: Record<string, { balance: string }>
  /** Genesis gas limit instead of the dev preset's. */
  gasLimit?: bigint
  /** The builder's transfers layer (default true). */
  fastTransfers?: boolean
  /** The explorer indexes written with each block (default none, as a bare ChainStore). */
  explorer?: ExplorerIndexes
}

export async function openTestChain(dir: string, opts: TestChainOptions) {
  const config = { ...defaultConfig('dev'), datadir: dir }
  const g = buildPresetGenesis(config, [opts.validator.address], opts.alloc === undefined ? undefined : { alloc: opts.alloc })
  if (opts.gasLimit !== undefined) g.gasLimit = `0x${opts.gasLimit.toString(16)}`
  const genesis = g as unknown as GenesisJson
  const common = createChainCommon(genesis)
  const db = await openDatabase(join(dir, 'chaindata'))
  const store = new ChainStore(db, common)
  if (opts.explorer !== undefined) store.setExplorerIndexes(opts.explorer)
  const trie = new TrieStore(db)
  if (!store.initialized) {
    const g = await buildGenesis(genesis, common, trie)
    await store.commitBlock(
      {
        hash: g.hash,
        headerRaw: g.headerRaw,
        transactionBytes: [],
        receipts: [],
        totalDifficulty: 1n,
        withdrawals: [],
      },
      trie,
      true,
    )
  }
  const builder = await BlockBuilder.create({
    store,
    common,
    trie,
    privateKey: hexToBytes(opts.validator.privateKey as `0x${string}`),
    coinbase: hexToBytes(opts.validator.address as `0x${string}`),
    baseFeeRecipient: undefined,
    syncWrites: opts.syncWrites ?? false,
    fastTransfers: opts.fastTransfers,
  })
  const admission = (): AdmissionContext => headAdmission(db, store, common)
  return { db, store, common, trie, builder, admission }
}

/** Admission checks against `store`'s current head state (no pool: nothing is known). */
export function headAdmission(db: Database, store: ChainStore, common: Common): AdmissionContext {
  const state = stateAt(db, common, store.head.header.stateRoot)
  return {
    common,
    chainId: common.chainId(),
    blockGasLimit: store.head.header.gasLimit,
    nextBaseFee: store.head.header.calcNextBaseFee(),
    priceLimit: 0n,
    known: () => false,
    account: async (a: Uint8Array) => {
      const acc = await state.getAccount(new Address(a))
      return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n }
    },
  }
}

// Unit tests below the pool's layer (state, evm, block, exec) build blocks from admitted
// transactions; they take the pool's admission from here rather than importing src/txpool.
export { validateTransaction } from '../../src/txpool/validate.js'
export type { PoolTx } from '../../src/txpool/index.js'

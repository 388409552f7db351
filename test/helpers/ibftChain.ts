/**
 * In-process IBFT chains for unit tests: a dev-preset genesis with four validators (dev accounts
 * 2-5), a node = database + store + IbftBlockImporter, and `decideNext` to build, seal with a
 * quorum and commit the next block as a validator set would. No production code imports it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { hexToBytes } from '@ethereumjs/util'

import { createChainCommon, type GenesisJson } from '../../src/chain/common.js'
import { openDatabase } from '../../src/db/db.js'
import { buildGenesis } from '../../src/chain/genesis.js'
import { ChainStore } from '../../src/chain/store.js'
import { devAccounts } from '../../src/config/accounts.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { buildGenesis as buildPresetGenesis } from '../../src/config/genesis.js'
import { signCommittedSeal } from '../../src/consensus/ibft/index.js'
import { TrieStore } from '../../src/state/index.js'
import type { PoolTx } from '../../src/txpool/index.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'
import { type CommittedBlock, IbftBlockImporter } from '../../src/consensus/ibftBlockImporter.js'

/** Dev accounts 0 and 1 are funded users; 2-5 are the validators. */
export const USERS = devAccounts(2)
export const VALIDATOR_ACCOUNTS = devAccounts(6).slice(2)
export const validatorKey = (i: number) =>
  hexToBytes((VALIDATOR_ACCOUNTS[i] as { privateKey: string }).privateKey as `0x${string}`)

export type IbftTestNode = Awaited<ReturnType<typeof openIbftTestNode>>

const dirs: string[] = []

/** Removes every directory openIbftTestNode made (call in afterAll). */
export function removeIbftTestNodes(): void {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
}

export async function openIbftTestNode() {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-ibft-node-'))
  dirs.push(dir)
  const config = { ...defaultConfig('dev'), datadir: dir }
  const genesis = buildPresetGenesis(
    config,
    VALIDATOR_ACCOUNTS.map((v) => v.address),
  ) as unknown as GenesisJson
  const common = createChainCommon(genesis)
  const db = await openDatabase(join(dir, 'chaindata'))
  const store = new ChainStore(db, common)
  const trie = new TrieStore(db)
  const g = await buildGenesis(genesis, common, trie)
  await store.commitBlock(
    { hash: g.hash, headerRaw: g.headerRaw, transactionBytes: [], receipts: [], totalDifficulty: 1n, withdrawals: [] },
    trie,
    false,
  )
  const committed: CommittedBlock[] = []
  const importer = new IbftBlockImporter({
    store,
    common,
    baseFeeRecipient: undefined,
    syncWrites: false,
    onCommitted: (c) => committed.push(c),
  })
  const builder = await BlockBuilder.create({
    store,
    common,
    trie,
    privateKey: validatorKey(0),
    coinbase: hexToBytes(VALIDATOR_ACCOUNTS[0]?.address as `0x${string}`),
    baseFeeRecipient: undefined,
    syncWrites: false,
  })
  return { dir, db, store, common, trie, importer, builder, committed }
}

/** Builds the next block (validator 0 proposes), seals it with validators 0-2 at `round` and commits it. */
export async function decideNext(node: IbftTestNode, txs: PoolTx[] = [], round = 0n) {
  const proposal = await node.builder.propose(txs, node.store.head.header.timestamp + 1n)
  const committedSeals = [0, 1, 2].map((i) => signCommittedSeal(proposal.hash, round, validatorKey(i)))
  await node.importer.commitDecided(proposal, { committedSeals, round })
  return { proposal, block: node.store.head }
}

/**
 * Differential test of the transfer fast path (transfers.ts): the same candidates executed with
 * it and with runTx alone must give the same state root, receipts, included and dropped lists —
 * for transfers it takes and for every kind it must hand back to runTx.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { Address, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import type { Common } from '@ethereumjs/common'
import { encodeStoredReceipts } from '../chain/receipt.js'
import { devAccounts } from '../config/accounts.js'
import { createStateManager, TrieStore } from '../state/index.js'
import { executeTransactions, finishHeader, nextHeaderFields } from './execute.js'
import { openTestChain, type PoolTx, validateTransaction } from '../../test/helpers/chain.js'
import { createChainVM } from '../evm/vm.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const accounts = devAccounts(10) as { address: string; privateKey: string }[]
const validator = accounts[9] as { address: string; privateKey: string }
const FRESH = `0x${'7a'.repeat(20)}`
/** Init code deploying a contract whose runtime is `STOP`. */
const DEPLOY_STOP = '0x600160008160098239f300'

type Fields = Record<string, unknown>

function sign(common: Common, from: number, fields: Fields) {
  const tx = createTx(
    {
      type: 2,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
      value: 1n,
      ...fields,
    } as never,
    { common },
  )
  return tx.sign(hexToBytes((accounts[from] as { privateKey: string }).privateKey as `0x${string}`)).serialize()
}

async function run(fast: boolean, dir: string) {
  const { db, store, common, admission } = await openTestChain(dir, { validator })
  const ctx = admission()
  const to = (i: number) => (accounts[i] as { address: string }).address
  const contract = createContractAddress(new Address(hexToBytes(to(0) as `0x${string}`)), 1n).toString()
  const raws = [
    sign(common, 0, { nonce: 0n, to: FRESH }), // fast: creates FRESH
    sign(common, 1, {
      type: 0,
      nonce: 0n,
      to: to(2),
      value: 5n,
      gasPrice: 10n ** 10n,
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
    }), // fast: legacy
    sign(common, 2, {
      type: 1,
      nonce: 0n,
      to: to(3),
      gasPrice: 10n ** 10n,
      accessList: [],
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
    }), // fast: 2930, empty list
    sign(common, 3, { nonce: 0n, to: `0x${'00'.repeat(19)}04`, gasLimit: 30_000n }), // runTx: precompile
    sign(common, 4, { nonce: 0n, to: `0x${'7b'.repeat(20)}`, value: 0n }), // runTx: zero value
    sign(common, 5, { nonce: 0n, to: to(5) }), // runTx: to self
    sign(common, 6, { nonce: 0n, to: validator.address }), // runTx: to the coinbase
    sign(common, 9, { nonce: 0n, to: to(0) }), // runTx: from the coinbase
    sign(common, 0, { nonce: 1n, to: undefined, data: DEPLOY_STOP, gasLimit: 100_000n, value: 0n }), // runTx: create
    sign(common, 1, { nonce: 1n, to: contract, gasLimit: 50_000n }), // runTx: recipient has code
    sign(common, 7, { nonce: 0n, to: to(1), gasLimit: 30_000n }), // fast: refund of unused gas
    sign(common, 8, { nonce: 0n, to: to(1), gasLimit: 30_000n, accessList: [{ address: to(2), storageKeys: [] }] }), // runTx: access list
    sign(common, 2, { nonce: 1n, to: FRESH, value: 10n ** 24n }), // both drop: funds
    sign(common, 3, { nonce: 5n, to: FRESH }), // both drop: nonce gap
    sign(common, 4, { nonce: 1n, to: FRESH, maxPriorityFeePerGas: 0n }), // runTx: zero tip
    sign(common, 0, { nonce: 2n, to: FRESH, value: 3n }), // fast: FRESH exists now
  ]
  const items: PoolTx[] = []
  for (const raw of raws)
    items.push(await validateTransaction(raw, { ...ctx, account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }))
  const parent = store.head
  const sm = createStateManager(new TrieStore(db), common, parent.header.stateRoot)
  const vm = await createChainVM(store, common, sm)
  // runTx cleans the journal when it starts and when it ends: count its runs
  const journal = vm.evm.journal
  const cleanup = journal.cleanup.bind(journal)
  let runTxCalls = 0
  journal.cleanup = async () => {
    runTxCalls++
    return cleanup()
  }
  const fields = nextHeaderFields(parent, common, {
    coinbase: hexToBytes(validator.address as `0x${string}`),
    timestamp: parent.header.timestamp + 1n,
    extraData: parent.header.extraData,
    gasLimit: parent.header.gasLimit,
  })
  const executed = await executeTransactions(vm, sm, common, fields, items, {
    strict: false,
    baseFeeRecipient: undefined,
    fastTransfers: fast,
  })
  const { header } = await finishHeader(sm, common, fields, executed)
  const result = {
    stateRoot: Buffer.from(header.stateRoot).toString('hex'),
    receiptsRoot: Buffer.from(header.receiptTrie).toString('hex'),
    receipts: Buffer.from(encodeStoredReceipts(executed.receipts)).toString('hex'),
    included: executed.included.map((p) => p.hashHex),
    dropped: executed.dropped.map((d) => d.ptx.hashHex),
    gasUsed: executed.gasUsed,
  }
  await db.close()
  return { result, runTxCalls }
}

describe('transfers without the EVM', () => {
  it('give exactly what runTx gives, and leave every other kind to runTx', async () => {
    const a = mkdtempSync(join(tmpdir(), 'ibex-transfers-fast-'))
    const b = mkdtempSync(join(tmpdir(), 'ibex-transfers-evm-'))
    dirs.push(a, b)
    const fast = await run(true, a)
    const evm = await run(false, b)
    expect(fast.result).toEqual(evm.result)
    expect(evm.result.included.length).toBe(14)
    expect(evm.result.dropped.length).toBe(2)
    // the five plain transfers skipped runTx, nothing else did
    expect((evm.runTxCalls - fast.runTxCalls) / 2).toBe(5)
  })
})

import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import type { Common } from '@ethereumjs/common'
import { devAccounts } from '../config/accounts.js'
import { decodeExtra, ibftBlockHash, verifySeals } from './ibft/index.js'
import { stateAt } from '../state/index.js'
import { validateTransaction } from '../txpool/validate.js'
import { openTestChain } from '../../test/helpers/chain.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const [alice, bob, validator] = devAccounts(3) as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]

function openChain(dir: string) {
  return openTestChain(dir, { validator })
}

function transfer(common: Common, nonce: bigint, value: bigint) {
  return createTx(
    {
      type: 2,
      nonce,
      to: bob.address as `0x${string}`,
      value,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    },
    { common },
  ).sign(hexToBytes(alice.privateKey as `0x${string}`))
}

describe('BlockBuilder', () => {
  it('executes, seals and commits a block that survives a reopen', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-builder-'))
    dirs.push(dir)
    const { db, store, common, builder, admission } = await openChain(dir)
    const ctx = admission()
    const ptx0 = await validateTransaction(transfer(common, 0n, 5n).serialize(), ctx)
    const ptx1 = await validateTransaction(transfer(common, 1n, 7n).serialize(), ctx)
    const { block, included, dropped } = await builder.build([ptx0, ptx1], store.head.header.timestamp + 1n)
    expect(dropped).toEqual([])
    expect(included.length).toBe(2)
    expect(block.header.number).toBe(1n)
    expect(block.header.gasUsed).toBe(42_000n)
    expect(bytesToHex(block.hash)).toBe(bytesToHex(ibftBlockHash(block.headerRaw)))
    const seals = verifySeals(block.headerRaw, decodeExtra(block.header.extraData).validators)
    expect(bytesToHex(seals.proposer)).toBe(validator.address.toLowerCase())
    const receipts = store.getReceipts(block.hash)
    expect(receipts?.map((r) => r.status)).toEqual([1, 1])
    const after = stateAt(db, common, block.header.stateRoot)
    expect((await after.getAccount(new Address(hexToBytes(bob.address as `0x${string}`))))?.balance).toBe(
      10_000n * 10n ** 18n + 12n,
    )
    // a second block carries the first one's committed seals as parent seals
    const { block: block2 } = await builder.build([], block.header.timestamp + 1n)
    expect(decodeExtra(block2.header.extraData).parentCommittedSeals).toEqual(
      decodeExtra(block.header.extraData).committedSeals,
    )
    await db.close()

    const reopened = await openChain(dir)
    expect(reopened.store.head.header.number).toBe(2n)
    expect(bytesToHex(reopened.store.getBlockByNumber(1n)?.hash as Uint8Array)).toBe(bytesToHex(block.hash))
    const loc = reopened.store.getTxLocation(ptx1.hash)
    expect(loc?.index).toBe(1)
    await reopened.db.close()
  })

  it('drops a transaction that became invalid and keeps building', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-builder-'))
    dirs.push(dir)
    const { db, store, common, builder, admission } = await openChain(dir)
    const ctx = admission()
    const ok = await validateTransaction(transfer(common, 0n, 1n).serialize(), ctx)
    // same nonce again: valid at admission, invalid once the first is executed
    const stale = await validateTransaction(transfer(common, 0n, 2n).serialize(), ctx)
    const { included, dropped } = await builder.build([ok, stale], store.head.header.timestamp + 1n)
    expect(included.map((p) => p.hashHex)).toEqual([ok.hashHex])
    expect(dropped.map((d) => d.ptx.hashHex)).toEqual([stale.hashHex])
    await db.close()
  })
})

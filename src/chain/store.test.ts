/**
 * ChainStore's stored blocks decode their transactions one at a time (blockTransaction): a block
 * read back from RocksDB answers transaction i from its bytes alone, the same object the full list
 * later holds, and nothing past the block's end.
 */
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { buildBlock, devKey, openDiffChain, sign } from '../../test/helpers/blocks.js'
import { keccak256 } from '../util/keccak.js'
import { blockTransaction, ChainStore } from './store.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('stored blocks decode transactions on demand', () => {
  it('answers one transaction of a block read back from the database, and the full list agrees', async () => {
    const c = await openDiffChain(dirs, 'layers')
    try {
      const key = devKey(0)
      const raws = [0n, 1n, 2n].map((nonce) =>
        sign(c.chain.common, key, { nonce, to: `0x${'ab'.repeat(20)}`, value: 1n + nonce, gasLimit: 21_000n }),
      )
      await buildBlock(c, raws)
      // a second store on the same database: its blocks come from disk, not the builder's objects
      const fresh = new ChainStore(c.chain.db, c.chain.common)
      const block = fresh.getBlockByNumber(1n)
      expect(block).toBeDefined()
      if (block === undefined) return
      expect(block.transactionBytes).toHaveLength(3)

      const second = blockTransaction(block, 1)
      expect(second?.value).toBe(2n)
      expect(Buffer.from(second?.hash() ?? []).toString('hex')).toBe(
        Buffer.from(keccak256(block.transactionBytes[1] as Uint8Array)).toString('hex'),
      )
      expect(blockTransaction(block, 1)).toBe(second)
      expect(blockTransaction(block, 3)).toBeUndefined()
      expect(blockTransaction(block, -1)).toBeUndefined()
      expect(blockTransaction(block, 0.5)).toBeUndefined()

      const all = block.transactions
      expect(all.map((tx) => tx.value)).toEqual([1n, 2n, 3n])
      expect(all[1]).toBe(second)
      expect(block.transactions).toBe(all)
    } finally {
      await c.close()
    }
  })
})

describe('one receipt of a stored block', () => {
  it('is the same read from disk alone and from the kept decoded receipts, with its log positions', async () => {
    const c = await openDiffChain(dirs, 'layers')
    try {
      const key = devKey(0)
      const raws = [0n, 1n, 2n, 3n].map((nonce) =>
        sign(c.chain.common, key, { nonce, to: `0x${'cd'.repeat(20)}`, value: 5n + nonce, gasLimit: 21_000n }),
      )
      await buildBlock(c, raws)
      const fresh = new ChainStore(c.chain.db, c.chain.common)
      const block = fresh.getBlockByNumber(1n)
      if (block === undefined) throw new Error('block 1 not stored')
      // nothing decoded yet: from the stored bytes
      const fromDisk = [0, 1, 2, 3].map((i) => fresh.getReceipt(block.hash, i))
      expect(fresh.getReceipt(block.hash, 4)).toBeUndefined()
      const all = fresh.getReceipts(block.hash) ?? []
      expect(all).toHaveLength(4)
      for (let i = 0; i < 4; i++) {
        expect(fromDisk[i]?.receipt.cumulativeGasUsed).toBe(all[i]?.cumulativeGasUsed)
        expect(fromDisk[i]?.receipt.gasUsed).toBe(21_000n)
        expect(fromDisk[i]).toMatchObject({ firstLogIndex: 0, blockLogCount: 0 })
        // now kept decoded: the same receipt object the list holds
        expect(fresh.getReceipt(block.hash, i)?.receipt).toBe(all[i])
      }
      expect(fresh.getReceipt(block.hash, 4)).toBeUndefined()
    } finally {
      await c.close()
    }
  })
})

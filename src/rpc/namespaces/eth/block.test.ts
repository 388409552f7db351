/** The eth_ block and transaction lookups over a fake backend holding three real blocks. */
import { describe, expect, it } from 'vitest'
import type { Backend } from '../../backend.js'
import { toData } from '../../../util/hex.js'
import { callMethod, chainOf, fakeBackend, poolTx, SENDER, testBlock, transfer } from '../testing.js'
import { ethNamespace } from './index.js'

const GWEI = 1_000_000_000n
const mined = [transfer(0n, 3n * GWEI, 2n * GWEI), transfer(1n, 3n * GWEI, GWEI)]
const blocks = [testBlock(0n), testBlock(1n, mined), testBlock(2n)]
const waiting = transfer(2n, 3n * GWEI, GWEI)
const [, withTxs, head] = blocks as [unknown, NonNullable<(typeof blocks)[1]>, NonNullable<(typeof blocks)[2]>]

function backend(): Backend {
  const locations = new Map(
    mined.map((tx, index) => [toData(tx.hash()), { blockHash: withTxs.hash, blockNumber: 1n, index }]),
  )
  return fakeBackend({
    ...chainOf(blocks),
    txLocation: (hash) => locations.get(toData(hash)),
    poolTransaction: (hash) => (toData(hash) === toData(waiting.hash()) ? poolTx(waiting) : undefined),
  })
}

describe('eth_getBlockByNumber / eth_getBlockByHash', () => {
  it('answer the block the reference names, hashes only', async () => {
    const { result } = await callMethod(ethNamespace, backend(), 'eth_getBlockByNumber', ['0x1', false])
    expect(result).toMatchObject({
      number: '0x1',
      hash: toData(withTxs.hash),
      transactions: mined.map((tx) => toData(tx.hash())),
    })
    const byTag = await callMethod(ethNamespace, backend(), 'eth_getBlockByNumber', ['latest', false])
    expect(byTag.result).toMatchObject({ number: '0x2', hash: toData(head.hash), transactions: [] })
    const byHash = await callMethod(ethNamespace, backend(), 'eth_getBlockByHash', [toData(withTxs.hash), false])
    expect(byHash.result).toEqual(result)
  })

  it('give full transactions with their senders from the receipts', async () => {
    const { result } = await callMethod(ethNamespace, backend(), 'eth_getBlockByNumber', ['0x1', true])
    const txs = (result as { transactions: Record<string, unknown>[] }).transactions
    expect(txs.map((t) => [t.hash, t.from, t.transactionIndex])).toEqual([
      [toData(mined[0]?.hash() as Uint8Array), SENDER.address, '0x0'],
      [toData(mined[1]?.hash() as Uint8Array), SENDER.address, '0x1'],
    ])
  })

  it('answer null for a block the chain does not have', async () => {
    expect(await callMethod(ethNamespace, backend(), 'eth_getBlockByNumber', ['0x7', false])).toEqual({ result: null })
    expect(await callMethod(ethNamespace, backend(), 'eth_getBlockByHash', [`0x${'cd'.repeat(32)}`, false])).toEqual({
      result: null,
    })
  })

  it('require the full-transactions flag', async () => {
    const answer = await callMethod(ethNamespace, backend(), 'eth_getBlockByNumber', ['0x1'])
    expect(answer.error).toEqual({ code: -32602, message: 'missing value for required argument 1' })
  })
})

describe('counts and receipts of a block', () => {
  it('count transactions and uncles, null for an unknown block', async () => {
    const b = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getBlockTransactionCountByNumber', ['0x1'])).toEqual({
      result: '0x2',
    })
    expect(await callMethod(ethNamespace, b, 'eth_getBlockTransactionCountByHash', [toData(head.hash)])).toEqual({
      result: '0x0',
    })
    expect(await callMethod(ethNamespace, b, 'eth_getUncleCountByBlockNumber', ['0x1'])).toEqual({ result: '0x0' })
    expect(await callMethod(ethNamespace, b, 'eth_getBlockTransactionCountByNumber', ['0x9'])).toEqual({ result: null })
  })

  it("answer a block's receipts in order", async () => {
    const { result } = await callMethod(ethNamespace, backend(), 'eth_getBlockReceipts', ['0x1'])
    const receipts = result as Record<string, unknown>[]
    expect(receipts.map((r) => [r.transactionHash, r.cumulativeGasUsed, r.status])).toEqual([
      [toData(mined[0]?.hash() as Uint8Array), '0x5208', '0x1'],
      [toData(mined[1]?.hash() as Uint8Array), '0xa410', '0x1'],
    ])
  })
})

describe('transactions by hash', () => {
  it('find a mined transaction with its block, then a waiting one in the pool', async () => {
    const b = backend()
    const minedTx = await callMethod(ethNamespace, b, 'eth_getTransactionByHash', [
      toData(mined[1]?.hash() as Uint8Array),
    ])
    expect(minedTx.result).toMatchObject({
      blockHash: toData(withTxs.hash),
      blockNumber: '0x1',
      transactionIndex: '0x1',
      nonce: '0x1',
    })
    const pending = await callMethod(ethNamespace, b, 'eth_getTransactionByHash', [toData(waiting.hash())])
    expect(pending.result).toMatchObject({ blockHash: null, blockNumber: null, from: SENDER.address, nonce: '0x2' })
    expect(await callMethod(ethNamespace, b, 'eth_getTransactionByHash', [`0x${'ee'.repeat(32)}`])).toEqual({
      result: null,
    })
  })

  it('answer raw bytes from the block or the pool', async () => {
    const b = backend()
    expect(
      await callMethod(ethNamespace, b, 'eth_getRawTransactionByHash', [toData(mined[0]?.hash() as Uint8Array)]),
    ).toEqual({
      result: toData(mined[0]?.serialize() as Uint8Array),
    })
    expect(await callMethod(ethNamespace, b, 'eth_getRawTransactionByBlockNumberAndIndex', ['0x1', '0x1'])).toEqual({
      result: toData(mined[1]?.serialize() as Uint8Array),
    })
    expect(await callMethod(ethNamespace, b, 'eth_getRawTransactionByBlockNumberAndIndex', ['0x1', '0x5'])).toEqual({
      result: '0x',
    })
    expect(await callMethod(ethNamespace, b, 'eth_getRawTransactionByHash', [toData(waiting.hash())])).toEqual({
      result: toData(waiting.serialize()),
    })
  })

  it('answer a receipt of a mined transaction, null for one still waiting', async () => {
    const b = backend()
    const { result } = await callMethod(ethNamespace, b, 'eth_getTransactionReceipt', [
      toData(mined[1]?.hash() as Uint8Array),
    ])
    expect(result).toMatchObject({
      transactionIndex: '0x1',
      gasUsed: '0x5208',
      from: SENDER.address,
      blockNumber: '0x1',
    })
    expect(await callMethod(ethNamespace, b, 'eth_getTransactionReceipt', [toData(waiting.hash())])).toEqual({
      result: null,
    })
  })
})

describe('answers formatted before', () => {
  /** A chain of its own (nonces and base fee from `nonce`: its own block hashes), so that no other test has formatted its objects yet. */
  function ownChain(nonce: bigint) {
    const txs = [transfer(nonce, 50n * GWEI, GWEI), transfer(nonce + 1n, 50n * GWEI, 2n * GWEI)]
    const blocks = [testBlock(0n, [], nonce * GWEI), testBlock(1n, txs, nonce * GWEI)]
    return { txs, blocks, own: blocks[1] as NonNullable<(typeof blocks)[1]> }
  }

  /** A backend over `chain` and how many times a block was read through it. */
  function counting({ txs, blocks, own }: ReturnType<typeof ownChain>): { b: Backend; reads: () => number } {
    const chain = chainOf(blocks)
    let reads = 0
    const locations = new Map(
      txs.map((tx, index) => [toData(tx.hash()), { blockHash: own.hash, blockNumber: 1n, index }]),
    )
    const b = fakeBackend({
      ...chain,
      blockByHash: (hash) => {
        reads++
        return chain.blockByHash?.(hash)
      },
      blockByNumber: (n) => {
        reads++
        return chain.blockByNumber?.(n)
      },
      txLocation: (hash) => locations.get(toData(hash)),
      poolTransaction: () => undefined,
    })
    return { b, reads: () => reads }
  }

  it('a receipt, a transaction and a block are answered again without reading the block', async () => {
    const chain = ownChain(7n)
    const { b, reads } = counting(chain)
    const hash = toData(chain.txs[1]?.hash() as Uint8Array)
    const calls: [string, unknown[]][] = [
      ['eth_getTransactionReceipt', [hash]],
      ['eth_getTransactionByHash', [hash]],
      ['eth_getBlockByNumber', ['0x1', false]],
      ['eth_getBlockByHash', [toData(chain.own.hash), true]],
    ]
    for (const [name, params] of calls) {
      const before = reads()
      const first = await callMethod(ethNamespace, b, name, params)
      expect(reads(), name).toBeGreaterThan(before)
      const readsAfterFirst = reads()
      const again = await callMethod(ethNamespace, b, name, params)
      expect(reads(), `${name} read its block again`).toBe(readsAfterFirst)
      expect(again, name).toEqual(first)
    }
    expect((await callMethod(ethNamespace, b, 'eth_getTransactionReceipt', [hash])).result).toMatchObject({
      blockHash: toData(chain.own.hash),
      transactionIndex: '0x1',
      transactionHash: hash,
    })
  })

  it('a kept block is not the answer for the other detail, another number or a number past the head', async () => {
    const chain = ownChain(11n)
    const { b, reads } = counting(chain)
    await callMethod(ethNamespace, b, 'eth_getBlockByNumber', ['0x1', false])
    const before = reads()
    const full = await callMethod(ethNamespace, b, 'eth_getBlockByNumber', ['0x1', true])
    expect(reads()).toBeGreaterThan(before)
    expect((full.result as { transactions: unknown[] }).transactions[0]).toMatchObject({
      hash: toData(chain.txs[0]?.hash() as Uint8Array),
    })
    expect((await callMethod(ethNamespace, b, 'eth_getBlockByNumber', ['0x0', false])).result).toMatchObject({
      number: '0x0',
    })
    expect(await callMethod(ethNamespace, b, 'eth_getBlockByNumber', ['0x5', false])).toEqual({ result: null })
  })
})

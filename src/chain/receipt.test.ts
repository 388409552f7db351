/**
 * storedReceiptAt (one receipt of a block's stored receipts, the others only walked) against
 * decodeStoredReceipts (all of them decoded): the same receipt and the same log positions, for
 * random blocks of receipts with no logs, many logs, failures, contract creations and blob fields.
 */
import { describe, expect, it } from 'vitest'
import { prng } from '../util/prng.js'
import { decodeStoredReceipts, encodeStoredReceipts, type StoredReceipt, storedReceiptAt } from './receipt.js'

function randomBlock(rand: () => number): StoredReceipt[] {
  const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256))
  const count = Math.floor(rand() * 40)
  let cumulative = 0n
  return Array.from({ length: count }, () => {
    const gasUsed = 21_000n + BigInt(Math.floor(rand() * 1_000_000))
    cumulative += gasUsed
    const logs = Array.from({ length: rand() < 0.3 ? 0 : Math.floor(rand() * 6) }, () => [
      bytes(20),
      Array.from({ length: Math.floor(rand() * 5) }, () => bytes(32)),
      bytes(Math.floor(rand() * (rand() < 0.1 ? 300 : 64))),
    ]) as StoredReceipt['logs']
    const type = Math.floor(rand() * 4)
    return {
      type,
      status: rand() < 0.2 ? 0 : 1,
      root: undefined,
      cumulativeGasUsed: cumulative,
      gasUsed,
      logs,
      from: bytes(20),
      contractAddress: rand() < 0.1 ? bytes(20) : undefined,
      effectiveGasPrice: BigInt(Math.floor(rand() * 1e12)),
      blobGasUsed: type === 3 ? 131_072n : 0n,
      blobGasPrice: type === 3 ? 1n : 0n,
    }
  })
}

/** A receipt (and its position) as text: bytes as hex, bigints as decimals, compared as strings. */
function text(x: unknown): string {
  return JSON.stringify(x, (_, v) =>
    v instanceof Uint8Array ? Buffer.from(v).toString('hex') : typeof v === 'bigint' ? `${v}n` : v,
  )
}

describe('storedReceiptAt', () => {
  it('answers the receipt decodeStoredReceipts decodes, with its first log index and the block log count', () => {
    const rand = prng(91)
    for (let b = 0; b < 100; b++) {
      const stored = encodeStoredReceipts(randomBlock(rand))
      const all = decodeStoredReceipts(stored)
      const total = all.reduce((n, r) => n + r.logs.length, 0)
      let before = 0
      for (let i = 0; i < all.length; i++) {
        const one = storedReceiptAt(Buffer.from(stored), i)
        expect(text(one)).toBe(text({ receipt: all[i], firstLogIndex: before, blockLogCount: total }))
        before += (all[i] as StoredReceipt).logs.length
      }
      expect(storedReceiptAt(stored, all.length)).toBeUndefined()
    }
  })

  it('answers undefined for bytes that are not stored receipts', () => {
    const stored = encodeStoredReceipts(randomBlock(prng(5)).slice(0, 3))
    expect(storedReceiptAt(stored.subarray(0, stored.length - 1), 0)).toBeUndefined()
    expect(storedReceiptAt(Uint8Array.of(0x83, 1, 2, 3), 0)).toBeUndefined()
    expect(storedReceiptAt(Uint8Array.of(0xc2, 0x01, 0x02), 0)).toBeUndefined()
  })
})

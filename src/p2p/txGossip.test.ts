/**
 * Transaction gossip batches: what is added within the window goes out as one message, a full
 * batch goes at once, the encoding round-trips and a malformed batch decodes to nothing.
 */
import { RLP } from '@ethereumjs/rlp'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'

import {
  decodeTxBatch,
  encodeTxBatch,
  TX_GOSSIP_BATCH_MAX_BYTES,
  TX_GOSSIP_BATCH_MAX_TXS,
  TX_GOSSIP_BATCH_MS,
  TxGossipBatcher,
} from './txGossip.js'

const raw = (i: number, size = 110) => new Uint8Array(size).fill(i % 256)

describe('TxGossipBatcher', () => {
  beforeEach(() => {
    vi.useFakeTimers()
  })
  afterEach(() => {
    vi.useRealTimers()
  })

  it('sends the transactions of one window as one message', () => {
    const sent: Uint8Array[][] = []
    const b = new TxGossipBatcher((batch) => sent.push(decodeTxBatch(batch) as Uint8Array[]))
    for (let i = 0; i < 10; i++) b.add(raw(i))
    expect(sent).toEqual([])
    vi.advanceTimersByTime(TX_GOSSIP_BATCH_MS - 1)
    expect(sent).toEqual([])
    vi.advanceTimersByTime(1)
    expect(sent).toHaveLength(1)
    expect(sent[0]).toEqual(Array.from({ length: 10 }, (_, i) => raw(i)))
    b.add(raw(11))
    vi.advanceTimersByTime(TX_GOSSIP_BATCH_MS)
    expect(sent).toHaveLength(2)
    expect(sent[1]).toEqual([raw(11)])
  })

  it('sends a full batch at once, by count or by size', () => {
    const sent: number[] = []
    const b = new TxGossipBatcher((batch) => sent.push((decodeTxBatch(batch) as Uint8Array[]).length))
    for (let i = 0; i < TX_GOSSIP_BATCH_MAX_TXS + 1; i++) b.add(raw(i))
    expect(sent).toEqual([TX_GOSSIP_BATCH_MAX_TXS])
    vi.advanceTimersByTime(TX_GOSSIP_BATCH_MS)
    expect(sent).toEqual([TX_GOSSIP_BATCH_MAX_TXS, 1])
    const big = Math.ceil(TX_GOSSIP_BATCH_MAX_BYTES / 4)
    for (let i = 0; i < 4; i++) b.add(raw(i, big))
    expect(sent).toEqual([TX_GOSSIP_BATCH_MAX_TXS, 1, 4])
  })

  it('stop drops what waits; flush with nothing sends nothing', () => {
    const sent: Uint8Array[] = []
    const b = new TxGossipBatcher((batch) => sent.push(batch))
    b.flush()
    b.add(raw(1))
    b.stop()
    vi.advanceTimersByTime(TX_GOSSIP_BATCH_MS * 2)
    expect(sent).toEqual([])
  })
})

describe('tx batch encoding', () => {
  it('round-trips raw transactions (typed and legacy bytes alike)', () => {
    const raws = [Uint8Array.of(2, 0xf8, 1, 2), RLP.encode([Uint8Array.of(1), Uint8Array.of(2)])]
    expect(decodeTxBatch(encodeTxBatch(raws))).toEqual(raws)
    expect(decodeTxBatch(encodeTxBatch([]))).toEqual([])
  })

  it('refuses what is not a list of byte strings', () => {
    expect(decodeTxBatch(Uint8Array.of(0xff))).toBeUndefined()
    expect(decodeTxBatch(RLP.encode(Uint8Array.of(1, 2)))).toBeUndefined()
    expect(decodeTxBatch(RLP.encode([Uint8Array.of(1), [Uint8Array.of(2)]]))).toBeUndefined()
  })
})

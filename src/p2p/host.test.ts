/**
 * Gossip message ids: a copy of a message is recognised on the received frame (fastMsgIdFn),
 * before its signature is checked, with the same equivalence as the message id proper.
 */
import { describe, expect, it } from 'vitest'

import { fastMessageId, gossipOptions } from './host.js'

const CONTENT = new Set(['/t/tx'])
const bytes = (...b: number[]) => Uint8Array.from(b)

describe('gossip message ids', () => {
  it('drops copies before the signature check: the options carry the fast id', () => {
    const o = gossipOptions(CONTENT)
    expect(o.fastMsgIdFn).toBeTypeOf('function')
    const frame = { topic: '/t/tx', data: bytes(1, 2, 3), from: bytes(9), seqno: bytes(1), signature: bytes(7) }
    // a copy with another signature (or none) has the same id: it is dropped as a duplicate unverified
    expect(o.fastMsgIdFn?.({ ...frame, signature: bytes(8) })).toBe(o.fastMsgIdFn?.(frame))
  })

  it('on a content topic: one id per payload, whoever published it', () => {
    const a = fastMessageId({ topic: '/t/tx', data: bytes(1, 2), from: bytes(1), seqno: bytes(1) }, CONTENT)
    const b = fastMessageId({ topic: '/t/tx', data: bytes(1, 2), from: bytes(2), seqno: bytes(5) }, CONTENT)
    expect(a).toBe(b)
    expect(fastMessageId({ topic: '/t/tx', data: bytes(1, 3) }, CONTENT)).not.toBe(a)
    expect(fastMessageId({ topic: '/t/other-tx', data: bytes(1, 2) }, new Set(['/t/other-tx']))).not.toBe(a)
  })

  it('elsewhere (IBFT): the publisher and sequence number count, so a re-sent message is new', () => {
    const m = { topic: '/t/ibft', data: bytes(1, 2), from: bytes(1), seqno: bytes(1) }
    const id = fastMessageId(m, CONTENT)
    expect(fastMessageId({ ...m }, CONTENT)).toBe(id)
    expect(fastMessageId({ ...m, seqno: bytes(2) }, CONTENT)).not.toBe(id)
    expect(fastMessageId({ ...m, from: bytes(2) }, CONTENT)).not.toBe(id)
  })
})

import { describe, expect, it } from 'vitest'
import type { CallRequest } from '../../evm/call.js'
import { callKey, callResults } from './callCache.js'

const hash = (n: number) => new Uint8Array(32).fill(n)
const req = (data: number): CallRequest => ({ to: new Uint8Array(20).fill(9), data: Uint8Array.of(0x70, data) })

describe('callKey', () => {
  it('names the block by its hash content: a hash array changed in place names the new block', () => {
    const h = hash(1)
    const first = callKey(h, req(1), 50_000_000n)
    expect(callKey(hash(1), req(1), 50_000_000n)).toBe(first)
    h[31] = 2
    const moved = callKey(h, req(1), 50_000_000n)
    expect(moved).not.toBe(first)
    expect(moved).toContain(Buffer.from(h).toString('hex'))
    expect(callKey(hash(1), req(1), 50_000_000n)).toBe(first)
  })

  it('differs by gas cap and by every message byte', () => {
    const a = callKey(hash(3), req(1), 50_000_000n)
    expect(callKey(hash(3), req(2), 50_000_000n)).not.toBe(a)
    expect(callKey(hash(3), req(1), 1n)).not.toBe(a)
  })
})

describe('callResults', () => {
  it('keeps a result the second time its key is answered, then serves it', () => {
    callResults.clear()
    const key = callKey(hash(4), req(7), 1n) as string
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toBeUndefined()
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toEqual({ reverted: false, data: Uint8Array.of(1) })
    // a third answer (two identical calls were in flight) keeps the one entry
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toEqual({ reverted: false, data: Uint8Array.of(1) })
    callResults.clear()
    expect(callResults.get(key)).toBeUndefined()
    // clear forgets the keys seen too
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toBeUndefined()
  })

  it('keeps nothing of calls that do not come back', () => {
    callResults.clear()
    const keys = Array.from({ length: 5000 }, (_, i) => callKey(hash(5), req(i & 0xff), BigInt(i)) as string)
    for (const k of keys) callResults.set(k, { reverted: false, data: Uint8Array.of(2) })
    expect(keys.filter((k) => callResults.get(k) !== undefined).length).toBe(0)
    for (const k of keys) callResults.set(k, { reverted: false, data: Uint8Array.of(2) })
    // seen twice: nearly all kept (of two keys sharing a slot, only the later one is remembered: ~4% here)
    expect(keys.filter((k) => callResults.get(k) !== undefined).length).toBeGreaterThan(4700)
    callResults.clear()
  })
})

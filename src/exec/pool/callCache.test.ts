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
  it('serves a key set twice (two identical calls answered) as one entry', () => {
    const key = callKey(hash(4), req(7), 1n) as string
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toEqual({ reverted: false, data: Uint8Array.of(1) })
    callResults.clear()
    expect(callResults.get(key)).toBeUndefined()
  })
})

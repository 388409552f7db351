import { describe, expect, it } from 'vitest'
import type { CallRequest } from '../../evm/call.js'
import { CALL_CACHE_MAX_INPUT_BYTES, callFingerprint, callKey, callResults } from './callCache.js'

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

describe('callFingerprint', () => {
  it('is the same for the same call and differs by block hash, gas cap and every byte field', () => {
    const a = callFingerprint(hash(3), req(1), 50_000_000n)
    expect(a).toBeTypeOf('number')
    expect(callFingerprint(hash(3), req(1), 50_000_000n)).toBe(a)
    expect(callFingerprint(hash(4), req(1), 50_000_000n)).not.toBe(a)
    expect(callFingerprint(hash(3), req(2), 50_000_000n)).not.toBe(a)
    expect(callFingerprint(hash(3), req(1), 1n)).not.toBe(a)
    expect(callFingerprint(hash(3), { ...req(1), from: new Uint8Array(20).fill(1) }, 50_000_000n)).not.toBe(a)
    expect(callFingerprint(hash(3), { ...req(1), to: new Uint8Array(20).fill(8) }, 50_000_000n)).not.toBe(a)
    // a byte moved from the end of one field to the start of the next is another call
    const split = (to: number[], data: number[]) =>
      callFingerprint(hash(3), { to: Uint8Array.from(to), data: Uint8Array.from(data) }, 1n)
    expect(split([1, 2], [3])).not.toBe(split([1], [2, 3]))
    expect(split([], [1])).not.toBe(split([1], []))
  })

  it('is undefined, as the key is, for calls not worth caching', () => {
    const big: CallRequest = { to: new Uint8Array(20), data: new Uint8Array(CALL_CACHE_MAX_INPUT_BYTES + 1) }
    expect(callFingerprint(hash(1), big, 1n)).toBeUndefined()
    expect(callKey(hash(1), big, 1n)).toBeUndefined()
    const blob: CallRequest = { ...req(1), blobVersionedHashes: [new Uint8Array(32)] }
    expect(callFingerprint(hash(1), blob, 1n)).toBeUndefined()
  })
})

describe('callResults', () => {
  it('remembers the fingerprints it was shown, and clear() forgets them with the results', () => {
    callResults.clear()
    const fp = callFingerprint(hash(4), req(7), 1n) as number
    expect(callResults.seen(fp)).toBe(false)
    callResults.see(fp)
    expect(callResults.seen(fp)).toBe(true)
    const key = callKey(hash(4), req(7), 1n) as string
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toEqual({ reverted: false, data: Uint8Array.of(1) })
    // a second answer (two identical calls were in flight) keeps the one entry
    callResults.set(key, { reverted: false, data: Uint8Array.of(1) })
    expect(callResults.get(key)).toEqual({ reverted: false, data: Uint8Array.of(1) })
    callResults.clear()
    expect(callResults.get(key)).toBeUndefined()
    expect(callResults.seen(fp)).toBe(false)
  })

  it('remembers nearly all of 5,000 distinct calls it was shown', () => {
    callResults.clear()
    const fps = Array.from({ length: 5000 }, (_, i) => callFingerprint(hash(5), req(i & 0xff), BigInt(i)) as number)
    expect(fps.filter((f) => callResults.seen(f)).length).toBe(0)
    for (const f of fps) callResults.see(f)
    // of two fingerprints sharing a slot, only the later one is remembered: ~4% here
    expect(fps.filter((f) => callResults.seen(f)).length).toBeGreaterThan(4700)
    callResults.clear()
  })
})

import { describe, expect, it } from 'vitest'
import { Doorkeeper, fnvBytes, fnvEnd, fnvStart } from './doorkeeper.js'

describe('Doorkeeper', () => {
  it('admits a key the second time, and forgets everything on clear()', () => {
    const d = new Doorkeeper(1 << 10)
    expect(d.admit('a')).toBe(false)
    expect(d.admit('a')).toBe(true)
    expect(d.admit('a')).toBe(true)
    expect(d.admit('b')).toBe(false)
    d.clear()
    expect(d.admit('a')).toBe(false)
  })

  it('a fingerprint loses its slot to a later one sharing it', () => {
    const d = new Doorkeeper(1 << 4)
    d.see(5)
    d.see(5 + 16)
    expect(d.seen(5)).toBe(false)
    expect(d.seen(5 + 16)).toBe(true)
  })

  it('spreads keys that differ in their last characters over the slots (the finish mixes high bits down)', () => {
    const d = new Doorkeeper(1 << 17)
    const keys = Array.from({ length: 5000 }, (_, i) => `${'f'.repeat(100)}${i}`)
    for (const k of keys) d.admit(k)
    // 5,000 random keys in 131,072 slots share a slot ~2% of the time
    expect(keys.filter((k) => d.admit(k)).length).toBeGreaterThan(4800)
  })

  it('tells byte fields apart by where they end', () => {
    const fp = (a: number[], b: number[]) =>
      fnvEnd(fnvBytes(fnvBytes(fnvStart(), Uint8Array.from(a)), Uint8Array.from(b)))
    expect(fp([1, 2], [3])).not.toBe(fp([1], [2, 3]))
    expect(fp([], [1])).not.toBe(fp([1], []))
    expect(fnvEnd(fnvBytes(fnvStart(), undefined))).not.toBe(fnvEnd(fnvBytes(fnvStart(), new Uint8Array(0))))
  })

  it('refuses a slot count that is not a power of two', () => {
    expect(() => new Doorkeeper(1000)).toThrow(/power of two, got 1000/)
    expect(() => new Doorkeeper(0)).toThrow(/power of two/)
  })
})

/** Keys of the formatted-object caches: the remembered and the one-off form name the same entry. */
import { describe, expect, it } from 'vitest'
import { keyOf, keyOfOnce } from './cache.js'

describe('keyOf / keyOfOnce', () => {
  it('agree for a hash and for a view of it inside a longer row', () => {
    const hash = Uint8Array.from({ length: 32 }, (_, i) => i * 7)
    const row = new Uint8Array(40)
    row.set(hash, 5)
    const view = row.subarray(5, 37)
    expect(keyOfOnce(view, 3)).toBe(keyOf(hash, 3))
    expect(keyOfOnce(hash, 'full')).toBe(keyOf(view, 'full'))
    expect(keyOf(hash, 3)).toBe(`${Buffer.from(hash).toString('hex')}:3`)
  })

  it('tell positions and details apart', () => {
    const hash = new Uint8Array(32).fill(9)
    expect(keyOfOnce(hash, 1)).not.toBe(keyOfOnce(hash, 11))
    expect(keyOfOnce(hash, 'full')).not.toBe(keyOfOnce(hash, 'hashes'))
  })
})

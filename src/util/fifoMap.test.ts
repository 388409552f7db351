import { describe, expect, it } from 'vitest'
import { FifoMap } from './fifoMap.js'

describe('FifoMap', () => {
  it('gives up its entries oldest first, across the ring growing and wrapping', () => {
    const m = new FifoMap<string, number>()
    const kept: number[] = []
    let next = 0
    // insertions and evictions interleaved so the ring wraps before and after it grows
    for (let round = 0; round < 5; round++) {
      for (let i = 0; i < 7 + round * 9; i++) {
        m.set(`k${next}`, next)
        kept.push(next++)
      }
      for (let i = 0; i < 5; i++) expect(m.shift()).toEqual([`k${kept[0]}`, kept.shift()])
      expect(m.size).toBe(kept.length)
    }
    for (const v of kept) expect(m.get(`k${v}`)).toBe(v)
    while (kept.length > 0) expect(m.shift()).toEqual([`k${kept[0]}`, kept.shift()])
    expect(m.shift()).toBeUndefined()
  })

  it('a known key keeps its place when its value changes; clear empties it', () => {
    const m = new FifoMap<number, string>()
    expect(m.set(1, 'a')).toBe(true)
    expect(m.set(2, 'b')).toBe(true)
    expect(m.set(1, 'c')).toBe(false)
    expect(m.size).toBe(2)
    expect(m.has(1)).toBe(true)
    expect(m.shift()).toEqual([1, 'c'])
    expect(m.shift()).toEqual([2, 'b'])
    m.set(3, 'd')
    m.clear()
    expect(m.size).toBe(0)
    expect(m.get(3)).toBeUndefined()
    m.set(4, 'e')
    expect(m.shift()).toEqual([4, 'e'])
  })
})

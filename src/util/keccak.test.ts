import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { keccak256 } from './keccak.js'

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex')
}

describe('keccak256', () => {
  it('matches the known vectors', () => {
    expect(hex(keccak256(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
    expect(hex(keccak256(Buffer.from('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45')
  })

  it('matches @noble/hashes on every length up to 1,100 bytes', () => {
    let seed = 1
    const rand = () => {
      seed = (seed * 1103515245 + 12345) >>> 0
      return seed >>> 24
    }
    for (let n = 0; n <= 1100; n++) {
      const data = new Uint8Array(n)
      for (let i = 0; i < n; i++) data[i] = rand()
      expect(hex(keccak256(data)), `length ${n}`).toBe(hex(keccak_256(data)))
    }
  })

  it('reads views at an offset and returns a fresh array each time', () => {
    const buf = new Uint8Array(300).map((_, i) => i)
    const view = buf.subarray(7, 207)
    const a = keccak256(view)
    const b = keccak256(view)
    expect(hex(a)).toBe(hex(keccak_256(view)))
    expect(a).not.toBe(b)
    a[0] = (a[0] as number) ^ 1
    expect(hex(b)).toBe(hex(keccak_256(view)))
  })
})

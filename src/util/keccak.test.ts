import { keccak_256 } from '@noble/hashes/sha3.js'
import { describe, expect, it } from 'vitest'
import { KECCAK_WASM, keccak256, keccak256Js, keccak256Wasm } from './keccak.js'
import { INPUT_BLOCKS, keccakModuleBytes, RATE_BYTES } from './keccakWasm.js'

function hex(b: Uint8Array): string {
  return Buffer.from(b).toString('hex')
}

function randomBytes(n: number, seed: number): Uint8Array {
  let s = seed
  const data = new Uint8Array(n)
  for (let i = 0; i < n; i++) {
    s = (s * 1103515245 + 12345) >>> 0
    data[i] = s >>> 24
  }
  return data
}

describe('keccak256', () => {
  it('runs on WebAssembly in this Node', () => {
    expect(KECCAK_WASM).toBe(true)
    expect(keccak256).toBe(keccak256Wasm)
    // the module is valid bytecode as generated
    expect(
      (globalThis as unknown as { WebAssembly: { validate(b: Uint8Array): boolean } }).WebAssembly.validate(
        keccakModuleBytes(Array.from({ length: 24 }, () => 0n)),
      ),
    ).toBe(true)
  })

  for (const [label, hash] of [
    ['WebAssembly', keccak256Wasm],
    ['TypeScript', keccak256Js],
  ] as const) {
    describe(label, () => {
      it('matches the known vectors', () => {
        expect(hex(hash(new Uint8Array(0)))).toBe('c5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470')
        expect(hex(hash(Buffer.from('abc')))).toBe('4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45')
      })

      it('matches @noble/hashes on every length up to 1,100 bytes', () => {
        for (let n = 0; n <= 1100; n++) {
          const data = randomBytes(n, n + 1)
          expect(hex(hash(data)), `length ${n}`).toBe(hex(keccak_256(data)))
        }
      })

      it('matches @noble/hashes on inputs longer than one absorb call takes', () => {
        const span = INPUT_BLOCKS * RATE_BYTES
        for (const n of [span - 1, span, span + 1, span + RATE_BYTES, 2 * span + 77, 300_000]) {
          const data = randomBytes(n, n)
          expect(hex(hash(data)), `length ${n}`).toBe(hex(keccak_256(data)))
        }
      })

      it('reads views at an offset and returns a fresh array each time', () => {
        const buf = new Uint8Array(300).map((_, i) => i)
        const view = buf.subarray(7, 207)
        const a = hash(view)
        const b = hash(view)
        expect(hex(a)).toBe(hex(keccak_256(view)))
        expect(a).not.toBe(b)
        a[0] = (a[0] as number) ^ 1
        expect(hex(b)).toBe(hex(keccak_256(view)))
        // the input is not touched
        expect(buf.every((v, i) => v === (i & 0xff))).toBe(true)
      })
    })
  }
})

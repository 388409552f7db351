/**
 * keccak256: ibex's WebAssembly and TypeScript permutations against @noble/hashes (what ethereumjs and
 * ethereum-cryptography use), at the sizes Ethereum hashes most: a 20-byte address or 32-byte
 * topic (blooms, trie keys), a ~110-byte transfer transaction, a ~530-byte full branch node.
 * Run: npx vitest bench src/util/keccak.bench.ts
 */
import { keccak_256 } from '@noble/hashes/sha3.js'
import { bench, describe } from 'vitest'
import { keccak256Js, keccak256Wasm } from './keccak.js'

for (const size of [20, 32, 110, 532]) {
  const data = new Uint8Array(size).map((_, i) => (i * 31) & 0xff)
  describe(`keccak256 ${size} bytes`, () => {
    bench('noble', () => {
      keccak_256(data)
    })
    bench('ibex (TypeScript)', () => {
      keccak256Js(data)
    })
    bench('ibex (WebAssembly)', () => {
      keccak256Wasm(data)
    })
  })
}

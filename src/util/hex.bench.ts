/**
 * toData kernels: the byte table against Buffer's native encoder, at the sizes the RPC layer
 * encodes most (addresses, hashes, log data). Picks TABLE_ENCODE_MAX_BYTES in hex.ts: on the
 * dev box (Node 20) the table is ~1.3x faster at 20 bytes, even at 32, and Buffer ~1.6x faster at
 * 64 and ~3x at 256.
 * Run: npx vitest bench src/util/hex.bench.ts
 */
import { bench, describe } from 'vitest'
import { toData } from './hex.js'

const BYTE_HEX = Array.from({ length: 256 }, (_, i) => i.toString(16).padStart(2, '0'))

function tableEncode(bytes: Uint8Array): string {
  let out = '0x'
  for (let i = 0; i < bytes.length; i++) out += BYTE_HEX[bytes[i]]
  return out
}

function bufferEncode(bytes: Uint8Array): string {
  return `0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.length).toString('hex')}`
}

for (const size of [20, 32, 64, 256]) {
  const bytes = new Uint8Array(size).map((_, i) => (i * 7) & 0xff)
  describe(`toData ${size} bytes`, () => {
    bench('table', () => {
      tableEncode(bytes)
    })
    bench('buffer', () => {
      bufferEncode(bytes)
    })
    bench('toData', () => {
      toData(bytes)
    })
  })
}

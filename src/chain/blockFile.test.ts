import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'
import { BlockFileError, readBlockFile, rlpItemLength } from './blockFile.js'

async function collect(file: string): Promise<Uint8Array[]> {
  const out: Uint8Array[] = []
  for await (const item of readBlockFile(file)) out.push(Uint8Array.from(item))
  return out
}

const dir = mkdtempSync(join(tmpdir(), 'ibex-blockfile-'))
// a short list (prefix 0xc0+n) and a long one (0xf8/0xf9 + length bytes) of 70 kB
const small = RLP.encode([Uint8Array.of(1, 2, 3)])
const large = RLP.encode([new Uint8Array(70_000).fill(7), [Uint8Array.of(9)]])

describe('rlpItemLength', () => {
  it('reads short and long list prefixes, and waits for a split prefix', () => {
    expect(rlpItemLength(small, 0)).toBe(small.length)
    expect(rlpItemLength(large, 0)).toBe(large.length)
    expect(rlpItemLength(large.subarray(0, 2), 0)).toBeUndefined()
  })

  it('refuses a non-list item (a block is always a list)', () => {
    expect(() => rlpItemLength(Uint8Array.of(0x82, 1, 2), 0)).toThrow(BlockFileError)
  })
})

describe('readBlockFile', () => {
  it('yields consecutive blocks, including ones spanning read chunks, and reads .gz files', async () => {
    const bytes = Buffer.concat([small, large, small, large, large])
    const plain = join(dir, 'chain.rlp')
    writeFileSync(plain, bytes)
    writeFileSync(`${plain}.gz`, gzipSync(bytes))
    for (const file of [plain, `${plain}.gz`]) {
      const items = await collect(file)
      expect(items.map((i) => i.length)).toEqual([small.length, large.length, small.length, large.length, large.length])
      expect(Buffer.concat(items).equals(bytes)).toBe(true)
    }
  })

  it('reports a truncated last block', async () => {
    const file = join(dir, 'cut.rlp')
    writeFileSync(file, Buffer.concat([small, large.subarray(0, 100)]))
    await expect(collect(file)).rejects.toThrow(/truncated block at byte \d+/)
  })
})

/**
 * Block files as `geth export` writes them and `geth import` reads them: RLP-encoded blocks
 * `[header, transactions, uncles, withdrawals?]` one after another, no framing; gzip-compressed
 * when the name ends in `.gz`.
 *
 * readBlockFile streams the file and yields each block's RLP bytes, splitting on the RLP length
 * prefix, so a file of any size is read in READ_CHUNK_BYTES pieces.
 */
import { createReadStream } from 'node:fs'
import type { Readable } from 'node:stream'
import { createGunzip } from 'node:zlib'

/** Read size of the file stream (RLP items may span chunks). */
const READ_CHUNK_BYTES = 1 << 20

export class BlockFileError extends Error {
  override name = 'BlockFileError'
}

/**
 * Total length (prefix + payload) of the RLP item at `offset`, or undefined when the prefix
 * itself is not complete yet. Throws on a non-list item (a block is always a list).
 */
export function rlpItemLength(buf: Uint8Array, offset: number): number | undefined {
  if (offset >= buf.length) return undefined
  const first = buf[offset] as number
  if (first < 0xc0) throw new BlockFileError(`not an RLP list at byte ${offset} (prefix 0x${first.toString(16)})`)
  if (first <= 0xf7) return 1 + (first - 0xc0)
  const lenOfLen = first - 0xf7
  if (offset + 1 + lenOfLen > buf.length) return undefined
  let len = 0
  for (let i = 0; i < lenOfLen; i++) len = len * 256 + (buf[offset + 1 + i] as number)
  return 1 + lenOfLen + len
}

/** Yields the RLP bytes of every block in `file`, in file order. */
export async function* readBlockFile(file: string): AsyncGenerator<Uint8Array> {
  let stream: Readable = createReadStream(file, { highWaterMark: READ_CHUNK_BYTES })
  if (file.endsWith('.gz')) stream = stream.pipe(createGunzip())
  let pending: Buffer = Buffer.alloc(0)
  let consumed = 0
  for await (const chunk of stream) {
    pending = pending.length === 0 ? (chunk as Buffer) : Buffer.concat([pending, chunk as Buffer])
    let offset = 0
    for (;;) {
      const len = rlpItemLength(pending, offset)
      if (len === undefined || offset + len > pending.length) break
      yield pending.subarray(offset, offset + len)
      offset += len
    }
    consumed += offset
    pending = pending.subarray(offset)
  }
  if (pending.length > 0) {
    throw new BlockFileError(`truncated block at byte ${consumed} of ${file} (${pending.length} bytes left over)`)
  }
}

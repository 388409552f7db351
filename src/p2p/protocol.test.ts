import { RLP } from '@ethereumjs/rlp'
import { describe, expect, it } from 'vitest'

import { decodeHashes, encodeHashes, TX_FETCH_MAX_HASHES } from './protocol.js'

const hash = (i: number) => new Uint8Array(32).fill(i)

describe('hash lists (announcements and fetches)', () => {
  it('round-trips up to the limit', () => {
    const hashes = Array.from({ length: TX_FETCH_MAX_HASHES }, (_, i) => hash(i))
    expect(decodeHashes(encodeHashes(hashes), TX_FETCH_MAX_HASHES)).toEqual(hashes)
    expect(decodeHashes(encodeHashes([]), TX_FETCH_MAX_HASHES)).toEqual([])
  })

  it('refuses a list over the limit, a hash not 32 bytes, nesting and garbage', () => {
    const over = Array.from({ length: TX_FETCH_MAX_HASHES + 1 }, (_, i) => hash(i))
    expect(decodeHashes(encodeHashes(over), TX_FETCH_MAX_HASHES)).toBeUndefined()
    expect(decodeHashes(RLP.encode([new Uint8Array(31)]), 8)).toBeUndefined()
    expect(decodeHashes(RLP.encode([[hash(1)]]), 8)).toBeUndefined()
    expect(decodeHashes(RLP.encode(hash(1)), 8)).toBeUndefined()
    expect(decodeHashes(new Uint8Array([0xff, 0x01]), 8)).toBeUndefined()
  })
})

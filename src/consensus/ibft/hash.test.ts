import { createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { KECCAK256_RLP_ARRAY, bytesToHex } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { describe, expect, it } from 'vitest'

import { IbftExtraError } from '../../chain/ibft/errors.js'
import { IBFT_MIX_HASH, type IbftExtra, blankedExtra, encodeExtra } from '../../chain/ibft/extra.js'
import { EXTRA_DATA_INDEX, ibftBlockHash, withExtraData } from '../../chain/ibft/hash.js'
import { attachSeals } from './seal.js'

const fill = (len: number, byte: number) => new Uint8Array(len).fill(byte)

const unsealed = (over: Partial<IbftExtra> = {}): IbftExtra => ({
  vanity: fill(32, 0),
  validators: [fill(20, 1), fill(20, 2)],
  proposerSeal: new Uint8Array(0),
  committedSeals: [],
  parentCommittedSeals: [fill(65, 7)],
  round: 0n,
  ...over,
})

/** A header of `hardfork` as @ethereumjs/block builds it, IBFT-shaped. */
function header(extraData: Uint8Array, hardfork: Hardfork = Hardfork.Prague, number = 7n) {
  const common = new Common({ chain: Mainnet, hardfork })
  return createBlockHeader(
    {
      number,
      difficulty: 1n,
      gasLimit: 30_000_000n,
      timestamp: 1_700_000_000n,
      mixHash: IBFT_MIX_HASH,
      uncleHash: KECCAK256_RLP_ARRAY,
      extraData,
    },
    { common, skipConsensusFormatValidation: true },
  )
}

describe('ibftBlockHash', () => {
  it('is keccak256 of the RLP header with the blanked extraData', () => {
    const extra = unsealed({ proposerSeal: fill(65, 3), committedSeals: [fill(65, 4)], round: 2n })
    const fields = header(encodeExtra(extra)).raw()
    const blankedHeader = header(blankedExtra(extra))
    expect(bytesToHex(ibftBlockHash(fields))).toBe(bytesToHex(blankedHeader.hash()))
    expect(bytesToHex(ibftBlockHash(fields))).toBe(
      bytesToHex(keccak256(RLP.encode(withExtraData(fields, blankedExtra(extra))))),
    )
  })

  it('does not change when seals and round are added', () => {
    const fields = header(encodeExtra(unsealed())).raw()
    const hash = ibftBlockHash(fields)
    const seals = { proposerSeal: fill(65, 3), committedSeals: [fill(65, 4), fill(65, 5)], round: 9n }
    const sealed = attachSeals(fields, seals)
    expect(sealed[EXTRA_DATA_INDEX]).not.toEqual(fields[EXTRA_DATA_INDEX])
    expect(ibftBlockHash(sealed)).toEqual(hash)
    // the blanked form itself hashes the same too (genesis may carry it)
    expect(ibftBlockHash(header(blankedExtra(unsealed())).raw())).toEqual(hash)
  })

  it('changes with vanity, validators, parentCommittedSeals and other header fields', () => {
    const base = ibftBlockHash(header(encodeExtra(unsealed())).raw())
    const variants = [
      header(encodeExtra(unsealed({ vanity: fill(32, 1) }))).raw(),
      header(encodeExtra(unsealed({ validators: [fill(20, 1)] }))).raw(),
      header(encodeExtra(unsealed({ parentCommittedSeals: [] }))).raw(),
      header(encodeExtra(unsealed()), Hardfork.Prague, 8n).raw(),
    ]
    for (const v of variants) expect(ibftBlockHash(v)).not.toEqual(base)
  })

  it('works for the field list of every fork (extraData at index 12)', () => {
    const extra = encodeExtra(unsealed({ proposerSeal: fill(65, 3), round: 1n }))
    const lengths = new Set<number>()
    for (const fork of [Hardfork.Homestead, Hardfork.London, Hardfork.Shanghai, Hardfork.Cancun, Hardfork.Prague]) {
      const h = header(extra, fork)
      lengths.add(h.raw().length)
      expect(h.raw()[EXTRA_DATA_INDEX]).toEqual(extra)
      expect(ibftBlockHash(h.raw())).toEqual(header(blankedExtra(unsealed()), fork).hash())
    }
    expect([...lengths].sort((a, b) => a - b)).toEqual([15, 16, 17, 20, 21])
  })

  it('rejects a header without extraData or with a malformed one', () => {
    const fields = header(encodeExtra(unsealed())).raw()
    expect(() => ibftBlockHash(fields.slice(0, 12))).toThrow(IbftExtraError)
    expect(() => ibftBlockHash(withExtraData(fields, fill(40, 0)))).toThrow(IbftExtraError)
  })
})

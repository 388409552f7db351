import { createBlockHeader } from '@ethereumjs/block'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { bigIntToBytes, bytesToBigInt, bytesToHex, concatBytes, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { describe, expect, it } from 'vitest'

import { IbftSealError, type IbftSealErrorReason } from './errors.js'
import { IBFT_MIX_HASH, decodeExtra, encodeExtra } from '../../chain/ibft/extra.js'
import { EXTRA_DATA_INDEX, ibftBlockHash } from '../../chain/ibft/hash.js'
import {
  attachSeals,
  privateKeyToAddress,
  proposalHash,
  recoverCommittedSeal,
  recoverProposerSeal,
  sealHeader,
  signCommittedSeal,
  signProposerSeal,
  verifyCommittedSeals,
  verifySeals,
} from './seal.js'

const common = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const key = (i: number) => setLengthLeft(hexToBytes(`0x${(0x1000 + i).toString(16)}`), 32)
const keys = [key(1), key(2), key(3), key(4)]
const validators = keys.map(privateKeyToAddress)
const outsider = key(99)

/** Raw Prague header fields with an unsealed extraData listing `vals`. */
function unsealedHeader(vals: Uint8Array[] = validators): Uint8Array[] {
  const extraData = encodeExtra({
    vanity: new Uint8Array(32),
    validators: vals,
    proposerSeal: new Uint8Array(0),
    committedSeals: [],
    parentCommittedSeals: [],
    round: 0n,
  })
  return createBlockHeader(
    { number: 3n, difficulty: 1n, gasLimit: 30_000_000n, mixHash: IBFT_MIX_HASH, extraData },
    { common, skipConsensusFormatValidation: true },
  ).raw()
}

/** Seal with `proposerKey` and committed seals by `committerKeys` (signed at `signRound`) at `round`. */
function sealed(proposerKey: Uint8Array, committerKeys: Uint8Array[], round = 0n, signRound = round) {
  const fields = unsealedHeader()
  const hash = ibftBlockHash(fields)
  return attachSeals(fields, {
    proposerSeal: signProposerSeal(hash, proposerKey),
    committedSeals: committerKeys.map((k) => signCommittedSeal(hash, signRound, k)),
    round,
  })
}

function expectSealError(fn: () => unknown, ...reasons: IbftSealErrorReason[]): void {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(IbftSealError)
    expect(reasons).toContain((err as IbftSealError).reason)
    return
  }
  throw new Error(`expected IbftSealError(${reasons.join(' | ')})`)
}

/** verifySeals(fields, the 4 validators) must throw IbftSealError with one of `reasons`. */
const expectVerifyError = (fields: Uint8Array[], ...reasons: IbftSealErrorReason[]) =>
  expectSealError(() => verifySeals(fields, validators), ...reasons)

const flip = (bytes: Uint8Array, at: number) => {
  const out = bytes.slice()
  out[at] ^= 0x01
  return out
}

describe('keys and seals', () => {
  it('derives the address of a private key', () => {
    // first account of the standard test mnemonic
    const priv = hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80')
    expect(bytesToHex(privateKeyToAddress(priv))).toBe('0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266')
  })

  it('proposalHash is keccak256(hash ‖ uint64BE(round))', () => {
    const hash = new Uint8Array(32).fill(0xab)
    const expected = keccak256(concatBytes(hash, hexToBytes('0x0000000000000105')))
    expect(proposalHash(hash, 0x105n)).toEqual(expected)
  })

  it('proposer and committed seals are 65 bytes and recover to the signer', () => {
    const hash = keccak256(Uint8Array.of(1, 2, 3))
    const ps = signProposerSeal(hash, keys[0])
    const cs = signCommittedSeal(hash, 4n, keys[1])
    for (const s of [ps, cs]) {
      expect(s.length).toBe(65)
      expect([0, 1]).toContain(s[64])
    }
    expect(recoverProposerSeal(hash, ps)).toEqual(validators[0])
    expect(recoverCommittedSeal(hash, 4n, cs)).toEqual(validators[1])
    // a committed seal for another round names someone else
    expect(recoverCommittedSeal(hash, 5n, cs)).not.toEqual(validators[1])
    // the two seal kinds sign different digests
    expect(recoverProposerSeal(hash, cs)).not.toEqual(validators[1])
  })

  it('rejects malformed seals', () => {
    const hash = keccak256(Uint8Array.of(1))
    const ps = signProposerSeal(hash, keys[0])
    expectSealError(() => recoverProposerSeal(hash, ps.subarray(0, 64)), 'bad-proposer-seal')
    const badV = ps.slice()
    badV[64] = 27
    expectSealError(() => recoverProposerSeal(hash, badV), 'bad-proposer-seal')
    const zeroR = ps.slice()
    zeroR.fill(0, 0, 32)
    expectSealError(() => recoverProposerSeal(hash, zeroR), 'bad-proposer-seal')
    // the high-s twin of a valid signature (same signer) is refused: one encoding per signer
    const n = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
    const highS = concatBytes(
      ps.subarray(0, 32),
      setLengthLeft(bigIntToBytes(n - bytesToBigInt(ps.subarray(32, 64))), 32),
      Uint8Array.of(ps[64] ^ 1),
    )
    expectSealError(() => recoverProposerSeal(hash, highS), 'bad-proposer-seal')
    expectSealError(() => recoverCommittedSeal(hash, 0n, highS), 'bad-committed-seal')
  })
})

describe('sealHeader (single validator)', () => {
  it('seals without changing the hash, and the seals recover to the validator', () => {
    const fields = unsealedHeader([validators[0]])
    const hash = ibftBlockHash(fields)
    const out = sealHeader(fields, keys[0], 2n)
    expect(ibftBlockHash(out)).toEqual(hash)
    expect(out.filter((_, i) => i !== EXTRA_DATA_INDEX)).toEqual(fields.filter((_, i) => i !== EXTRA_DATA_INDEX))
    const extra = decodeExtra(out[EXTRA_DATA_INDEX])
    expect(extra.round).toBe(2n)
    expect(extra.committedSeals.length).toBe(1)
    expect(recoverProposerSeal(hash, extra.proposerSeal)).toEqual(validators[0])
    expect(recoverCommittedSeal(hash, 2n, extra.committedSeals[0])).toEqual(validators[0])
    const result = verifySeals(out, [validators[0]])
    expect(result).toEqual({ hash, proposer: validators[0], committers: [validators[0]] })
  })

  it('defaults to round 0 and refuses a key outside the validators', () => {
    const fields = unsealedHeader([validators[0]])
    expect(decodeExtra(sealHeader(fields, keys[0])[EXTRA_DATA_INDEX]).round).toBe(0n)
    expectSealError(() => sealHeader(fields, keys[1]), 'signer-not-validator')
  })
})

describe('verifySeals with 4 validators (quorum 3)', () => {
  it('accepts a proposer seal and 3 or 4 distinct committed seals', () => {
    const three = verifySeals(sealed(keys[1], [keys[0], keys[1], keys[2]], 1n), validators)
    expect(three.proposer).toEqual(validators[1])
    expect(three.committers).toEqual([validators[0], validators[1], validators[2]])
    expect(verifySeals(sealed(keys[0], keys, 3n), validators).committers.length).toBe(4)
  })

  it('rejects a missing or flipped proposer seal, or one from a non-validator', () => {
    const ok = sealed(keys[0], keys)
    const extra = decodeExtra(ok[EXTRA_DATA_INDEX])
    const withProposerSeal = (s: Uint8Array) => attachSeals(ok, { ...extra, proposerSeal: s })
    expectVerifyError(withProposerSeal(new Uint8Array(0)), 'missing-proposer-seal')
    for (const at of [0, 31, 40, 63]) {
      expectVerifyError(withProposerSeal(flip(extra.proposerSeal, at)), 'bad-proposer-seal', 'proposer-not-validator')
    }
    expectVerifyError(sealed(outsider, keys), 'proposer-not-validator')
  })

  it('rejects a flipped committed seal', () => {
    const ok = sealed(keys[0], keys.slice(0, 3))
    const extra = decodeExtra(ok[EXTRA_DATA_INDEX])
    for (const at of [5, 50]) {
      const committedSeals = [extra.committedSeals[0], flip(extra.committedSeals[1], at), extra.committedSeals[2]]
      expectVerifyError(attachSeals(ok, { ...extra, committedSeals }), 'bad-committed-seal', 'committer-not-validator')
    }
  })

  it('rejects committed seals signed for another round than the extraData says', () => {
    expectVerifyError(sealed(keys[0], keys, 0n, 1n), 'bad-committed-seal', 'committer-not-validator')
    // and changing the round after sealing invalidates them
    const ok = sealed(keys[0], keys, 2n)
    const extra = decodeExtra(ok[EXTRA_DATA_INDEX])
    expectVerifyError(attachSeals(ok, { ...extra, round: 3n }), 'bad-committed-seal', 'committer-not-validator')
  })

  it('rejects a committed seal from another key', () => {
    expectVerifyError(sealed(keys[0], [keys[0], keys[1], outsider]), 'committer-not-validator')
  })

  it('rejects a duplicate committer, even with enough seals', () => {
    expectVerifyError(sealed(keys[0], [keys[0], keys[1], keys[1], keys[2]]), 'duplicate-committer')
  })

  it('rejects too few committed seals', () => {
    for (const committers of [[], [keys[0]], [keys[0], keys[3]]]) {
      expectVerifyError(sealed(keys[0], committers), 'insufficient-committed-seals')
    }
  })

  it('verifyCommittedSeals checks parent committed seals over the parent hash and round', () => {
    const parentHash = keccak256(Uint8Array.of(9))
    const seals = keys.slice(1).map((k) => signCommittedSeal(parentHash, 6n, k))
    expect(verifyCommittedSeals(parentHash, 6n, seals, validators)).toEqual(validators.slice(1))
    const twoOfFour = () => verifyCommittedSeals(parentHash, 6n, seals.slice(0, 2), validators)
    expectSealError(twoOfFour, 'insufficient-committed-seals')
    expectSealError(() => verifyCommittedSeals(parentHash, 6n, seals, []), 'committer-not-validator')
  })
})

/**
 * Decoding ValidatorSigners.validatorSet(): the ABI answer as viem encodes it, the empty answer
 * (no contract), and every malformed answer refused with its reason.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { encodeAbiParameters, keccak256, toHex } from 'viem'
import { describe, expect, it } from 'vitest'

import { ValidatorSetError } from './errors.js'
import { decodeValidatorSet, readValidatorSet, VALIDATOR_SET_CALLDATA, VALIDATOR_SIGNERS_ADDRESS } from './set.js'

const addr = (n: number) => `0x${n.toString(16).padStart(40, '0')}` as const
const answer = (seats: bigint[], signers: `0x${string}`[], powers: bigint[]) =>
  hexToBytes(
    encodeAbiParameters([{ type: 'uint256[]' }, { type: 'address[]' }, { type: 'uint256[]' }], [seats, signers, powers]),
  )

function reason(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ValidatorSetError)
    return (err as ValidatorSetError).reason
  }
  throw new Error('expected ValidatorSetError')
}

describe('decodeValidatorSet', () => {
  it('reads seats, signers and powers in signer order', () => {
    const set = decodeValidatorSet(answer([51n, 52n], [addr(0x11), addr(0x22)], [7n, 10n ** 24n]))
    expect(set.map((v) => [v.seat, bytesToHex(v.signer), v.power])).toEqual([
      [51n, addr(0x11), 7n],
      [52n, addr(0x22), 10n ** 24n],
    ])
    expect(decodeValidatorSet(answer([], [], []))).toEqual([])
  })

  it('reads the empty answer (no contract at the address) as the empty set', () => {
    expect(decodeValidatorSet(new Uint8Array(0))).toEqual([])
  })

  it('refuses unsorted or repeated signers, zero power, mismatched lengths and garbage', () => {
    expect(reason(() => decodeValidatorSet(answer([1n, 2n], [addr(0x22), addr(0x11)], [1n, 1n])))).toBe('unsorted')
    expect(reason(() => decodeValidatorSet(answer([1n, 2n], [addr(0x11), addr(0x11)], [1n, 1n])))).toBe('unsorted')
    expect(reason(() => decodeValidatorSet(answer([1n], [addr(0x11)], [0n])))).toBe('zero-power')
    expect(reason(() => decodeValidatorSet(answer([1n, 2n], [addr(0x11)], [1n])))).toBe('length-mismatch')
    expect(reason(() => decodeValidatorSet(new Uint8Array(31)))).toBe('bad-abi')
    const cut = answer([1n], [addr(0x11)], [1n])
    expect(reason(() => decodeValidatorSet(cut.subarray(0, cut.length - 32)))).toBe('bad-abi')
  })

  it('calls validatorSet() on ValidatorSigners at the asked block, and wraps a failed call', async () => {
    expect(bytesToHex(VALIDATOR_SET_CALLDATA)).toBe(keccak256(toHex('validatorSet()')).slice(0, 10))
    const seen: string[] = []
    const set = await readValidatorSet(
      {
        async callAt(block, to, data) {
          seen.push(bytesToHex(block), bytesToHex(to), bytesToHex(data))
          return answer([1n], [addr(0x11)], [5n])
        },
      },
      new Uint8Array(32).fill(1),
    )
    expect(set).toHaveLength(1)
    expect(seen).toEqual([`0x${'01'.repeat(32)}`, bytesToHex(VALIDATOR_SIGNERS_ADDRESS), bytesToHex(VALIDATOR_SET_CALLDATA)])
    await expect(
      readValidatorSet({ callAt: () => Promise.reject(new Error('execution reverted')) }, new Uint8Array(32)),
    ).rejects.toMatchObject({ reason: 'call-failed' })
  })
})

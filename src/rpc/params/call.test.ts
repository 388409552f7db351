import { describe, expect, it } from 'vitest'
import { ServerError } from '../errors.js'
import { hexToBytes } from '../../util/hex.js'
import { CallObject, DATA_INPUT_CONFLICT, rejectDataInputConflict } from './call.js'
import { failure } from './testing.js'

const P = -32602
const from = '0x52908400098527886E0F7030069857D2E4169EE7'
const to = '0x8617E340B3D01FA5F11F306F4090FD50E238070D'
const key = `0x${'01'.repeat(32)}`

describe('CallObject (ethapi.TransactionArgs)', () => {
  it('decodes every field', () => {
    const args = CallObject.decode({
      from,
      to,
      gas: '0x5208',
      gasPrice: '0x3b9aca00',
      maxFeePerGas: '0x2',
      maxPriorityFeePerGas: '0x1',
      maxFeePerBlobGas: '0x3',
      value: '0xde0b6b3a7640000',
      nonce: '0x7',
      input: '0xa9059cbb',
      accessList: [{ address: to, storageKeys: [key] }],
      authorizationList: [{ chainId: '0x1', address: to, nonce: '0x0', yParity: '0x1', r: '0x5', s: '0x6' }],
      chainId: '0x312',
      blobVersionedHashes: [key],
      type: '0x2',
      unknownMember: 'ignored',
    })
    expect(args).toEqual({
      from: from.toLowerCase(),
      to: to.toLowerCase(),
      gas: 21000n,
      gasPrice: 1_000_000_000n,
      maxFeePerGas: 2n,
      maxPriorityFeePerGas: 1n,
      maxFeePerBlobGas: 3n,
      value: 10n ** 18n,
      nonce: 7n,
      input: hexToBytes('0xa9059cbb'),
      dataInputConflict: false,
      accessList: [{ address: to.toLowerCase(), storageKeys: [hexToBytes(key)] }],
      authorizationList: [{ chainId: 1n, address: to.toLowerCase(), nonce: 0n, yParity: 1, r: 5n, s: 6n }],
      chainId: 0x312n,
      blobVersionedHashes: [hexToBytes(key)],
      type: 2,
    })
  })

  it('reads null and {} as empty, nulls as absent, keys case-insensitively', () => {
    const empty = CallObject.decode(null)
    expect(empty.to).toBeUndefined()
    expect(empty.input).toBeUndefined()
    expect(CallObject.decode({})).toEqual(empty)
    expect(CallObject.decode({ to: null, gas: null, data: null })).toEqual(empty)
    expect(CallObject.decode({ TO: to, GasPrice: '0x1' })).toMatchObject({ to: to.toLowerCase(), gasPrice: 1n })
  })

  it('prefers input over data, and flags a mismatch instead of failing (as geth eth_call)', () => {
    expect(CallObject.decode({ data: '0x01' }).input).toEqual(Uint8Array.of(1))
    const same = CallObject.decode({ data: '0x01', input: '0x01' })
    expect(same.dataInputConflict).toBe(false)
    const differ = CallObject.decode({ data: '0x01', input: '0x02' })
    expect(differ.input).toEqual(Uint8Array.of(2))
    expect(differ.dataInputConflict).toBe(true)
    expect(() => rejectDataInputConflict(same)).not.toThrow()
    expect(() => rejectDataInputConflict(differ)).toThrow(ServerError)
    expect(() => rejectDataInputConflict(differ)).toThrow(DATA_INPUT_CONFLICT)
    expect(DATA_INPUT_CONFLICT).toBe(
      'both "data" and "input" are set and not equal. Please use "input" to pass transaction call data',
    )
  })

  it('ignores a malformed type, which geth does not read', () => {
    expect(CallObject.decode({ type: 2 }).type).toBeUndefined()
    expect(CallObject.decode({ type: '0xzz' }).type).toBeUndefined()
  })

  it('fails with the struct field in the message', () => {
    const f = (field: string, type: string, what: string): string =>
      `${P} json: cannot unmarshal ${what} into Go struct field TransactionArgs.${field} of type ${type}`
    expect(failure(CallObject, { from: from.slice(2) })).toBe(
      f('from', 'common.Address', 'hex string without 0x prefix'),
    )
    expect(failure(CallObject, { to: 1 })).toBe(f('to', 'common.Address', 'non-string'))
    expect(failure(CallObject, { to: '0x1234' })).toBe(`${P} hex string has length 4, want 40 for common.Address`)
    expect(failure(CallObject, { gas: 21000 })).toBe(f('gas', 'hexutil.Uint64', 'non-string'))
    expect(failure(CallObject, { GAS: '0x' })).toBe(f('gas', 'hexutil.Uint64', 'hex string "0x"'))
    expect(failure(CallObject, { value: '0x01' })).toBe(
      f('value', '*hexutil.Big', 'hex number with leading zero digits'),
    )
    expect(failure(CallObject, { input: '0x1' })).toBe(f('input', 'hexutil.Bytes', 'hex string of odd length'))
    expect(failure(CallObject, { data: 'zz' })).toBe(f('data', 'hexutil.Bytes', 'hex string without 0x prefix'))
    expect(failure(CallObject, { accessList: {} })).toBe(f('accessList', 'types.AccessList', 'object'))
    expect(failure(CallObject, { accessList: [{ storageKeys: [] }] })).toBe(
      `${P} missing required field 'address' for AccessTuple`,
    )
    expect(failure(CallObject, { accessList: [{ address: to }] })).toBe(
      `${P} missing required field 'storageKeys' for AccessTuple`,
    )
    expect(failure(CallObject, { accessList: ['x'] })).toBe(f('accessList', 'types.AccessTuple', 'string'))
    expect(failure(CallObject, { accessList: [{ address: to, storageKeys: '0x' }] })).toBe(
      f('accessList', '[]common.Hash', 'string'),
    )
    expect(failure(CallObject, { blobVersionedHashes: [null] })).toBe(
      f('blobVersionedHashes', 'common.Hash', 'non-string'),
    )
    expect(failure(CallObject, { authorizationList: [{ chainId: '0x1' }] })).toBe(
      `${P} missing required field 'address' for SetCodeAuthorization`,
    )
  })

  it('fails on a non-object with the Go type of the struct', () => {
    const t = 'into Go value of type ethapi.TransactionArgs'
    expect(failure(CallObject, '0x')).toBe(`${P} json: cannot unmarshal string ${t}`)
    expect(failure(CallObject, [])).toBe(`${P} json: cannot unmarshal array ${t}`)
    expect(failure(CallObject, 1)).toBe(`${P} json: cannot unmarshal number ${t}`)
    expect(failure(CallObject, false)).toBe(`${P} json: cannot unmarshal bool ${t}`)
  })

  it('reports a hard error before an earlier soft one, and the first soft one otherwise', () => {
    expect(failure(CallObject, { accessList: 'x', gas: 1 })).toBe(
      `${P} json: cannot unmarshal non-string into Go struct field TransactionArgs.gas of type hexutil.Uint64`,
    )
    expect(failure(CallObject, { accessList: 'x', blobVersionedHashes: 1 })).toBe(
      `${P} json: cannot unmarshal string into Go struct field TransactionArgs.accessList of type types.AccessList`,
    )
  })
})

import { hashTypedData, type TypedDataDefinition } from 'viem'
import { describe, expect, it } from 'vitest'
import { toData } from '../../../util/hex.js'
import { encodeType, parseTypedData, TypedDataError, typedDataDigest } from './accountsTypedData.js'

/** The EIP-712 spec's example (eip-712 assets/eip-712/Example.js). */
const MAIL = {
  types: {
    EIP712Domain: [
      { name: 'name', type: 'string' },
      { name: 'version', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'verifyingContract', type: 'address' },
    ],
    Person: [
      { name: 'name', type: 'string' },
      { name: 'wallet', type: 'address' },
    ],
    Mail: [
      { name: 'from', type: 'Person' },
      { name: 'to', type: 'Person' },
      { name: 'contents', type: 'string' },
    ],
  },
  primaryType: 'Mail',
  domain: {
    name: 'Ether Mail',
    version: '1',
    chainId: 1,
    verifyingContract: '0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC',
  },
  message: {
    from: { name: 'Cow', wallet: '0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826' },
    to: { name: 'Bob', wallet: '0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB' },
    contents: 'Hello, Bob!',
  },
}

const digest = (raw: unknown) => toData(typedDataDigest(parseTypedData(raw)))

describe('EIP-712 digest', () => {
  it("is the spec's hash for its Mail example, from an object or a JSON string", () => {
    expect(encodeType(MAIL.types, 'Mail')).toBe(
      'Mail(Person from,Person to,string contents)Person(string name,address wallet)',
    )
    expect(digest(MAIL)).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
    expect(digest(JSON.stringify(MAIL))).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
  })

  it('derives EIP712Domain from the domain when the types leave it out', () => {
    const { EIP712Domain: _, ...types } = MAIL.types
    expect(digest({ ...MAIL, types })).toBe('0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2')
  })

  it("agrees with viem's hashTypedData on arrays, nested arrays, bytes, signed and small integers, bool, salt", () => {
    const types = {
      Item: [
        { name: 'id', type: 'uint64' },
        { name: 'delta', type: 'int128' },
        { name: 'tag', type: 'bytes4' },
        { name: 'blob', type: 'bytes' },
        { name: 'ok', type: 'bool' },
      ],
      Order: [
        { name: 'owner', type: 'address' },
        { name: 'items', type: 'Item[]' },
        { name: 'grid', type: 'uint8[2][]' },
        { name: 'names', type: 'string[3]' },
        { name: 'nonce', type: 'uint256' },
      ],
    } as const
    const domain = {
      name: 'Shop',
      chainId: 1337,
      salt: `0x${'ab'.repeat(32)}`,
    } as const
    const message = {
      owner: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      items: [
        { id: 1n, delta: -5n, tag: '0xdeadbeef', blob: '0x', ok: true },
        { id: 18446744073709551615n, delta: -(2n ** 127n), tag: '0x00000001', blob: '0x0102030405', ok: false },
      ],
      grid: [
        [1, 2],
        [255, 0],
      ],
      names: ['a', '', 'ünïcode'],
      nonce: 2n ** 256n - 1n,
    } as const
    const definition = { types, domain, primaryType: 'Order', message } as unknown as TypedDataDefinition
    const viemHash = hashTypedData(definition)
    // as a client sends it: bigints as decimal strings, with and without EIP712Domain in the types
    const json = JSON.stringify({ types, domain, primaryType: 'Order', message }, (_, v) =>
      typeof v === 'bigint' ? v.toString() : v,
    )
    expect(digest(json)).toBe(viemHash)
    const withDomainType = JSON.parse(json)
    withDomainType.types.EIP712Domain = [
      { name: 'name', type: 'string' },
      { name: 'chainId', type: 'uint256' },
      { name: 'salt', type: 'bytes32' },
    ]
    expect(digest(withDomainType)).toBe(viemHash)
    // hex quantities are integers too
    withDomainType.message.nonce = `0x${'f'.repeat(64)}`
    expect(digest(withDomainType)).toBe(viemHash)
  })

  it('signs the domain alone when the primary type is EIP712Domain', () => {
    const definition = { types: {}, domain: MAIL.domain, primaryType: 'EIP712Domain' } as unknown as TypedDataDefinition
    expect(digest({ types: MAIL.types, domain: MAIL.domain, primaryType: 'EIP712Domain', message: {} })).toBe(
      hashTypedData(definition),
    )
  })

  it('refuses what does not fit, in geth words', () => {
    const bad = (message: unknown) => () => digest({ ...MAIL, message })
    expect(() => digest('{not json')).toThrow(TypedDataError)
    expect(() => digest({ ...MAIL, primaryType: 'Letter' })).toThrow('primaryType Letter is not among the types')
    expect(bad({ ...MAIL.message, to: { name: 'Bob', wallet: '0x1234' } })).toThrow(
      "provided data '0x1234' doesn't match type 'address'",
    )
    expect(bad({ ...MAIL.message, extra: 1 })).toThrow('there is extra data provided in the message (3 < 4)')
    expect(bad({ ...MAIL.message, contents: 5 })).toThrow("provided data '5' doesn't match type 'string'")
    const uint8 = { ...MAIL, types: { ...MAIL.types, Mail: [{ name: 'n', type: 'uint8' }] } }
    expect(() => digest({ ...uint8, message: { n: 256 } })).toThrow("integer larger than 'uint8'")
    expect(() => digest({ ...uint8, message: { n: -1 } })).toThrow('invalid negative value for unsigned type uint8')
    expect(() => digest({ ...uint8, message: { n: 1.5 } })).toThrow('invalid float value 1.5 for type uint8')
    const loop = { ...MAIL, types: { ...MAIL.types, Mail: [{ name: 'next', type: 'Mail' }] } }
    let deep: Record<string, unknown> = {}
    for (let i = 0; i < 100; i++) deep = { next: deep }
    expect(() => digest({ ...loop, message: deep })).toThrow('typed data nests deeper than 64 structs')
  })
})

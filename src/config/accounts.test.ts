import { describe, expect, it } from 'vitest'

import { addressOfPrivateKey, devAccounts } from './accounts.js'
import { hexToBytes } from '@ethereumjs/util'

describe('devAccounts', () => {
  it('derives the standard test-mnemonic accounts', () => {
    const accounts = devAccounts()
    expect(accounts).toHaveLength(10)
    expect(accounts[0]).toEqual({
      address: '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
      privateKey: '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80',
    })
    expect(accounts[1]).toEqual({
      address: '0x70997970C51812dc3A010C7d01b50e0d17dc79C8',
      privateKey: '0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d',
    })
    expect(accounts[9]?.address).toBe('0xa0Ee7A142d267C1f36714E4a8F75612F20a79720')
    expect(new Set(accounts.map((a) => a.address)).size).toBe(10)
  })

  it('takes a count and returns copies', () => {
    expect(devAccounts(3)).toHaveLength(3)
    expect(devAccounts(12)[11]?.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    const a = devAccounts(1)
    ;(a[0] as { address: string }).address = 'changed'
    expect(devAccounts(1)[0]?.address).toBe('0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266')
    expect(() => devAccounts(-1)).toThrow(RangeError)
  })

  it('addressOfPrivateKey checksums', () => {
    expect(addressOfPrivateKey(hexToBytes('0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'))).toBe(
      '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266',
    )
  })
})

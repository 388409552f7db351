/**
 * The dev chain's funded accounts: the standard test mnemonic that anvil, hardhat and ganache use,
 * derived along m/44'/60'/0'/0/i, so every tool's fixtures (account 0 = 0xf39F…2266) just work.
 */
import { mnemonicToSeedSync } from 'ethereum-cryptography/bip39/index.js'
import { HDKey } from 'ethereum-cryptography/hdkey.js'
import { bytesToHex, privateToAddress, toChecksumAddress } from '@ethereumjs/util'

import { DEV_ACCOUNT_COUNT } from './defaults.js'

/** DEV_MNEMONIC is public: never fund its accounts on a real network. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'
/** DEV_DERIVATION_PATH is the BIP-44 Ethereum path; account i replaces the last index. */
export const DEV_DERIVATION_PATH = "m/44'/60'/0'/0"

export interface DevAccount {
  /** EIP-55 checksummed address. */
  address: string
  /** 0x-prefixed 32-byte private key. */
  privateKey: string
}

/** Derived accounts, cached: the seed costs a PBKDF2 run. */
const cache: DevAccount[] = []
let root: HDKey | undefined

/** addressOfPrivateKey returns the EIP-55 checksummed address of a 32-byte secp256k1 private key. */
export function addressOfPrivateKey(privateKey: Uint8Array): string {
  return toChecksumAddress(bytesToHex(privateToAddress(privateKey)))
}

/** devAccounts returns the first `count` accounts of the test mnemonic. */
export function devAccounts(count: number = DEV_ACCOUNT_COUNT): DevAccount[] {
  if (!Number.isSafeInteger(count) || count < 0)
    throw new RangeError(`devAccounts: count must be a non-negative integer, got ${count}`)
  if (cache.length < count) {
    root ??= HDKey.fromMasterSeed(mnemonicToSeedSync(DEV_MNEMONIC))
    for (let i = cache.length; i < count; i++) {
      const key = root.derive(`${DEV_DERIVATION_PATH}/${i}`).privateKey
      if (key === null) throw new Error(`devAccounts: no private key at ${DEV_DERIVATION_PATH}/${i}`)
      cache.push({ address: addressOfPrivateKey(key), privateKey: bytesToHex(key) })
    }
  }
  return cache.slice(0, count).map((a) => ({ ...a }))
}

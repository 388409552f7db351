/**
 * The validator key: a secp256k1 private key stored as hex in a file (optional 0x, surrounding
 * whitespace ignored). Default place `<datadir>/validator.key`; `--validator-key FILE` points
 * elsewhere and must then exist (a typo must not silently make a new validator). A missing default
 * key is created (mode 0600) only when asked: on the dev network and by `ibex init`.
 */
import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, join } from 'node:path'

import { bytesToHex, hexToBytes } from '@ethereumjs/util'

import { addressOfPrivateKey } from './accounts.js'
import { ConfigError } from './errors.js'
import type { IbexConfig } from './types.js'

/** VALIDATOR_KEY_FILE is the key's file name inside the datadir. */
export const VALIDATOR_KEY_FILE = 'validator.key'
/** KEY_FILE_MODE: readable by the node's user only. */
export const KEY_FILE_MODE = 0o600

/** secp256k1 group order: a private key is in [1, n-1]. */
const SECP256K1_N = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n

export interface ValidatorKey {
  privateKey: Uint8Array
  /** EIP-55 checksummed address. */
  address: string
}

/** validatorKeyPath: the key file the config points at. */
export function validatorKeyPath(config: Pick<IbexConfig, 'datadir' | 'validatorKeyFile'>): string {
  return config.validatorKeyFile ?? join(config.datadir, VALIDATOR_KEY_FILE)
}

/** parsePrivateKeyHex checks a key file's text and returns the 32 key bytes. */
export function parsePrivateKeyHex(text: string, label: string): Uint8Array {
  const hex = text.trim().replace(/^0x/i, '')
  if (!/^[0-9a-fA-F]{64}$/.test(hex)) {
    const what = /^[0-9a-fA-F]*$/.test(hex) ? `${hex.length} hex digits` : 'non-hex characters'
    throw new ConfigError(`${label}: expected a 32-byte private key as 64 hex digits (optional 0x), got ${what}`)
  }
  const n = BigInt(`0x${hex}`)
  if (n === 0n || n >= SECP256K1_N)
    throw new ConfigError(`${label}: not a valid secp256k1 private key (must be in 1..n-1)`)
  return hexToBytes(`0x${hex}`)
}

/** newPrivateKey draws a random valid secp256k1 key. */
export function newPrivateKey(): Uint8Array {
  for (;;) {
    const key = new Uint8Array(randomBytes(32))
    const n = BigInt(bytesToHex(key))
    if (n !== 0n && n < SECP256K1_N) return key
  }
}

/** writeKeyFile writes a key as hex (no 0x, newline) with mode 0600; fails if the file exists. */
export function writeKeyFile(path: string, privateKey: Uint8Array): void {
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 })
  writeFileSync(path, `${bytesToHex(privateKey).slice(2)}\n`, { mode: KEY_FILE_MODE, flag: 'wx' })
}

/**
 * loadValidatorKey reads the validator key; with `create`, a missing default key file is made
 * (datadir created as needed). Errors are ConfigErrors naming the file.
 */
export function loadValidatorKey(
  config: Pick<IbexConfig, 'datadir' | 'validatorKeyFile'>,
  options: { create: boolean },
): ValidatorKey {
  const path = validatorKeyPath(config)
  let text: string | undefined
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    if (code !== 'ENOENT')
      throw new ConfigError(`validator key ${path}: cannot read (${code ?? (err as Error).message})`)
  }
  if (text === undefined) {
    if (config.validatorKeyFile !== undefined) {
      throw new ConfigError(`validator key ${path}: not found (--validator-key must name an existing file)`)
    }
    if (!options.create) {
      throw new ConfigError(`validator key ${path}: not found (run ibex init, or pass --validator-key FILE)`)
    }
    const privateKey = newPrivateKey()
    try {
      writeKeyFile(path, privateKey)
    } catch (err) {
      throw new ConfigError(
        `validator key ${path}: cannot create (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`,
      )
    }
    return { privateKey, address: addressOfPrivateKey(privateKey) }
  }
  const privateKey = parsePrivateKeyHex(text, `validator key ${path}`)
  return { privateKey, address: addressOfPrivateKey(privateKey) }
}

import { mkdtempSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { bytesToHex } from '@ethereumjs/util'
import { beforeEach, describe, expect, it } from 'vitest'

import { ConfigError } from './errors.js'
import { loadValidatorKey, parsePrivateKeyHex, validatorKeyPath } from './keys.js'

const KEY0 = 'ac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'
const ADDRESS0 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'

let dir: string
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-keys-'))
})

function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    return (err as Error).message
  }
  throw new Error('expected a ConfigError')
}

describe('loadValidatorKey', () => {
  it('creates a missing default key with mode 0600, creating the datadir', () => {
    const datadir = join(dir, 'nested', 'data')
    const key = loadValidatorKey({ datadir, validatorKeyFile: undefined }, { create: true })
    const path = join(datadir, 'validator.key')
    expect(statSync(path).mode & 0o777).toBe(0o600)
    expect(readFileSync(path, 'utf8')).toBe(`${bytesToHex(key.privateKey).slice(2)}\n`)
    expect(key.address).toMatch(/^0x[0-9a-fA-F]{40}$/)
    // the second load reads the same key
    expect(loadValidatorKey({ datadir, validatorKeyFile: undefined }, { create: false })).toEqual(key)
  })

  it('reads hex with or without 0x, whitespace trimmed', () => {
    for (const text of [KEY0, `0x${KEY0}`, `  0x${KEY0}\n\n`, KEY0.toUpperCase()]) {
      const file = join(dir, 'k')
      writeFileSync(file, text)
      expect(loadValidatorKey({ datadir: dir, validatorKeyFile: file }, { create: false }).address).toBe(ADDRESS0)
    }
  })

  it('does not create a missing key unless asked, nor at an explicit path', () => {
    const datadir = join(dir, 'd')
    expect(errorOf(() => loadValidatorKey({ datadir, validatorKeyFile: undefined }, { create: false }))).toBe(
      `validator key ${join(datadir, 'validator.key')}: not found (run ibex init, or pass --validator-key FILE)`,
    )
    const explicit = join(dir, 'typo.key')
    expect(errorOf(() => loadValidatorKey({ datadir, validatorKeyFile: explicit }, { create: true }))).toBe(
      `validator key ${explicit}: not found (--validator-key must name an existing file)`,
    )
  })

  it('names malformed key files', () => {
    const file = join(dir, 'bad.key')
    const cases: [string, string][] = [
      ['abc', 'expected a 32-byte private key as 64 hex digits (optional 0x), got 3 hex digits'],
      [`${KEY0}00`, 'expected a 32-byte private key as 64 hex digits (optional 0x), got 66 hex digits'],
      [
        `${KEY0.slice(0, 63)}z`,
        'expected a 32-byte private key as 64 hex digits (optional 0x), got non-hex characters',
      ],
      ['0'.repeat(64), 'not a valid secp256k1 private key (must be in 1..n-1)'],
      ['f'.repeat(64), 'not a valid secp256k1 private key (must be in 1..n-1)'],
    ]
    for (const [text, message] of cases) {
      writeFileSync(file, text)
      expect(errorOf(() => loadValidatorKey({ datadir: dir, validatorKeyFile: file }, { create: false }))).toBe(
        `validator key ${file}: ${message}`,
      )
    }
  })

  it('validatorKeyPath defaults to <datadir>/validator.key', () => {
    expect(validatorKeyPath({ datadir: '/d', validatorKeyFile: undefined })).toBe('/d/validator.key')
    expect(validatorKeyPath({ datadir: '/d', validatorKeyFile: '/k' })).toBe('/k')
    expect(parsePrivateKeyHex(`0X${KEY0}`, 'x')).toHaveLength(32)
  })
})

/**
 * Reading a geth-format genesis.json: every field is checked and a bad one is named in a one-line
 * ConfigError (`genesis FILE: alloc 0xab…: balance: expected a hex or decimal quantity, got "x"`).
 * Quantities written as JSON numbers or decimal strings (geth accepts both) come back as 0x-hex;
 * an absent nonce, timestamp or extraData reads as zero / empty, as in geth. Nothing else changes.
 *
 * Keys are checked against what geth reads (core.Genesis, params.ChainConfig, types.Account) plus
 * ours (`config.ibft`, `config.baseFeeRecipient`): a misspelled fork (`londonBlok`) would otherwise
 * leave the fork off and fail later with an engine's message naming no key, so an unknown key is
 * named with the closest known one (`unknown key config.londonBlok (did you mean londonBlock?)`).
 */
import { readFileSync } from 'node:fs'

import { ConfigError } from './errors.js'
import type { GethGenesis, GethGenesisAccount } from './genesis.js'

const HEX = /^0x[0-9a-fA-F]*$/
const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/
const DECIMAL = /^[0-9]+$/

/** Top-level keys of geth's core.Genesis (`mixhash`: Go's JSON matching ignores case, and files in the wild use it). */
export const GENESIS_KEYS: ReadonlySet<string> = new Set([
  'config',
  'nonce',
  'timestamp',
  'extraData',
  'gasLimit',
  'difficulty',
  'mixHash',
  'mixhash',
  'coinbase',
  'alloc',
  'number',
  'gasUsed',
  'parentHash',
  'baseFeePerGas',
  'excessBlobGas',
  'blobGasUsed',
  'slotNumber',
])

/**
 * Keys of `config`: geth's params.ChainConfig, fields it dropped that old files still carry
 * (eip150Hash, terminalTotalDifficultyPassed, verkleTime, enableVerkleAtGenesis), and ours.
 */
export const GENESIS_CONFIG_KEYS: ReadonlySet<string> = new Set([
  'chainId',
  'homesteadBlock',
  'daoForkBlock',
  'daoForkSupport',
  'eip150Block',
  'eip155Block',
  'eip158Block',
  'byzantiumBlock',
  'constantinopleBlock',
  'petersburgBlock',
  'istanbulBlock',
  'muirGlacierBlock',
  'berlinBlock',
  'londonBlock',
  'arrowGlacierBlock',
  'grayGlacierBlock',
  'mergeNetsplitBlock',
  'shanghaiTime',
  'cancunTime',
  'pragueTime',
  'osakaTime',
  'bpo1Time',
  'bpo2Time',
  'bpo3Time',
  'bpo4Time',
  'bpo5Time',
  'amsterdamTime',
  'bogotaTime',
  'ubtTime',
  'verkleTime',
  'terminalTotalDifficulty',
  'terminalTotalDifficultyPassed',
  'depositContractAddress',
  'enableUBTAtGenesis',
  'enableVerkleAtGenesis',
  'eip150Hash',
  'ethash',
  'clique',
  'blobSchedule',
  // ours
  'ibft',
  'baseFeeRecipient',
])

/** Keys of `config.ibft` (IbftGenesisConfig). */
const IBFT_KEYS: ReadonlySet<string> = new Set(['blockTime', 'epochSize', 'validators', 'feeRecipient'])

/** readGenesisFile reads and checks a geth-format genesis.json. */
export function readGenesisFile(path: string): GethGenesis {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code
    throw new ConfigError(
      `genesis ${path}: cannot read file (${code === 'ENOENT' ? 'not found' : (code ?? (err as Error).message)})`,
    )
  }
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch (err) {
    throw new ConfigError(`genesis ${path}: invalid JSON (${(err as Error).message.split('\n')[0]})`)
  }
  return checkGenesis(json, `genesis ${path}`)
}

function isObject(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === 'object' && !Array.isArray(value)
}

function show(value: unknown): string {
  return value === undefined ? 'nothing' : JSON.stringify(value)
}

/** checkGenesis validates a parsed genesis and returns a normalised copy. `label` prefixes errors. */
export function checkGenesis(value: unknown, label = 'genesis'): GethGenesis {
  const fail = (where: string, expected: string, got: unknown): never => {
    throw new ConfigError(`${label}: ${where}: expected ${expected}, got ${show(got)}`)
  }
  if (!isObject(value)) throw new ConfigError(`${label}: expected a JSON object`)
  const genesis = structuredClone(value)

  const quantity = (where: string, raw: unknown): string => {
    if (typeof raw === 'number' && Number.isSafeInteger(raw) && raw >= 0) return `0x${raw.toString(16)}`
    if (typeof raw === 'string' && DECIMAL.test(raw)) return `0x${BigInt(raw).toString(16)}`
    if (typeof raw === 'string' && HEX_QUANTITY.test(raw)) return raw
    return fail(where, 'a hex or decimal quantity', raw)
  }
  const hexData = (where: string, raw: unknown, bytes?: number): string => {
    const ok =
      typeof raw === 'string' &&
      HEX.test(raw) &&
      raw.length % 2 === 0 &&
      (bytes === undefined || raw.length === 2 + 2 * bytes)
    if (!ok) fail(where, bytes === undefined ? '0x-prefixed hex bytes' : `${bytes} bytes of 0x-prefixed hex`, raw)
    return raw as string
  }

  unknownKey(label, '', genesis, GENESIS_KEYS)
  const config = genesis.config
  if (!isObject(config)) return fail('config', 'an object', config)
  unknownKey(label, 'config.', config, GENESIS_CONFIG_KEYS)
  if (typeof config.chainId !== 'number' || !Number.isSafeInteger(config.chainId) || config.chainId < 1) {
    fail('config.chainId', 'a positive integer', config.chainId)
  }
  for (const [key, v] of Object.entries(config)) {
    if (!/(Block|Time)$/.test(key) || v === null || v === undefined) continue
    if (typeof v !== 'number' || !Number.isSafeInteger(v) || v < 0) fail(`config.${key}`, 'a non-negative integer', v)
  }
  if (config.ibft !== undefined) {
    const ibft = config.ibft
    if (!isObject(ibft)) return fail('config.ibft', 'an object {blockTime, epochSize}', ibft)
    unknownKey(label, 'config.ibft.', ibft, IBFT_KEYS)
    if (typeof ibft.blockTime !== 'number' || !(ibft.blockTime >= 0))
      fail('config.ibft.blockTime', 'seconds >= 0', ibft.blockTime)
    if (typeof ibft.epochSize !== 'number' || !Number.isSafeInteger(ibft.epochSize) || ibft.epochSize < 1) {
      fail('config.ibft.epochSize', 'a positive integer', ibft.epochSize)
    }
  }
  if (config.baseFeeRecipient !== undefined) hexData('config.baseFeeRecipient', config.baseFeeRecipient, 20)

  for (const key of ['gasLimit', 'difficulty'] as const) {
    if (genesis[key] === undefined) throw new ConfigError(`${label}: ${key} is missing`)
    genesis[key] = quantity(key, genesis[key])
  }
  genesis.nonce = genesis.nonce === undefined ? '0x0' : quantity('nonce', genesis.nonce)
  genesis.timestamp = genesis.timestamp === undefined ? '0x0' : quantity('timestamp', genesis.timestamp)
  genesis.extraData = genesis.extraData === undefined ? '0x' : hexData('extraData', genesis.extraData)
  for (const key of ['number', 'gasUsed', 'baseFeePerGas', 'excessBlobGas', 'blobGasUsed'] as const) {
    const v = genesis[key]
    if (v !== undefined && v !== null) genesis[key] = quantity(key, v)
  }
  if (genesis.mixHash !== undefined) hexData('mixHash', genesis.mixHash, 32)
  if (genesis.parentHash !== undefined) hexData('parentHash', genesis.parentHash, 32)
  if (genesis.coinbase !== undefined) hexData('coinbase', genesis.coinbase, 20)

  const alloc = genesis.alloc
  if (!isObject(alloc)) return fail('alloc', 'an object {address: {balance, code?, storage?, nonce?}}', alloc)
  for (const [address, account] of Object.entries(alloc)) {
    const where = `alloc ${address}`
    if (!/^(0x)?[0-9a-fA-F]{40}$/.test(address))
      throw new ConfigError(`${label}: alloc: ${show(address)} is not an address (40 hex digits)`)
    if (!isObject(account)) return fail(where, 'an object {balance, code?, storage?, nonce?}', account)
    for (const key of Object.keys(account)) {
      if (!['balance', 'code', 'storage', 'nonce'].includes(key)) {
        throw new ConfigError(
          `${label}: ${where}: unknown field ${show(key)} (accepted: balance, code, storage, nonce)`,
        )
      }
    }
    const out = account as unknown as GethGenesisAccount
    out.balance = quantity(`${where}: balance`, account.balance)
    if (account.nonce !== undefined) out.nonce = quantity(`${where}: nonce`, account.nonce)
    if (account.code !== undefined) hexData(`${where}: code`, account.code)
    if (account.storage !== undefined) {
      if (!isObject(account.storage)) return fail(`${where}: storage`, 'an object {slot: value}', account.storage)
      for (const [slot, v] of Object.entries(account.storage)) {
        if (!HEX_QUANTITY.test(slot) || slot.length > 66)
          fail(`${where}: storage slot`, 'at most 32 bytes of 0x-prefixed hex', slot)
        if (typeof v !== 'string' || !HEX_QUANTITY.test(v) || v.length > 66)
          fail(`${where}: storage ${slot}`, 'at most 32 bytes of 0x-prefixed hex', v)
      }
    }
  }
  return genesis as unknown as GethGenesis
}

/** unknownKey throws for the first key of `object` not in `known`, naming the closest known key. */
function unknownKey(label: string, prefix: string, object: Record<string, unknown>, known: ReadonlySet<string>): void {
  for (const key of Object.keys(object)) {
    if (known.has(key)) continue
    const guess = closest(key, known)
    throw new ConfigError(
      `${label}: unknown key ${prefix}${key}${guess === undefined ? '' : ` (did you mean ${guess}?)`}`,
    )
  }
}

/** closest: the known key nearest `key` (case ignored), if it is a likely typo (a few edits away). */
function closest(key: string, known: ReadonlySet<string>): string | undefined {
  let best: string | undefined
  let bestDistance = Math.min(3, Math.floor(key.length / 3)) + 1
  for (const candidate of known) {
    const d = editDistance(key.toLowerCase(), candidate.toLowerCase())
    if (d < bestDistance) [best, bestDistance] = [candidate, d]
  }
  return best
}

function editDistance(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const cur = [i]
    for (let j = 1; j <= b.length; j++) {
      const substitution = (prev[j - 1] as number) + (a[i - 1] === b[j - 1] ? 0 : 1)
      cur[j] = Math.min((prev[j] as number) + 1, (cur[j - 1] as number) + 1, substitution)
    }
    prev = cur
  }
  return prev[b.length] as number
}

/**
 * Reading a geth-format genesis.json: every field is checked and a bad one is named in a one-line
 * ConfigError (`genesis FILE: alloc 0xab…: balance: expected a hex or decimal quantity, got "x"`).
 * Quantities written as JSON numbers or decimal strings (geth accepts both) come back as 0x-hex;
 * an absent nonce, timestamp or extraData reads as zero / empty, as in geth. Nothing else changes.
 */
import { readFileSync } from 'node:fs'

import { ConfigError } from './errors.js'
import type { GethGenesis, GethGenesisAccount } from './genesis.js'

const HEX = /^0x[0-9a-fA-F]*$/
const HEX_QUANTITY = /^0x[0-9a-fA-F]+$/
const DECIMAL = /^[0-9]+$/

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

  const config = genesis.config
  if (!isObject(config)) return fail('config', 'an object', config)
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

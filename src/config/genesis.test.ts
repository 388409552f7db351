import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { paramsBlock } from '@ethereumjs/block'
import { createCommonFromGethGenesis } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { beforeAll, describe, expect, it } from 'vitest'

import { devAccounts } from './accounts.js'
import { defaultConfig } from './defaults.js'
import { ConfigError } from './errors.js'
import {
  IBFT_MIX_HASH,
  buildGenesis,
  daoGenesis,
  encodeIbftExtraData,
  loadGenesis,
  loadPresetGenesis,
  normalizeAddress,
  packageRoot,
  presetGenesisPath,
  readExtraDataValidators,
  readGenesisFile,
  withValidators,
} from './genesis.js'
import { MULTICALL3_ADDRESS, multicall3Alloc } from './multicall3.js'

const V1 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
const V2 = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const CONFORMANCE_GENESIS = '/work/shared/conformance/execution-apis/genesis.json'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-genesis-'))
})

function errorOf(fn: () => unknown): string {
  try {
    fn()
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    expect((err as Error).message).not.toContain('\n')
    return (err as Error).message
  }
  throw new Error('expected a ConfigError')
}

function writeJson(name: string, value: unknown): string {
  const path = join(dir, name)
  writeFileSync(path, typeof value === 'string' ? value : JSON.stringify(value))
  return path
}

describe('IBFT extraData', () => {
  it('is 32 zero bytes then RLP([validators, 0x80, [], [], 0x80])', () => {
    const extra = hexToBytes(encodeIbftExtraData([V1, V2.toLowerCase()]) as `0x${string}`)
    expect(extra.subarray(0, 32)).toEqual(new Uint8Array(32))
    const [validators, seal, committed, parentCommitted, round] = RLP.decode(extra.subarray(32)) as unknown[]
    expect((validators as Uint8Array[]).map((v) => bytesToHex(v))).toEqual([V1.toLowerCase(), V2.toLowerCase()])
    expect(seal).toEqual(new Uint8Array(0))
    expect(committed).toEqual([])
    expect(parentCommitted).toEqual([])
    expect(round).toEqual(new Uint8Array(0))
    // the tail is literally 0x80 c0 c0 80
    expect(bytesToHex(extra.subarray(extra.length - 4))).toBe('0x80c0c080')
  })

  it('round-trips through readExtraDataValidators', () => {
    expect(readExtraDataValidators(encodeIbftExtraData([V2, V1]))).toEqual([V2, V1])
    expect(errorOf(() => readExtraDataValidators('0x1234'))).toMatch(/^extraData is not IBFT extraData/)
  })

  it('rejects bad validator lists', () => {
    expect(errorOf(() => encodeIbftExtraData([]))).toBe('an IBFT genesis needs at least one validator')
    expect(errorOf(() => encodeIbftExtraData([V1, V1.toLowerCase()]))).toBe(`validator ${V1} listed twice`)
    expect(errorOf(() => encodeIbftExtraData(['0x1234']))).toBe(
      'invalid address "0x1234": expected 0x and 40 hex digits',
    )
    const badChecksum = `0xF${V1.slice(3)}`
    expect(errorOf(() => normalizeAddress(badChecksum))).toBe(
      `invalid address ${badChecksum}: mixed case but not a valid EIP-55 checksum`,
    )
  })
})

describe('buildGenesis', () => {
  it('builds the dev chain: id 1337, forks through Prague at 0, ten funded accounts', () => {
    const g = buildGenesis(defaultConfig('dev'), [V1])
    expect(g.config).toMatchObject({
      chainId: 1337,
      homesteadBlock: 0,
      eip155Block: 0,
      eip158Block: 0,
      byzantiumBlock: 0,
      istanbulBlock: 0,
      berlinBlock: 0,
      londonBlock: 0,
      mergeNetsplitBlock: 0,
      shanghaiTime: 0,
      cancunTime: 0,
      pragueTime: 0,
      terminalTotalDifficulty: 0,
      // the one fee rule of every preset: the RevenuePool is the blocks' miner (tips) and base fee recipient
      ibft: { blockTime: 0, epochSize: 30000, feeRecipient: daoGenesis('dev').addresses.RevenuePool },
    })
    expect(g.config.baseFeeRecipient).toBe(daoGenesis('dev').addresses.RevenuePool)
    expect(g).toMatchObject({
      gasLimit: '0x1c9c380',
      baseFeePerGas: '0x3b9aca00',
      difficulty: '0x1',
      nonce: '0x0',
      timestamp: '0x0',
      mixHash: IBFT_MIX_HASH,
      coinbase: '0x0000000000000000000000000000000000000000',
    })
    expect(readExtraDataValidators(g.extraData)).toEqual([V1])
    const accounts = devAccounts(10)
    expect(Object.keys(g.alloc).slice(0, 10)).toEqual(accounts.map((a) => a.address))
    for (const { address } of accounts) expect(BigInt(g.alloc[address].balance)).toBe(10_000n * 10n ** 18n)
    // then the Validator DAO and the funded DAO applicant accounts 10-19 (contracts/genesis/dev.json)
    expect(Object.keys(g.alloc).slice(10)).toEqual([...Object.keys(daoGenesis('dev').alloc), MULTICALL3_ADDRESS])
  })

  it('takes a chain id, alloc and timestamp', () => {
    const g = buildGenesis(defaultConfig('testnet'), [V1], {
      chainId: 99,
      alloc: { [V2]: { balance: '0x1' } },
      timestamp: 16,
    })
    expect(g.config.chainId).toBe(99)
    expect(g.alloc).toEqual({ [V2]: { balance: '0x1' } })
    expect(g.timestamp).toBe('0x10')
    expect(g.config.ibft?.blockTime).toBe(2)
    expect(Object.keys(buildGenesis(defaultConfig('mainnet'), [V1]).alloc)).toEqual([MULTICALL3_ADDRESS])
  })

  it('is accepted by ethereumjs as a Prague chain with Ethereum blob parameters', () => {
    const g = buildGenesis(defaultConfig('dev'), [V1])
    const common = createCommonFromGethGenesis(g as never, { chain: 'ibex' })
    expect(common.chainId()).toBe(1337n)
    expect(common.hardfork()).toBe('prague')
    expect(common.consensusType()).toBe('pos') // ethereumjs reads post-merge forks as PoS (see module doc)
    // blobSchedule (kept for geth) must not change what ethereumjs would use by default
    const { blobSchedule: _, ...withoutBlobs } = g.config
    const reference = createCommonFromGethGenesis({ ...g, config: withoutBlobs } as never, { chain: 'ibex' })
    common.updateParams(paramsBlock)
    reference.updateParams(paramsBlock)
    for (const p of ['targetBlobGasPerBlock', 'maxBlobGasPerBlock', 'blobGasPriceUpdateFraction', 'initialBaseFee']) {
      expect(common.param(p)).toBe(reference.param(p))
    }
    expect(common.param('maxBlobGasPerBlock')).toBe(9n * 131072n)
  })

  it('withValidators replaces the list and keeps the vanity', () => {
    const g = { ...buildGenesis(defaultConfig('dev'), [V1]) }
    g.extraData = `0x${'ab'.repeat(32)}${g.extraData.slice(66)}`
    const h = withValidators(g, [V2])
    expect(h.extraData.slice(0, 66)).toBe(`0x${'ab'.repeat(32)}`)
    expect(readExtraDataValidators(h.extraData)).toEqual([V2])
    expect(readExtraDataValidators(g.extraData)).toEqual([V1])
  })
})

describe('presets', () => {
  it.each([
    ['testnet', 7860],
    ['mainnet', 786],
  ] as const)('%s loads with chain id %i, 4 validators, the DAO in alloc', (network, chainId) => {
    expect(existsSync(presetGenesisPath(network))).toBe(true)
    const g = loadPresetGenesis(network)
    expect(g.config.chainId).toBe(chainId)
    // the RevenuePool is the blocks' miner (tips) as well as the base fee recipient
    expect(g.config.ibft).toEqual({
      blockTime: 2,
      epochSize: 30000,
      feeRecipient: daoGenesis(network).addresses.RevenuePool,
    })
    expect(g.config.pragueTime).toBe(0)
    expect(g.mixHash).toBe(IBFT_MIX_HASH)
    expect(readExtraDataValidators(g.extraData)).toHaveLength(4)
    expect(g.alloc).toEqual({ ...daoGenesis(network).alloc, ...multicall3Alloc() })
    expect(g.config.baseFeeRecipient).toBe(daoGenesis(network).addresses.RevenuePool)
    expect(createCommonFromGethGenesis(g as never, { chain: network }).chainId()).toBe(BigInt(chainId))
    expect(loadGenesis(defaultConfig(network))).toEqual(g)
  })

  it('finds the package root from src/', () => {
    expect(existsSync(join(packageRoot(), 'package.json'))).toBe(true)
    expect(existsSync(join(packageRoot(), 'src', 'config', 'genesis.ts'))).toBe(true)
  })

  it('loadGenesis builds dev around the node key and reads --genesis files', () => {
    expect(readExtraDataValidators(loadGenesis(defaultConfig('dev'), V2).extraData)).toEqual([V2])
    expect(errorOf(() => loadGenesis(defaultConfig('dev')))).toBe('the dev genesis needs the node validator address')
    const file = writeJson('custom.json', buildGenesis(defaultConfig('dev'), [V1], { chainId: 5 }))
    expect(loadGenesis({ ...defaultConfig('mainnet'), genesisFile: file }).config.chainId).toBe(5)
  })
})

describe('readGenesisFile', () => {
  const minimal = { config: { chainId: 1 }, alloc: {}, gasLimit: '0x1000', difficulty: '0x0' }

  it('fills geth defaults and turns decimal quantities into hex', () => {
    const g = readGenesisFile(
      writeJson('min.json', {
        ...minimal,
        gasLimit: 30000000,
        difficulty: '17',
        alloc: { [V1.slice(2)]: { balance: '1000', nonce: '2' } },
      }),
    )
    expect(g).toMatchObject({
      nonce: '0x0',
      timestamp: '0x0',
      extraData: '0x',
      gasLimit: '0x1c9c380',
      difficulty: '0x11',
    })
    expect(g.alloc[V1.slice(2)]).toEqual({ balance: '0x3e8', nonce: '0x2' })
  })

  it.skipIf(!existsSync(CONFORMANCE_GENESIS))('reads the conformance genesis', () => {
    const g = readGenesisFile(CONFORMANCE_GENESIS)
    expect(g.config.chainId).toBe(3503995874084926)
    expect(g.baseFeePerGas).toBeNull()
    expect(Object.keys(g.alloc)).toHaveLength(27)
  })

  it.each([
    ['{', /^invalid JSON \(/],
    ['[]', /^expected a JSON object$/],
    [{ ...minimal, config: undefined }, /^config: expected an object, got nothing$/],
    [{ ...minimal, config: { chainId: '0x1' } }, /^config\.chainId: expected a positive integer, got "0x1"$/],
    [
      { ...minimal, config: { chainId: 1, londonBlock: -1 } },
      /^config\.londonBlock: expected a non-negative integer, got -1$/,
    ],
    [
      { ...minimal, config: { chainId: 1, ibft: { blockTime: 2 } } },
      /^config\.ibft\.epochSize: expected a positive integer, got nothing$/,
    ],
    [{ ...minimal, gasLimit: undefined }, /^gasLimit is missing$/],
    [{ ...minimal, difficulty: 'x' }, /^difficulty: expected a hex or decimal quantity, got "x"$/],
    [{ ...minimal, mixHash: '0x12' }, /^mixHash: expected 32 bytes of 0x-prefixed hex, got "0x12"$/],
    [{ ...minimal, extraData: 'zz' }, /^extraData: expected 0x-prefixed hex bytes, got "zz"$/],
    [{ ...minimal, alloc: [] }, /^alloc: expected an object/],
    [{ ...minimal, alloc: { '0x12': { balance: '1' } } }, /^alloc: "0x12" is not an address \(40 hex digits\)$/],
    [
      { ...minimal, alloc: { [V1]: { balance: 'lots' } } },
      new RegExp(`^alloc ${V1}: balance: expected a hex or decimal quantity, got "lots"$`),
    ],
    [
      { ...minimal, alloc: { [V1]: { balance: '1', cod: '0x' } } },
      /unknown field "cod" \(accepted: balance, code, storage, nonce\)$/,
    ],
    [
      { ...minimal, alloc: { [V1]: { balance: '1', code: '0x1' } } },
      /: code: expected 0x-prefixed hex bytes, got "0x1"$/,
    ],
    [
      { ...minimal, alloc: { [V1]: { balance: '1', storage: { '0x01': 5 } } } },
      /: storage 0x01: expected at most 32 bytes of 0x-prefixed hex, got 5$/,
    ],
    [
      { ...minimal, config: { chainId: 1, londonBlok: 0 } },
      /^unknown key config\.londonBlok \(did you mean londonBlock\?\)$/,
    ],
    [{ ...minimal, config: { chainId: 1, ChainID: 1 } }, /^unknown key config\.ChainID \(did you mean chainId\?\)$/],
    [{ ...minimal, gaslimit: '0x1' }, /^unknown key gaslimit \(did you mean gasLimit\?\)$/],
    [{ ...minimal, validators: [] }, /^unknown key validators$/],
    [
      { ...minimal, config: { chainId: 1, ibft: { blockTime: 2, epochSize: 1, blocktime: 1 } } },
      /^unknown key config\.ibft\.blocktime \(did you mean blockTime\?\)$/,
    ],
  ])('%j → one-line error', (content, message) => {
    const path = writeJson('bad.json', content)
    const error = errorOf(() => readGenesisFile(path))
    expect(error.startsWith(`genesis ${path}: `)).toBe(true)
    expect(error.slice(`genesis ${path}: `.length)).toMatch(message)
  })

  it("accepts geth's fields, old ones and ours", () => {
    const config = {
      chainId: 1,
      daoForkBlock: 0,
      daoForkSupport: true,
      eip150Hash: `0x${'00'.repeat(32)}`,
      osakaTime: 0,
      bpo1Time: 0,
      terminalTotalDifficultyPassed: true,
      depositContractAddress: V1,
      ethash: {},
      clique: { period: 1, epoch: 30000 },
      baseFeeRecipient: V1,
      ibft: { blockTime: 1, epochSize: 10, validators: [V1], feeRecipient: V1 },
    }
    const g = { ...minimal, config, mixhash: `0x${'00'.repeat(32)}`, slotNumber: '0x0', blobGasUsed: '0x0' }
    expect(readGenesisFile(writeJson('geth.json', g)).config.osakaTime).toBe(0)
  })

  it('names a missing file', () => {
    const path = join(dir, 'none.json')
    expect(errorOf(() => readGenesisFile(path))).toBe(`genesis ${path}: cannot read file (not found)`)
  })
})

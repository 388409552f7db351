import { describe, expect, it } from 'vitest'
import { forkIdHash, latestTimeFork, precompilesAt, systemContractsAt, TIME_FORKS } from './forks.js'

const MAINNET_GENESIS = Buffer.from('d4e56740f876aef8c010b86a40d5f56745a118d0906a34e69aec8c0db1cb8fa3', 'hex')

function hex(b: Uint8Array): string {
  return `0x${Buffer.from(b).toString('hex')}`
}

describe('forkIdHash (EIP-2124 test vectors, mainnet)', () => {
  it('is the CRC32 of the genesis hash, then of every passed fork block', () => {
    expect(hex(forkIdHash({ config: {} }, MAINNET_GENESIS, 0n))).toBe('0xfc64ec04')
    expect(hex(forkIdHash({ config: { homesteadBlock: 1150000 } }, MAINNET_GENESIS, 0n))).toBe('0x97c2c34c')
    const muirGlacier = {
      homesteadBlock: 1150000,
      daoForkBlock: 1920000,
      eip150Block: 2463000,
      eip155Block: 2675000,
      eip158Block: 2675000,
      byzantiumBlock: 4370000,
      constantinopleBlock: 7280000,
      petersburgBlock: 7280000,
      istanbulBlock: 9069000,
      muirGlacierBlock: 9200000,
    }
    expect(hex(forkIdHash({ config: muirGlacier }, MAINNET_GENESIS, 0n))).toBe('0xe029e991')
  })

  it('counts timestamp forks up to the time asked for, skipping those at genesis', () => {
    const genesis = { timestamp: '0x0', config: { shanghaiTime: 0, cancunTime: 100 } }
    expect(forkIdHash(genesis, MAINNET_GENESIS, 99n)).toEqual(forkIdHash({ config: {} }, MAINNET_GENESIS, 0n))
    expect(forkIdHash(genesis, MAINNET_GENESIS, 100n)).not.toEqual(forkIdHash(genesis, MAINNET_GENESIS, 99n))
  })
})

describe('fork contents', () => {
  const genesis = { config: { shanghaiTime: 10, cancunTime: 20, pragueTime: 30, osakaTime: 40 } }

  it('finds the latest timestamp fork', () => {
    expect(latestTimeFork(genesis, 5n)).toBe(-1)
    expect(TIME_FORKS[latestTimeFork(genesis, 35n)]?.name).toBe('prague')
  })

  it('lists precompiles and system contracts by fork, with geth names', () => {
    expect(Object.keys(precompilesAt(genesis, 10n))).toHaveLength(9)
    expect(precompilesAt(genesis, 20n).KZG_POINT_EVALUATION).toBe('0x000000000000000000000000000000000000000a')
    expect(Object.keys(precompilesAt(genesis, 30n))).toHaveLength(17)
    expect(precompilesAt(genesis, 40n).P256VERIFY).toBe('0x0000000000000000000000000000000000000100')
    expect(Object.keys(systemContractsAt(genesis, 20n))).toEqual(['BEACON_ROOTS_ADDRESS'])
    expect(systemContractsAt(genesis, 30n).DEPOSIT_CONTRACT_ADDRESS).toBe('0x00000000219ab540356cbb839cbe05303d7705fa')
  })
})

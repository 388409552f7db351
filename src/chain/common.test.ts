import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../config/defaults.js'
import { buildGenesis, daoGenesis, loadPresetGenesis } from '../config/genesis.js'
import { feeRouting, type GenesisJson } from './common.js'

const VALIDATOR = '0x00000000000000000000000000000000000000aa'

describe('feeRouting', () => {
  it('every preset (dev, testnet, mainnet): tips and base fee both go to the RevenuePool, never the validator', () => {
    const presets = [
      buildGenesis(defaultConfig('dev'), [VALIDATOR]),
      loadPresetGenesis('testnet'),
      loadPresetGenesis('mainnet'),
    ] as unknown as GenesisJson[]
    for (const genesis of presets) {
      const pool = genesis.config.baseFeeRecipient.toLowerCase()
      expect(pool).toBe(daoGenesis('dev').addresses.RevenuePool?.toLowerCase())
      const { coinbase, baseFeeRecipient } = feeRouting(genesis, VALIDATOR)
      expect(bytesToHex(coinbase)).toBe(pool)
      expect(bytesToHex(baseFeeRecipient as Uint8Array)).toBe(pool)
    }
  })

  it('a genesis without fee settings: validator gets the tips, the base fee is burned', () => {
    const { coinbase, baseFeeRecipient } = feeRouting(
      { config: { ibft: { blockTime: 2, epochSize: 30000 } } },
      VALIDATOR,
    )
    expect(bytesToHex(coinbase)).toBe(VALIDATOR)
    expect(baseFeeRecipient).toBeUndefined()
  })
})

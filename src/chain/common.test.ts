import { bytesToHex } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'
import { defaultConfig } from '../config/defaults.js'
import { buildGenesis, loadPresetGenesis } from '../config/genesis.js'
import { feeRouting, type GenesisJson } from './common.js'

const VALIDATOR = '0x00000000000000000000000000000000000000aa'

describe('feeRouting', () => {
  it('testnet and mainnet: tips and base fee both go to the RevenuePool', () => {
    for (const network of ['testnet', 'mainnet'] as const) {
      const genesis = loadPresetGenesis(network) as unknown as GenesisJson
      const { coinbase, baseFeeRecipient } = feeRouting(genesis, VALIDATOR)
      expect(bytesToHex(coinbase)).toBe(genesis.config.baseFeeRecipient.toLowerCase())
      expect(bytesToHex(baseFeeRecipient as Uint8Array)).toBe(genesis.config.baseFeeRecipient.toLowerCase())
    }
  })

  it('dev: tips to the sealing validator, base fee to the RevenuePool', () => {
    const genesis = buildGenesis(defaultConfig('dev'), [VALIDATOR]) as unknown as GenesisJson
    const { coinbase, baseFeeRecipient } = feeRouting(genesis, VALIDATOR)
    expect(bytesToHex(coinbase)).toBe(VALIDATOR)
    expect(baseFeeRecipient).toBeDefined()
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

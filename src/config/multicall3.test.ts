/**
 * Multicall3's code is the canonical one, and every preset's genesis carries it at its address.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { keccak256 } from '../util/keccak.js'
import { defaultConfig } from './defaults.js'
import { buildGenesis, loadPresetGenesis } from './genesis.js'
import { MULTICALL3_ADDRESS, MULTICALL3_CODE_HASH, MULTICALL3_RUNTIME_CODE, multicall3Alloc } from './multicall3.js'

const V1 = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266'
/** Selectors Multicall3 dispatches on (aggregate3, tryAggregate, getEthBalance): a sanity check on the code. */
const SELECTORS = ['82ad56cb', 'bce38bd7', '4d2301cc']

describe('Multicall3', () => {
  it('has the canonical code: 3,808 bytes hashing to the code hash of the deployment at 0xcA11…CA11', () => {
    const code = hexToBytes(MULTICALL3_RUNTIME_CODE as `0x${string}`)
    expect(code.length).toBe(3808)
    expect(bytesToHex(keccak256(code))).toBe(MULTICALL3_CODE_HASH)
    for (const s of SELECTORS) expect(MULTICALL3_RUNTIME_CODE).toContain(`63${s}`)
  })

  it('is in the genesis of dev, testnet and mainnet, and of a chain built from a preset', () => {
    const entry = multicall3Alloc()[MULTICALL3_ADDRESS]
    expect(entry).toEqual({ balance: '0x0', nonce: '0x1', code: MULTICALL3_RUNTIME_CODE })
    for (const network of ['dev', 'testnet', 'mainnet'] as const) {
      expect(buildGenesis(defaultConfig(network), [V1]).alloc[MULTICALL3_ADDRESS]).toEqual(entry)
    }
    for (const network of ['testnet', 'mainnet'] as const) {
      expect(loadPresetGenesis(network).alloc[MULTICALL3_ADDRESS]).toEqual(entry)
    }
  })

  it('is left out when a caller gives its own alloc', () => {
    expect(buildGenesis(defaultConfig('dev'), [V1], { alloc: {} }).alloc).toEqual({})
  })
})

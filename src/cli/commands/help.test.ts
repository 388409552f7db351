/** The defaults as --help and the README show them (help.ts derives them from the settings rows). */
import { describe, expect, it } from 'vitest'
import { SETTINGS } from '../../config/settings.js'
import { describeDefault } from './help.js'

const settingOf = (key: string) => SETTINGS.find((s) => s.key === key) ?? SETTINGS.find((s) => s.flag === key)

describe('describeDefault', () => {
  it.each([
    ['network', 'mainnet'],
    ['datadir', './data/<network> (--genesis: ./data/custom)'],
    ['genesis', 'the network preset'],
    ['block_time', '2s (dev: 0)'],
    ['jsonrpc.cors_origins', 'none (dev: *)'],
    ['jsonrpc.rate_limit', '200 (dev, --genesis: 0)'],
    ['jsonrpc.rate_burst', '2s'],
    ['jsonrpc.max_body_bytes', '5242880 (5 MiB)'],
    ['txpool.price_limit', '1gwei (dev: 0)'],
    ['chain.name', 'Ibex Mainnet (testnet: Ibex Testnet; dev: Ibex Dev)'],
    ['chain.explorer_url', '"" (none)'],
    ['p2p.port', 'p2p off (30303 once on)'],
    ['exec.workers', 'cores - 1 (at least 1)'],
    ['faucet.amount', '1ether'],
  ])('%s: %s', (key, text) => {
    expect(describeDefault(settingOf(key) as never)).toBe(text)
  })
})

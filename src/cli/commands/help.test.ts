/** The defaults as --help and the README show them (help.ts derives them from the settings rows). */
import { describe, expect, it } from 'vitest'
import { SETTINGS } from '../../config/settings.js'
import { COMMAND_SETTINGS, commandSettings, describeDefault, formatHelp } from './help.js'

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

describe('per-command help', () => {
  it('names only flags the settings table has', () => {
    const flags = new Set(SETTINGS.map((s) => s.flag))
    for (const names of Object.values(COMMAND_SETTINGS)) for (const name of names) expect(flags).toContain(name)
  })

  it("shows a command's own flags; start and the overview show every flag", () => {
    expect(commandSettings('export').map((s) => s.flag)).toEqual([
      'network',
      'genesis',
      'datadir',
      'config',
      'log-level',
      'log-format',
    ])
    expect(commandSettings('start')).toHaveLength(SETTINGS.filter((s) => s.flag !== undefined).length)
    expect(formatHelp('export')).not.toContain('--http.port')
    expect(formatHelp()).toContain('--http.port')
  })
})

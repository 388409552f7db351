import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig } from './load.js'

/** load: loadConfig with an empty environment (IBEX_CONFIG unset). */
function load(...argv: string[]) {
  return loadConfig(argv, {})
}

function errorOf(argv: string[]): string {
  try {
    loadConfig(argv, {})
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    const message = (err as Error).message
    expect(message).not.toContain('\n')
    return message
  }
  throw new Error(`expected a ConfigError for ${argv.join(' ')}`)
}

describe('commands', () => {
  it('recognises every command', () => {
    expect(load().command).toBe('help')
    expect(load('--help').command).toBe('help')
    expect(load('-h').command).toBe('help')
    expect(load('help', 'start')).toMatchObject({ command: 'help', extra: { topic: 'start' } })
    expect(load('start', '--help')).toMatchObject({ command: 'help', extra: { topic: 'start' } })
    expect(load('version').command).toBe('version')
    expect(load('--version').command).toBe('version')
    expect(load('init', '--datadir', 'd', '--network', 'testnet').command).toBe('init')
  })

  it('rejects unknown commands and flags before a command', () => {
    expect(errorOf(['serve'])).toBe(
      'unknown command "serve" (accepted: start, init, import, export, genesis, faucet, chain-info, help, version)',
    )
    expect(errorOf(['help', 'serve'])).toBe(
      'unknown command "serve" (accepted: start, init, import, export, genesis, faucet, chain-info, help, version)',
    )
    expect(errorOf(['--network', 'dev'])).toBe(
      'missing command before --network: ibex <start|init|import|export|genesis|faucet|chain-info|help|version> [flags] (see ibex --help)',
    )
  })

  it('reads import and export arguments', () => {
    expect(load('import', '--datadir', 'd', 'chain.rlp').extra).toMatchObject({ file: 'chain.rlp' })
    expect(load('export', 'out.rlp').extra).toEqual({ args: ['out.rlp'], file: 'out.rlp' })
    expect(load('export', 'out.rlp', '5', '0x10').extra).toMatchObject({ file: 'out.rlp', first: 5n, last: 16n })
    expect(errorOf(['import'])).toBe('missing FILE: ibex import --datadir DIR FILE.rlp')
    expect(errorOf(['export'])).toBe('missing FILE: ibex export --datadir DIR FILE.rlp [FIRST [LAST]]')
    expect(errorOf(['import', 'a.rlp', 'b.rlp'])).toBe('unexpected argument "b.rlp" for ibex import')
    expect(errorOf(['export', 'a.rlp', 'one'])).toBe(
      'invalid FIRST block "one": expected a block number (decimal or 0x hex)',
    )
    expect(errorOf(['export', 'a.rlp', '9', '3'])).toBe('invalid block range 9..3: LAST must not be below FIRST')
    expect(load('import', '--', '--odd-name.rlp').extra.file).toBe('--odd-name.rlp')
  })

  it('reads genesis flags', () => {
    expect(load('genesis', '--validators', '4', '--out', 'net').extra).toMatchObject({ validators: 4, out: 'net' })
    const addresses = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266,0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
    expect(load('genesis', '--addresses', addresses, '--out', 'n', '--chain-id', '99').extra).toMatchObject({
      addresses: addresses.split(','),
      chainId: 99,
    })
    expect(errorOf(['genesis', '--out', 'x'])).toBe(
      'ibex genesis needs exactly one of --validators N or --addresses LIST',
    )
    expect(errorOf(['genesis', '--validators', '2'])).toBe('ibex genesis needs --out DIR')
    expect(errorOf(['genesis', '--validators', '0', '--out', 'x'])).toBe(
      'invalid --validators "0": expected an integer 1-1000',
    )
    expect(errorOf(['genesis', '--addresses', '0x12', '--out', 'x'])).toBe(
      'invalid --addresses "0x12": expected a comma-separated list of 0x-prefixed 20-byte addresses',
    )
    expect(errorOf(['genesis', '--validators', '1', '--out', 'x', '--chain-id', '0'])).toBe(
      'invalid --chain-id "0": expected an integer >= 1',
    )
  })
})

import { describe, expect, it } from 'vitest'

import { ConfigError, loadConfig } from './load.js'

/** load: loadConfig with an empty environment (IBEX_CONFIG unset). */
function load(...argv: string[]) {
  return loadConfig(argv, {})
}

/** rejects: loading `argv` throws a ConfigError with exactly `message`. */
function rejects(argv: string[], message: string): void {
  expect(() => loadConfig(argv, {})).toThrow(ConfigError)
  expect(() => loadConfig(argv, {})).toThrow(new ConfigError(message))
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
    rejects(
      ['serve'],
      'unknown command "serve" (accepted: start, init, import, export, genesis, faucet, chain-info, checkpoint, help, version)',
    )
    rejects(
      ['help', 'serve'],
      'unknown command "serve" (accepted: start, init, import, export, genesis, faucet, chain-info, checkpoint, help, version)',
    )
    rejects(
      ['--network', 'dev'],
      'missing command before --network: ibex <start|init|import|export|genesis|faucet|chain-info|checkpoint|help|version> [flags] (see ibex --help)',
    )
  })

  it('reads import and export arguments', () => {
    expect(load('import', '--datadir', 'd', 'chain.rlp').extra).toMatchObject({ file: 'chain.rlp' })
    expect(load('export', 'out.rlp').extra).toEqual({ args: ['out.rlp'], file: 'out.rlp' })
    expect(load('export', 'out.rlp', '5', '0x10').extra).toMatchObject({ file: 'out.rlp', first: 5n, last: 16n })
    rejects(['import'], 'missing FILE: ibex import --datadir DIR FILE.rlp')
    rejects(['export'], 'missing FILE: ibex export --datadir DIR FILE.rlp [FIRST [LAST]]')
    rejects(['import', 'a.rlp', 'b.rlp'], 'unexpected argument "b.rlp" for ibex import')
    rejects(['export', 'a.rlp', 'one'], 'invalid FIRST block "one": expected a block number (decimal or 0x hex)')
    rejects(['export', 'a.rlp', '9', '3'], 'invalid block range 9..3: LAST must not be below FIRST')
    expect(load('import', '--', '--odd-name.rlp').extra.file).toBe('--odd-name.rlp')
  })

  it('reads genesis flags', () => {
    expect(load('genesis', '--validators', '4', '--out', 'net').extra).toMatchObject({ validators: 4, out: 'net' })
    const addresses = '0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266,0x70997970c51812dc3a010c7d01b50e0d17dc79c8'
    expect(load('genesis', '--addresses', addresses, '--out', 'n', '--chain-id', '99').extra).toMatchObject({
      addresses: addresses.split(','),
      chainId: 99,
    })
    rejects(['genesis', '--out', 'x'], 'ibex genesis needs exactly one of --validators N or --addresses LIST')
    rejects(['genesis', '--validators', '2'], 'ibex genesis needs --out DIR')
    rejects(['genesis', '--validators', '0', '--out', 'x'], 'invalid --validators "0": expected an integer 1-1000')
    rejects(
      ['genesis', '--addresses', '0x12', '--out', 'x'],
      'invalid --addresses "0x12": expected a comma-separated list of 0x-prefixed 20-byte addresses',
    )
    rejects(
      ['genesis', '--validators', '1', '--out', 'x', '--chain-id', '0'],
      'invalid --chain-id "0": expected an integer >= 1',
    )
  })
})

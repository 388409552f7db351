/**
 * `ibex <command> --help` through the binary shows that command's own flags, not every global
 * one; `ibex --help` still lists them all. `ibex faucet` without a config file asks for one.
 */
import { type SpawnSyncReturns, spawnSync } from 'node:child_process'
import { describe, expect, it } from 'vitest'
import { REPO_ROOT } from './helpers/compile.js'
import { IBEX_BIN } from './helpers/node.js'

const BIN = process.env.IBEX_E2E_BIN ?? IBEX_BIN

function ibex(...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: 30_000,
    env: { ...process.env, IBEX_CONFIG: '' },
  })
}

/** The flags a help text lists (`  --name ...` rows). */
function flagsOf(text: string): string[] {
  return [...text.matchAll(/^ {2}(--[a-z0-9.-]+)/gm)].map((m) => m[1] as string)
}

describe('per-command help', () => {
  const all = flagsOf(ibex('--help').stdout)

  it('ibex --help lists every flag', () => {
    expect(all.length).toBeGreaterThan(50)
    for (const flag of ['--network', '--http.port', '--rpc.gascap', '--validators', '--out'])
      expect(all).toContain(flag)
  })

  it.each([
    [
      'export',
      ['--datadir', '--network', '--genesis', '--config', '--log-level'],
      ['--http.port', '--rpc.gascap', '--validators'],
    ],
    [
      'init',
      ['--datadir', '--genesis', '--validator-key', '--block-time'],
      ['--http.port', '--exec.workers', '--bootnodes'],
    ],
    ['import', ['--datadir', '--genesis', '--validator-key'], ['--metrics', '--txpool.pricebump']],
    ['genesis', ['--validators', '--out', '--chain-id', '--prefund', '--block-time'], ['--datadir', '--http.port']],
    ['chain-info', ['--network', '--config', '--http.port'], ['--datadir', '--rpc.gascap']],
  ])('ibex %s --help: its own flags only', (command, shown, hidden) => {
    const r = ibex(command, '--help')
    expect(r.status).toBe(0)
    expect(r.stdout.split('\n')[0]).toMatch(new RegExp(`^Usage: ibex ${command}`))
    const flags = flagsOf(r.stdout)
    for (const flag of shown) expect(flags).toContain(flag)
    for (const flag of hidden) expect(flags).not.toContain(flag)
    expect(flags.length).toBeLessThan(all.length / 3)
  })

  it('ibex start --help keeps every node flag', () => {
    const flags = flagsOf(ibex('start', '--help').stdout)
    for (const flag of ['--http.port', '--rpc.gascap', '--bootnodes', '--metrics', '--exec.workers'])
      expect(flags).toContain(flag)
    expect(flags).not.toContain('--validators')
  })

  it('ibex faucet --help lists its [faucet] keys', () => {
    const r = ibex('faucet', '--help')
    expect(r.stdout).toContain('[faucet] key_file')
    expect(r.stdout).toContain('[faucet] rpc_url')
  })
})

describe('ibex faucet without a config file', () => {
  it('asks for --config and names the [faucet] keys', () => {
    const r = ibex('faucet')
    expect(r.status).toBe(2)
    expect(r.stderr.trim()).toBe(
      'ibex: ibex faucet needs a config file: ibex faucet --config FILE (or $IBEX_CONFIG), with network = "testnet" or "dev" and a [faucet] section: key_file (required), rpc_url, amount, cooldown, daily_budget, host, port (see ibex faucet --help)',
    )
  })
})

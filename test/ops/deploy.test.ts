/**
 * deploy/: the systemd units pass `systemd-analyze verify` with no complaint (it exits 0 even on
 * unknown keys, so any output fails), carry the hardening the operations issue asks for, the
 * example configs load, and deploy/chains/ is what `ibex chain-info` prints for them.
 */
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { REPO_ROOT } from '../helpers/compile.js'
import { IBEX_BIN } from '../helpers/node.js'

const DEPLOY = join(REPO_ROOT, 'deploy')
const UNITS = readdirSync(DEPLOY).filter((f) => f.endsWith('.service'))
const ANALYZE = ['/usr/bin/systemd-analyze', '/bin/systemd-analyze'].find((p) => existsSync(p))

describe('systemd units', () => {
  it('are the full node, the validator and the faucet', () => {
    expect(UNITS.sort()).toEqual(['ibex-faucet.service', 'ibex-validator.service', 'ibex.service'])
  })

  it.skipIf(ANALYZE === undefined)('pass systemd-analyze verify without a warning', () => {
    const r = spawnSync(ANALYZE as string, ['verify', ...UNITS.map((u) => join(DEPLOY, u))], { encoding: 'utf8' })
    expect(`${r.stdout}${r.stderr}`).toBe('')
    expect(r.status).toBe(0)
  })

  it.each(['ibex.service', 'ibex-validator.service'])('%s runs hardened, restarts on failure, fits 8 GB', (unit) => {
    const text = readFileSync(join(DEPLOY, unit), 'utf8')
    for (const line of [
      'User=ibex',
      'Restart=on-failure',
      'NoNewPrivileges=true',
      'ProtectSystem=strict',
      'ReadWritePaths=/var/lib/ibex',
      'PrivateTmp=true',
      'LimitNOFILE=65536',
      'MemoryMax=7G',
      'StateDirectory=ibex',
      'EnvironmentFile=-/etc/default/ibex',
    ]) {
      expect(text, unit).toContain(`\n${line}\n`)
    }
    // the stop timeout leaves room for the shutdown grace period (10 s) and closing the database
    expect(Number(/\nTimeoutStopSec=(\d+)\n/.exec(text)?.[1])).toBeGreaterThanOrEqual(30)
  })
})

describe('example configs and chain registry entries', () => {
  const configs = readdirSync(join(DEPLOY, 'config')).filter((f) => f.endsWith('.toml'))

  it.each(configs)('deploy/config/%s loads', (file) => {
    const r = spawnSync(process.execPath, [IBEX_BIN, 'chain-info', '--config', join(DEPLOY, 'config', file)], {
      encoding: 'utf8',
    })
    expect(r.stderr.split('\n').filter((l) => l.startsWith('ibex:') && !l.includes('not set in the config'))).toEqual(
      [],
    )
    expect(r.status).toBe(0)
  })

  it.each([
    ['mainnet', 786],
    ['testnet', 7860],
  ])('deploy/chains/ holds what `ibex chain-info` prints for %s', (network, chainId) => {
    const out = execFileSync(
      process.execPath,
      [IBEX_BIN, 'chain-info', '--config', join(DEPLOY, 'config', `${network}.toml`)],
      {
        encoding: 'utf8',
      },
    )
    const info = JSON.parse(out)
    const registry = JSON.parse(readFileSync(join(DEPLOY, 'chains', `eip155-${chainId}.json`), 'utf8'))
    const wallet = JSON.parse(readFileSync(join(DEPLOY, 'chains', `wallet_addEthereumChain-${chainId}.json`), 'utf8'))
    expect(registry).toEqual(info.registry)
    expect(wallet).toEqual(info.wallet_addEthereumChain)
    expect(registry).toMatchObject({ chainId, networkId: chainId, nativeCurrency: { decimals: 18 } })
    for (const key of [
      'name',
      'chain',
      'rpc',
      'faucets',
      'nativeCurrency',
      'infoURL',
      'shortName',
      'chainId',
      'networkId',
      'explorers',
    ]) {
      expect(registry, key).toHaveProperty(key)
    }
    expect(wallet.chainId).toBe(`0x${chainId.toString(16)}`)
  })

  it('`ibex chain-info --network NAME` works without a config, naming what is unset', () => {
    const r = spawnSync(process.execPath, [IBEX_BIN, 'chain-info', '--network', 'testnet'], { encoding: 'utf8' })
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).registry).toMatchObject({ name: 'Ibex Testnet', chainId: 7860, shortName: 'tibex' })
    expect(r.stderr).toContain('[chain] rpc_urls')
  })
})

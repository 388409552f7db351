import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, readdirSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { beforeEach, describe, expect, it } from 'vitest'

import { addressOfPrivateKey, devAccounts } from '../config/accounts.js'
import { daoGenesis, loadPresetGenesis, packageRoot, readExtraDataValidators } from '../config/genesis.js'
import { MULTICALL3_ADDRESS, MULTICALL3_RUNTIME_CODE } from '../config/multicall3.js'
import { parsePrivateKeyHex } from '../config/keys.js'
import { loadConfig } from '../config/load.js'
import type { IbexConfig } from '../config/types.js'
import { formatConfigTable, formatHelp, ibexVersion, refreshReadme } from './commands/help.js'
import type { CliIo } from './io.js'
import type { NodeApi } from './node-api.js'
import { runCli } from './run.js'

interface FakeIo extends CliIo {
  stdout: string[]
  stderr: string[]
  exits: number[]
  signal(name: NodeJS.Signals): void
}

function fakeIo(): FakeIo {
  const handlers = new Set<(s: NodeJS.Signals) => void>()
  const io: FakeIo = {
    stdout: [],
    stderr: [],
    exits: [],
    out: (line) => io.stdout.push(...line.split('\n')),
    err: (line) => io.stderr.push(...line.split('\n')),
    onSignal: (handler) => {
      handlers.add(handler)
      return () => handlers.delete(handler)
    },
    exit: (code) => {
      io.exits.push(code)
    },
    signal: (name) => {
      for (const h of [...handlers]) h(name)
    },
  }
  return io
}

interface Calls {
  started: IbexConfig[]
  stopped: number
  exported: unknown[][]
}

function fakeNode(calls: Calls, stop: () => Promise<void> = async () => {}): NodeApi {
  return {
    startNode: async (config) => {
      calls.started.push(config)
      return {
        url: `http://${config.jsonrpc.host}:${config.jsonrpc.port}`,
        chainId: config.network === 'dev' ? 1337n : 786n,
        validator: config.network === 'dev' ? '0x1111111111111111111111111111111111111111' : undefined,
        stop: async () => {
          calls.stopped++
          await stop()
        },
      }
    },
    initNode: async () => ({ genesisHash: `0x${'ab'.repeat(32)}`, chainId: 7860n }),
    importChain: async () => ({ blocks: 54, headNumber: 54n, headHash: `0x${'cd'.repeat(32)}` }),
    exportChain: async (_config, file, first, last) => {
      calls.exported.push([file, first, last])
      return { blocks: 3, first: first ?? 0n, last: 2n }
    },
  }
}

let io: FakeIo
let calls: Calls
let dir: string
beforeEach(() => {
  io = fakeIo()
  calls = { started: [], stopped: 0, exported: [] }
  dir = mkdtempSync(join(tmpdir(), 'ibex-cli-'))
})

/** waitFor: let the start command reach its signal wait. */
async function until(check: () => boolean): Promise<void> {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 5))
}

describe('help and version', () => {
  it('prints the help generated from the flag table', async () => {
    expect(await runCli(['--help'], io)).toBe(0)
    const text = io.stdout.join('\n')
    expect(text).toBe(formatHelp())
    for (const flag of [
      '--network NAME',
      '--http.port PORT',
      '--http.api LIST',
      '--block-time DURATION',
      '--ws',
      '--validators N',
      '--out DIR',
    ]) {
      expect(text).toContain(flag)
    }
    expect(text).toContain('[default: 8545]')
  })

  it("prints one command's help", async () => {
    expect(await runCli(['genesis', '--help'], io)).toBe(0)
    expect(io.stdout[0]).toBe('Usage: ibex genesis (--validators N | --addresses LIST) --out DIR [FLAGS]')
  })

  it('prints the version from package.json', async () => {
    expect(await runCli(['version'], io)).toBe(0)
    const pkg = JSON.parse(readFileSync(join(packageRoot(), 'package.json'), 'utf8'))
    expect(io.stdout).toEqual([`ibex ${pkg.version}`])
  })
})

describe('errors', () => {
  it('a config error is one line on stderr and exit code 2', async () => {
    expect(await runCli(['start', '--htp.port', '1'], io, fakeNode(calls))).toBe(2)
    expect(io.stderr).toEqual(['ibex: unknown flag --htp.port (did you mean --http.port?); see ibex start --help'])
    expect(io.stdout).toEqual([])
    expect(calls.started).toHaveLength(0)
  })

  it('an unexpected error is exit code 1', async () => {
    const api = {
      ...fakeNode(calls),
      startNode: async () => Promise.reject(new Error('listen EADDRINUSE: address already in use')),
    }
    expect(await runCli(['start'], io, api)).toBe(1)
    expect(io.stderr).toEqual(['ibex: listen EADDRINUSE: address already in use'])
  })

  it('shows the stack at log level debug', async () => {
    const api = { ...fakeNode(calls), initNode: async () => Promise.reject(new Error('boom')) }
    expect(await runCli(['init', '--log-level', 'debug'], io, api)).toBe(1)
    expect(io.stderr[0]).toBe('ibex: boom')
    expect(io.stderr.length).toBeGreaterThan(1)
  })
})

describe('start', () => {
  it('lists the dev accounts, then stops cleanly on SIGINT', async () => {
    const done = runCli(['start', '--network', 'dev', '--http.port', '9545'], io, fakeNode(calls))
    await until(() => io.stdout.length > 0)
    const text = io.stdout.join('\n')
    expect(text).toContain('dev network, chain id 1337')
    expect(text).toContain(
      'JSON-RPC:       http://127.0.0.1:9545 (eth, net, web3, txpool, debug, personal, evm, anvil, hardhat, ots, trace)',
    )
    expect(text).toContain('Validator:      0x1111111111111111111111111111111111111111')
    expect(text).toContain('Available accounts (10,000 IBX each)')
    devAccounts(10).forEach((a, i) => {
      expect(io.stdout).toContain(`(${i}) ${a.address}`)
      expect(io.stdout).toContain(`(${i}) ${a.privateKey}`)
    })
    expect(io.stdout.at(-1)).toBe('Listening on http://127.0.0.1:9545')
    io.signal('SIGINT')
    expect(await done).toBe(0)
    expect(calls.stopped).toBe(1)
    expect(io.exits).toEqual([])
  })

  it('lists no accounts off the dev network; a second signal exits at once', async () => {
    let release = () => {}
    const slowStop = () =>
      new Promise<void>((resolve) => {
        release = resolve
      })
    const done = runCli(['start'], io, fakeNode(calls, slowStop))
    await until(() => io.stdout.length > 0)
    expect(io.stdout.join('\n')).not.toContain('Available accounts')
    expect(io.stdout).toContain('Validator:      none (this node follows)')
    io.signal('SIGTERM')
    io.signal('SIGTERM')
    expect(io.exits).toEqual([130])
    release()
    expect(await done).toBe(0)
    expect(calls.stopped).toBe(1)
  })
})

describe('init, import, export', () => {
  it('init prints the chain id and genesis hash', async () => {
    expect(await runCli(['init', '--network', 'testnet', '--datadir', dir], io, fakeNode(calls))).toBe(0)
    expect(io.stdout).toEqual([`Initialised ${dir}`, 'Chain id:     7860', `Genesis hash: 0x${'ab'.repeat(32)}`])
  })

  it('import and export pass their arguments', async () => {
    expect(await runCli(['import', '--datadir', dir, 'chain.rlp'], io, fakeNode(calls))).toBe(0)
    expect(io.stdout).toEqual([`Imported 54 blocks from chain.rlp; head 54 0x${'cd'.repeat(32)}`])
    expect(await runCli(['export', '--datadir', dir, 'out.rlp', '1', '2'], io, fakeNode(calls))).toBe(0)
    expect(calls.exported).toEqual([['out.rlp', 1n, 2n]])
  })
})

describe('genesis', () => {
  it('writes N keys (0600) and a genesis listing them', async () => {
    const out = join(dir, 'net')
    expect(
      await runCli(['genesis', '--network', 'dev', '--validators', '4', '--out', out, '--block-time', '1s'], io),
    ).toBe(0)
    expect(readdirSync(out).sort()).toEqual([
      'genesis.json',
      'node1',
      'node2',
      'node3',
      'node4',
      'validator-0.key',
      'validator-1.key',
      'validator-2.key',
      'validator-3.key',
    ])
    const addresses = [0, 1, 2, 3].map((i) => {
      const path = join(out, `validator-${i}.key`)
      expect(statSync(path).mode & 0o777).toBe(0o600)
      return addressOfPrivateKey(parsePrivateKeyHex(readFileSync(path, 'utf8'), path))
    })
    const genesis = JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8'))
    expect(readExtraDataValidators(genesis.extraData)).toEqual(addresses)
    expect(genesis.config).toMatchObject({ chainId: 1337, ibft: { blockTime: 1, epochSize: 30000 } })
    // the ten dev accounts, the DAO, and Multicall3
    expect(Object.keys(genesis.alloc)).toHaveLength(10 + Object.keys(daoGenesis('dev').alloc).length + 1)
    expect(genesis.alloc[MULTICALL3_ADDRESS].code).toBe(MULTICALL3_RUNTIME_CODE)
    expect(io.stdout[0]).toMatch(/^Wrote .*genesis\.json \(chain id 1337, 4 validators, block time 1s\)$/)
  })

  it('re-keys a preset, with --chain-id, from addresses, and never overwrites', async () => {
    const out = join(dir, 'main')
    const addresses = devAccounts(2).map((a) => a.address)
    expect(
      await runCli(['genesis', '--network', 'mainnet', '--addresses', addresses.join(','), '--out', out], io),
    ).toBe(0)
    expect(readdirSync(out)).toEqual(['genesis.json'])
    const genesis = JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8'))
    const preset = loadPresetGenesis('mainnet')
    expect(genesis).toEqual({ ...preset, extraData: genesis.extraData })
    expect(readExtraDataValidators(genesis.extraData)).toEqual(addresses)

    expect(await runCli(['genesis', '--network', 'mainnet', '--validators', '1', '--out', out], io)).toBe(2)
    expect(io.stderr.at(-1)).toBe(
      `ibex: --out ${out}: ${join(out, 'genesis.json')} already exists (ibex genesis never overwrites; choose an empty directory)`,
    )
    const other = join(dir, 'other')
    expect(
      await runCli(['genesis', '--network', 'testnet', '--validators', '1', '--chain-id', '78600', '--out', other], io),
    ).toBe(0)
    expect(JSON.parse(readFileSync(join(other, 'genesis.json'), 'utf8')).config.chainId).toBe(78600)
  })
})

describe('docs and the built binary', () => {
  it('README.md carries the current help text and config table (npm run docs:config)', () => {
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8')
    expect(readme).toContain(formatHelp())
    expect(readme).toContain(formatConfigTable())
    expect(refreshReadme(readme)).toBe(readme)
  })

  it('the TOML example in README.md loads', () => {
    const readme = readFileSync(join(packageRoot(), 'README.md'), 'utf8')
    // the example of the "Configuration file" section (earlier toml blocks are foundry.toml and such)
    const section = readme.slice(readme.indexOf('## Configuration file'))
    const example = /```toml\n([\s\S]*?)```/.exec(section)?.[1] as string
    const file = join(dir, 'readme.toml')
    writeFileSync(file, example)
    const { config } = loadConfig(['start', '--config', file], {})
    expect(config).toMatchObject({
      network: 'testnet',
      datadir: '/var/lib/ibex',
      jsonrpc: { host: '0.0.0.0', port: 8545 },
    })
    expect(config.txpool.priceLimit).toBe(1_000_000_000n)
  })

  const bin = join(packageRoot(), 'bin', 'ibex.js')
  const built = existsSync(join(packageRoot(), 'dist', 'src', 'cli', 'index.js'))

  it('bin/ibex.js is executable', () => {
    expect(statSync(bin).mode & 0o111).not.toBe(0)
  })

  it.skipIf(!built)('the built CLI runs, finds the presets and exits 2 on bad flags', () => {
    expect(execFileSync(process.execPath, [bin, 'version'], { encoding: 'utf8' })).toBe(`ibex ${ibexVersion()}\n`)
    const bad = spawnSync(process.execPath, [bin, 'start', '--http.port', 'abc'], { encoding: 'utf8' })
    expect(bad.status).toBe(2)
    expect(bad.stderr).toBe('ibex: invalid --http.port "abc": expected an integer 0-65535\n')
    const out = join(dir, 'built')
    const made = spawnSync(
      process.execPath,
      [bin, 'genesis', '--network', 'testnet', '--validators', '1', '--out', out],
      { encoding: 'utf8' },
    )
    expect(made.status).toBe(0)
    expect(JSON.parse(readFileSync(join(out, 'genesis.json'), 'utf8')).config.chainId).toBe(7860)
  })
})

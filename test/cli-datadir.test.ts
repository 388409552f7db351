/**
 * An operator's datadir through the CLI binary: a genesis with a misspelled key is named and leaves
 * nothing behind, a failed or killed init never poisons the datadir, a datadir holding one chain
 * refuses --network / --genesis of another, export never creates a datadir nor silently stops at the
 * head, and importing a dev chain says the dev genesis follows the validator key.
 */
import { type SpawnSyncReturns, spawn, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from './helpers/compile.js'
import { IBEX_BIN, cleanupNodes, makeTempDir, rpc, startNode, waitFor } from './helpers/node.js'

afterAll(cleanupNodes)

/** The binary under test ($IBEX_E2E_BIN runs these tests against another build). */
const BIN = process.env.IBEX_E2E_BIN ?? IBEX_BIN
/** A one-shot command's time limit: loading the EVM and RocksDB on a loaded machine. */
const COMMAND_TIMEOUT_MS = 60_000

function ibex(...args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [BIN, ...args, '--log-level', 'warn'], {
    cwd: REPO_ROOT,
    encoding: 'utf8',
    timeout: COMMAND_TIMEOUT_MS,
    env: { ...process.env, IBEX_CONFIG: '' },
  })
}

const lastLine = (r: SpawnSyncReturns<string>) => r.stderr.trim().split('\n').at(-1)
const genesisHashOf = (r: SpawnSyncReturns<string>) => /Genesis hash: (0x[0-9a-f]{64})/.exec(r.stdout)?.[1]

/** The part of a genesis.json these tests edit. */
type Genesis = { config: Record<string, unknown> } & Record<string, unknown>

/** A custom chain's genesis.json written by `ibex genesis`, and variants of it. */
function customGenesis(dir: string, chainId: number): { path: string; json: Genesis } {
  const out = join(dir, `net-${chainId}`)
  const made = ibex('genesis', '--validators', '1', '--chain-id', String(chainId), '--out', out)
  expect(made.status, made.stderr).toBe(0)
  const path = join(out, 'genesis.json')
  return { path, json: JSON.parse(readFileSync(path, 'utf8')) }
}

function variant(dir: string, name: string, json: Genesis, edit: (g: Genesis) => void) {
  const copy = structuredClone(json)
  edit(copy)
  const path = join(dir, name)
  writeFileSync(path, JSON.stringify(copy, null, 2))
  return path
}

describe('genesis keys and an all-or-nothing init', () => {
  const dir = makeTempDir('ibex-cli-datadir-')
  const { path: good, json } = customGenesis(dir, 4242)

  it('names a misspelled key and the file; nothing is left; the corrected genesis then works', () => {
    const bad = variant(dir, 'typo.json', json, (g) => {
      g.config.londonBlok = g.config.londonBlock
      delete g.config.londonBlock
    })
    for (const command of ['init', 'start']) {
      const datadir = join(dir, `typo-${command}`)
      const r = ibex(command, '--genesis', bad, '--datadir', datadir, '--http.port', '0')
      expect(r.status, r.stderr).toBe(2)
      expect(lastLine(r)).toBe(`ibex: genesis ${bad}: unknown key config.londonBlok (did you mean londonBlock?)`)
      expect(existsSync(datadir)).toBe(false)
    }
    const datadir = join(dir, 'typo-init')
    const fixed = ibex('init', '--genesis', good, '--datadir', datadir)
    expect(fixed.status, fixed.stderr).toBe(0)
    expect(fixed.stdout).toContain('Chain id:     4242')
  })

  it('a genesis the engine refuses leaves no chaindata/ behind, and does not poison the datadir', () => {
    // known keys only, but a base fee without London: refused while the genesis block is built
    const refused = variant(dir, 'no-london.json', json, (g) => {
      delete g.config.londonBlock
    })
    const datadir = join(dir, 'refused')
    mkdirSync(datadir)
    const r = ibex('init', '--genesis', refused, '--datadir', datadir)
    expect(r.status).toBe(1)
    expect(readdirSync(datadir)).toEqual([])
    const fixed = ibex('init', '--genesis', good, '--datadir', datadir)
    expect(fixed.status, fixed.stderr).toBe(0)
    expect(readdirSync(datadir)).toEqual(['chaindata'])
  })

  it('an init killed at any moment leaves a datadir the next init completes', async () => {
    const reference = genesisHashOf(ibex('init', '--genesis', good, '--datadir', join(dir, 'reference')))
    expect(reference).toMatch(/^0x/)
    for (const delayMs of [0, 150, 400]) {
      const datadir = join(dir, `killed-${delayMs}`)
      const child = spawn(process.execPath, [BIN, 'init', '--genesis', good, '--datadir', datadir], { stdio: 'ignore' })
      await new Promise((r) => setTimeout(r, delayMs))
      child.kill('SIGKILL')
      await new Promise((r) => child.once('exit', r))
      const again = ibex('init', '--genesis', good, '--datadir', datadir)
      expect(again.status, again.stderr).toBe(0)
      expect(genesisHashOf(again)).toBe(reference)
      expect(readdirSync(datadir).filter((n) => n.startsWith('.init-'))).toEqual([])
    }
    // what a kill -9 mid-init leaves: a staging directory of a process that is gone
    const datadir = join(dir, 'stale')
    mkdirSync(join(datadir, '.init-2147483646', 'chaindata'), { recursive: true })
    writeFileSync(join(datadir, '.init-2147483646', 'chaindata', 'CURRENT'), 'half written')
    const r = ibex('init', '--genesis', good, '--datadir', datadir)
    expect(r.status, r.stderr).toBe(0)
    expect(genesisHashOf(r)).toBe(reference)
    expect(readdirSync(datadir)).toEqual(['chaindata'])
  })
})

describe('a datadir holds one chain', () => {
  const dir = makeTempDir('ibex-cli-mismatch-')
  const datadir = join(dir, 'testnet')
  const init = ibex('init', '--network', 'testnet', '--datadir', datadir)
  const testnetHash = genesisHashOf(init) as string

  it('refuses --network and --genesis of another chain, naming both, and leaves the datadir as it was', () => {
    expect(init.status, init.stderr).toBe(0)
    const mainnet = ibex('init', '--network', 'mainnet', '--datadir', join(dir, 'mainnet'))
    const mainnetHash = genesisHashOf(mainnet) as string
    const stored = `datadir ${datadir} holds chain 7860 (genesis ${testnetHash})`
    for (const command of ['init', 'start']) {
      const r = ibex(command, '--network', 'mainnet', '--datadir', datadir, '--http.port', '0')
      expect(r.status, r.stdout).toBe(2)
      expect(lastLine(r)).toBe(
        `ibex: ${stored}, not the mainnet preset (chain 786, genesis ${mainnetHash}): use another --datadir, or leave out --network/--genesis to run the stored chain`,
      )
      expect(r.stdout).not.toContain('chain id 786')
    }
    const { path: custom } = customGenesis(dir, 4343)
    const r = ibex('start', '--genesis', custom, '--datadir', datadir, '--http.port', '0')
    expect(r.status).toBe(2)
    expect(lastLine(r)?.startsWith(`ibex: ${stored}, not genesis ${custom} (chain 4343, genesis 0x`)).toBe(true)
    const same = ibex('init', '--network', 'testnet', '--datadir', datadir)
    expect(same.status, same.stderr).toBe(0)
    expect(genesisHashOf(same)).toBe(testnetHash)
  })

  it('export refuses a datadir without a chain, creating nothing', () => {
    const typo = join(dir, 'testnt')
    const file = join(dir, 'typo.rlp')
    const r = ibex('export', '--datadir', typo, file)
    expect(r.status).toBe(2)
    expect(lastLine(r)).toBe(
      `ibex: datadir ${typo} holds no chain (no ${typo}/chaindata): check --datadir, or run ibex init`,
    )
    expect(existsSync(typo)).toBe(false)
    expect(existsSync(file)).toBe(false)
  })

  it('export refuses blocks past the head, as geth does, writing nothing', () => {
    const file = join(dir, 'range.rlp')
    const r = ibex('export', '--datadir', datadir, file, '0', '9999')
    expect(r.status).toBe(2)
    expect(lastLine(r)).toBe('ibex: export: LAST block 9999 is beyond the head (block 0); nothing written')
    expect(ibex('export', '--datadir', datadir, file, '5').status).toBe(2)
    expect(existsSync(file)).toBe(false)
    const ok = ibex('export', '--datadir', datadir, file, '0', '0')
    expect(ok.status, ok.stderr).toBe(0)
    expect(ok.stdout.trim()).toBe(`Exported 1 block (0..0) to ${file}`)
  })
})

describe('importing a dev chain', () => {
  it("says the dev genesis follows the validator key; with the exporter's key the import works", async () => {
    const source = await startNode({ args: ['--block-time', '1'] })
    await waitFor(async () => BigInt(await rpc<string>(source.url, 'eth_blockNumber')) >= 2n, {
      timeoutMs: 30_000,
      what: 'two dev blocks',
    })
    await source.stop()
    const dir = makeTempDir('ibex-cli-import-')
    const file = join(dir, 'dev.rlp')
    const exported = ibex('export', '--datadir', source.datadir, file)
    expect(exported.status, exported.stderr).toBe(0)

    const fresh = join(dir, 'fresh')
    const r = ibex('import', '--network', 'dev', '--datadir', fresh, file)
    expect(r.status).toBe(1)
    expect(lastLine(r)).toContain('conflicts with the stored chain')
    expect(lastLine(r)).toContain(`copy the exporting datadir's validator.key to ${join(fresh, 'validator.key')}`)
    expect(existsSync(fresh)).toBe(false)

    mkdirSync(fresh)
    copyFileSync(join(source.datadir, 'validator.key'), join(fresh, 'validator.key'))
    const again = ibex('import', '--network', 'dev', '--datadir', fresh, file)
    expect(again.status, again.stderr).toBe(0)
    expect(again.stdout).toMatch(/^Imported \d+ blocks from /)
  })
})

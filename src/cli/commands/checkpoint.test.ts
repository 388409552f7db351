/**
 * The command line of checkpoints: `ibex genesis --checkpoint.base-rpc …` writes the [checkpoint]
 * section every node loads, `ibex checkpoint deploy --write-config` completes it (the section
 * edit, withCheckpointSection), and `ibex checkpoint` refuses what it cannot do with one line.
 * The deployment itself runs against anvil in test/checkpoint/network.test.ts.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { loadConfig } from '../../config/load.js'
import { checkCheckpointConfig } from '../../consensus/checkpoints.js'
import type { CliIo } from '../io.js'
import { runCli } from '../run.js'
import { withCheckpointSection } from './checkpoint.js'

const dir = mkdtempSync(join(tmpdir(), 'ibex-checkpoint-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function captureIo(): CliIo & { stdout: string[]; stderr: string[] } {
  const stdout: string[] = []
  const stderr: string[] = []
  return {
    stdout,
    stderr,
    out: (l: string) => stdout.push(l),
    err: (l: string) => stderr.push(l),
    onSignal: () => () => {},
    exit: () => {},
  } as unknown as CliIo & { stdout: string[]; stderr: string[] }
}

const DEPLOYED = {
  enabled: 'true',
  base_rpc: '"http://127.0.0.1:8600"',
  base_chain_id: '31337',
  manager: '"0x00000000000000000000000000000000000000aa"',
  vault: '"0x00000000000000000000000000000000000000bb"',
}

describe('ibex genesis --checkpoint.base-rpc', () => {
  it('writes a [checkpoint] section (off until deploy) and the validators namespace into every node config', async () => {
    const out = join(dir, 'net')
    const io = captureIo()
    const args = ['genesis', '--validators', '2', '--full-nodes', '1', '--block-time', '1s', '--out', out]
    args.push('--checkpoint.base-rpc', 'http://127.0.0.1:8600', '--checkpoint.interval', '5s', '--checkpoint.grace', '1500ms')
    expect(await runCli(args, io)).toBe(0)
    expect(io.stdout.join('\n')).toMatch(/ibex checkpoint deploy --config .*node1.config\.toml --key FUNDED\.key --write-config/)
    for (const i of [1, 2, 3]) {
      const file = join(out, `node${i}`, 'config.toml')
      const config = loadConfig(['start', '--config', file]).config
      expect(config.checkpoint).toMatchObject({ enabled: false, baseRpc: 'http://127.0.0.1:8600', intervalMs: 5000, graceMs: 1500 })
      expect(config.jsonrpc.api).toEqual(['eth', 'net', 'web3', 'txpool', 'bor', 'validators'])
      // what deploy writes turns it on
      writeFileSync(file, withCheckpointSection(readFileSync(file, 'utf8'), DEPLOYED))
      const on = loadConfig(['start', '--config', file]).config.checkpoint
      expect(on).toMatchObject({
        enabled: true,
        baseChainId: 31337,
        manager: '0x00000000000000000000000000000000000000aa',
        vault: '0x00000000000000000000000000000000000000bb',
        intervalMs: 5000,
      })
    }
  })
})

describe('withCheckpointSection', () => {
  it('appends a section to a config without one, and replaces only the keys it sets', () => {
    const appended = withCheckpointSection('datadir = "."\n[jsonrpc]\nport = 1\n', { enabled: 'true', manager: '"0x1"' })
    expect(appended).toBe('datadir = "."\n[jsonrpc]\nport = 1\n\n[checkpoint]\nenabled = true\nmanager = "0x1"\n')
    const before = '[checkpoint]\nenabled = false\ninterval = "5s"\n\n[dev]\ncheats = false\n'
    expect(withCheckpointSection(before, { enabled: 'true', manager: '"0x2"' })).toBe(
      '[checkpoint]\nmanager = "0x2"\nenabled = true\ninterval = "5s"\n\n[dev]\ncheats = false\n',
    )
  })
})

describe('ibex checkpoint: refusals', () => {
  it('needs deploy or status, and deploy needs a base chain and a key', async () => {
    for (const [args, message] of [
      [['checkpoint'], 'ibex: ibex checkpoint needs an action: deploy (the base-chain contracts) or status (last checkpoint, lag, uptime)'],
      [['checkpoint', 'launch'], 'ibex: ibex checkpoint needs an action: deploy (the base-chain contracts) or status (last checkpoint, lag, uptime), got "launch"'],
      [['checkpoint', 'deploy', '--key', 'k'], 'ibex: ibex checkpoint deploy needs the base chain: --checkpoint.base-rpc URL (or [checkpoint] base_rpc in --config)'],
      [['checkpoint', 'deploy', '--checkpoint.base-rpc', 'http://127.0.0.1:1'], 'ibex: ibex checkpoint deploy needs --key FILE (the base-chain account paying for it)'],
      [['checkpoint', 'status'], 'ibex: ibex checkpoint status needs [checkpoint] base_rpc and manager: --config node.toml (or --checkpoint.base-rpc and --checkpoint.manager)'],
      [['checkpoint', 'status', '--key', 'k'], 'ibex: ibex checkpoint status takes no --key, --token or --write-config (they are for deploy)'],
    ] as const) {
      const io = captureIo()
      expect(await runCli([...args], io), args.join(' ')).toBe(2)
      expect(io.stderr).toEqual([message])
    }
  })

  it('a node with [checkpoint] enabled and no contracts is refused before it opens anything', () => {
    const { config } = loadConfig(['start', '--checkpoint', '--checkpoint.base-rpc', 'http://127.0.0.1:1'])
    expect(() => checkCheckpointConfig(config.checkpoint)).toThrow(
      '[checkpoint] enabled needs [checkpoint] base_chain_id, [checkpoint] manager (ibex checkpoint deploy prints them)',
    )
  })
})

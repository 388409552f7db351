/**
 * A node on a preset's own genesis that can seal: `ibex genesis --network <preset> --validators 1`
 * (the preset's config, DAO and fee routing, with one fresh validator seated and named in
 * extraData, accounts prefunded), optionally edited, then `ibex start --genesis … --validator-key …`
 * (with `--network dev` for the dev preset: its node settings, blocks sealed on demand).
 */
import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Wallet } from 'ethers'
import { REPO_ROOT } from '../helpers/compile.js'
import { IBEX_BIN, type IbexNode, makeTempDir, startNode } from '../helpers/node.js'

// biome-ignore lint/suspicious/noExplicitAny: geth genesis JSON
type Json = any

export interface PresetNode {
  node: IbexNode
  /** The genesis the node started from. */
  genesis: Json
  /** The sealing validator's address. */
  validator: string
}

export interface PresetNodeOptions {
  /** Accounts funded in the genesis, `ADDR=AMOUNT` as `--prefund` takes them. */
  prefund?: string[]
  /** Changes the genesis before the node starts. */
  edit?: (genesis: Json) => void
  /** `--block-time` of the genesis (default: the preset's). */
  blockTime?: string
}

export async function startPresetNode(network: string, opts: PresetNodeOptions = {}): Promise<PresetNode> {
  const dir = makeTempDir(`ibex-dao-${network}-`)
  const flags = (opts.prefund ?? []).flatMap((p) => ['--prefund', p])
  if (opts.blockTime !== undefined) flags.push('--block-time', opts.blockTime)
  execFileSync(
    process.execPath,
    [
      process.env.IBEX_E2E_BIN ?? IBEX_BIN,
      'genesis',
      '--network',
      network,
      '--validators',
      '1',
      ...flags,
      '--out',
      dir,
    ],
    { cwd: REPO_ROOT, stdio: 'pipe' },
  )
  const path = join(dir, 'genesis.json')
  const genesis = JSON.parse(readFileSync(path, 'utf8'))
  if (opts.edit !== undefined) {
    opts.edit(genesis)
    writeFileSync(path, JSON.stringify(genesis, null, 2))
  }
  const keyFile = join(dir, 'validator-0.key')
  const key = readFileSync(keyFile, 'utf8').trim()
  const validator = new Wallet(key.startsWith('0x') ? key : `0x${key}`).address
  // dev: the dev preset's node settings too (blocks sealed on demand, no price limit)
  const node = await startNode({
    network: network === 'dev' ? 'dev' : false,
    args: ['--genesis', path, '--validator-key', keyFile],
  })
  return { node, genesis, validator }
}

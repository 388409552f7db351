/**
 * ganache 7.9.2 (its CLI, in process `node …/ganache/dist/node/cli.js`): instamine, seeded over
 * RPC; `evm_mine {blocks}` for empty blocks. Its newest fork is Shanghai. It cannot switch to
 * interval mining at run time, so the write path restarts it on its database with
 * `--miner.blockTime`.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { nodeModule } from '../repo.js'
import { rpc, waitForRpc } from '../rpc.js'
import { freePort, spawnTracked } from './process.js'
import {
  BENCH_GAS_LIMIT,
  DEV_BALANCE_ETH,
  type Peer,
  type RunningNode,
  type StartContext,
  seedOverRpc,
} from './types.js'

const GANACHE_CLI = nodeModule('ganache/dist/node/cli.js')
const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

async function launch(ctx: StartContext, blockTime: number): Promise<RunningNode> {
  const port = await freePort()
  const args = [
    GANACHE_CLI,
    '--server.host',
    '127.0.0.1',
    '--server.port',
    String(port),
    '--chain.chainId',
    '1337',
    '--chain.hardfork',
    'shanghai',
    '--wallet.mnemonic',
    DEV_MNEMONIC,
    '--wallet.totalAccounts',
    '10',
    '--wallet.defaultBalance',
    String(DEV_BALANCE_ETH),
    '--miner.blockGasLimit',
    `0x${BENCH_GAS_LIMIT.toString(16)}`,
    '--miner.blockTime',
    String(blockTime),
    '--database.dbPath',
    join(ctx.dir, 'db'),
    '--logging.quiet',
  ]
  const proc = spawnTracked('ganache', process.execPath, args, { cpus: ctx.cpus })
  const url = `http://127.0.0.1:${port}`
  await waitForRpc(url, proc)
  const version = `ganache ${JSON.parse(readFileSync(nodeModule('ganache/package.json'), 'utf8')).version}`
  return { name: 'ganache', url, proc, version, stop: () => proc.stop() }
}

export const ganache: Peer = {
  name: 'ganache',
  async start(ctx) {
    const node = await launch(ctx, 0)
    await seedOverRpc(node.url, ctx.plan, (n) => rpc(node.url, 'evm_mine', [{ blocks: n }]), ctx.log)
    return node
  },
  async intervalMining(node, ctx, seconds) {
    await node.stop()
    return launch(ctx, seconds)
  },
}

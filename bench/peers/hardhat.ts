/**
 * Hardhat 2 network (`hardhat node`, run from the repository so it finds its local install, with a
 * config written to the node's scratch directory): auto-mining, seeded over RPC; `hardhat_mine`
 * for empty blocks. Its per-request console log is switched off (hardhat_setLoggingEnabled) so
 * it is measured at its best.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { nodeModule, REPO } from '../repo.js'
import { rpc, waitForRpc } from '../rpc.js'
import { freePort, spawnTracked } from './process.js'
import { BENCH_GAS_LIMIT, DEV_BALANCE_ETH, type Peer, type StartContext, seedOverRpc } from './types.js'

const HARDHAT_CLI = nodeModule('hardhat/internal/cli/cli.js')

function writeConfig(ctx: StartContext): string {
  const file = join(ctx.dir, 'hardhat.config.cjs')
  const config = {
    networks: {
      hardhat: {
        chainId: 1337,
        hardfork: 'prague',
        blockGasLimit: BENCH_GAS_LIMIT,
        accounts: {
          mnemonic: 'test test test test test test test test test test test junk',
          count: 10,
          accountsBalance: (BigInt(DEV_BALANCE_ETH) * 10n ** 18n).toString(),
        },
      },
    },
  }
  writeFileSync(file, `module.exports = ${JSON.stringify(config, null, 2)}\n`)
  return file
}

export const hardhat: Peer = {
  name: 'hardhat',
  async start(ctx) {
    const port = await freePort()
    const config = writeConfig(ctx)
    const args = [HARDHAT_CLI, 'node', '--hostname', '127.0.0.1', '--port', String(port), '--config', config]
    const proc = spawnTracked('hardhat', process.execPath, args, { cpus: ctx.cpus, cwd: REPO, quiet: true })
    const url = `http://127.0.0.1:${port}`
    await waitForRpc(url, proc, 120_000)
    await rpc(url, 'hardhat_setLoggingEnabled', [false])
    await seedOverRpc(url, ctx.plan, (n) => rpc(url, 'hardhat_mine', [`0x${n.toString(16)}`]), ctx.log)
    const version = `hardhat ${JSON.parse(readFileSync(nodeModule('hardhat/package.json'), 'utf8')).version}`
    return { name: 'hardhat', url, proc, version, stop: () => proc.stop() }
  },
  async intervalMining(node, _ctx, seconds) {
    await rpc(node.url, 'evm_setAutomine', [false])
    await rpc(node.url, 'evm_setIntervalMining', [seconds * 1000])
    return node
  },
}

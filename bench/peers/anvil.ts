/**
 * anvil (Foundry 1.7.1, the npm package's binary): auto-mining, seeded over RPC; `anvil_mine` for
 * empty blocks; `--steps-tracing` so its debug_traceTransaction returns the opcode steps. Each anvil
 * runs with its own HOME, removed when it stops: anvil writes the states of old blocks under
 * `$HOME/.foundry/anvil/tmp` and leaves them behind when it is stopped by a signal (5–6 GB a seeded
 * compare run; twelve runs filled this box's disk).
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
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

const ANVIL_BIN = nodeModule('@foundry-rs/anvil-linux-amd64/bin/anvil')

async function launch(ctx: StartContext): Promise<RunningNode> {
  const port = await freePort()
  const args = [
    '--host',
    '127.0.0.1',
    '--port',
    String(port),
    '--chain-id',
    '1337',
    '--gas-limit',
    String(BENCH_GAS_LIMIT),
    '--accounts',
    '10',
    '--balance',
    String(DEV_BALANCE_ETH),
    '--hardfork',
    'prague',
    '--silent',
    // without it debug_traceTransaction answers empty structLogs (the traces scenario needs real ones)
    '--steps-tracing',
  ]
  const home = mkdtempSync(join(tmpdir(), 'ibex-bench-anvil-home-'))
  const proc = spawnTracked('anvil', ANVIL_BIN, args, { cpus: ctx.cpus, env: { HOME: home } })
  // however it stops (node.stop(), stopAll() by PID, a crash), its HOME goes with it
  void proc.exited.then(() => rmSync(home, { recursive: true, force: true }))
  const url = `http://127.0.0.1:${port}`
  await waitForRpc(url, proc)
  const version = execFileSync(ANVIL_BIN, ['--version']).toString().split('\n')[0]?.trim() ?? 'anvil'
  return { name: 'anvil', url, proc, version, stop: () => proc.stop() }
}

export const anvil: Peer = {
  name: 'anvil',
  async start(ctx) {
    const node = await launch(ctx)
    await seedOverRpc(node.url, ctx.plan, (n) => rpc(node.url, 'anvil_mine', [`0x${n.toString(16)}`]), ctx.log)
    return node
  },
  async intervalMining(node, _ctx, seconds) {
    await rpc(node.url, 'evm_setAutomine', [false])
    await rpc(node.url, 'evm_setIntervalMining', [seconds])
    return node
  },
}

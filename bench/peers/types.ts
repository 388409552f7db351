/** What the harness knows about a node under test, and how a peer is started and seeded. */
import { rpc, waitReceipt } from '../rpc.js'
import type { SeedPlan } from '../seed/plan.js'
import type { Tracked } from './process.js'

/** `ibex@base`: ibex from another checkout (--baseline), for before/after in one run. */
export type NodeName = 'ibex' | 'ibex@base' | 'anvil' | 'ganache' | 'hardhat'
export const NODE_NAMES: readonly NodeName[] = ['ibex', 'anvil', 'ganache', 'hardhat']

/** Every node gets this block gas limit (ibex's dev genesis has 30M; 60M lets 1 s blocks carry 2,857 transfers). */
export const BENCH_GAS_LIMIT = 60_000_000
/** Wei each dev-mnemonic account starts with (10,000 coins, as anvil and hardhat give). */
export const DEV_BALANCE_ETH = 10_000

export interface StartContext {
  /** Scratch directory of this node (datadir, configs). */
  dir: string
  /** `taskset -c` CPU list for the node; absent = not pinned. */
  cpus?: string
  plan: SeedPlan
  log: (line: string) => void
}

export interface RunningNode {
  name: NodeName | 'node:http'
  url: string
  proc: Tracked
  /** Version string, for the report. */
  version: string
  stop(): Promise<void>
}

export interface Peer {
  name: NodeName
  /** Starts the node with the benchmark's chain settings and the seeded state. */
  start(ctx: StartContext): Promise<RunningNode>
  /** Restarts or reconfigures `node` to seal a block every `seconds` (the write path). */
  intervalMining(node: RunningNode, ctx: StartContext, seconds: number): Promise<RunningNode>
}

/**
 * Applies the seed plan through JSON-RPC to an auto-mining node: each transaction mined alone
 * (sent, then its receipt awaited), each run of empty blocks through the node's own mine method.
 */
export async function seedOverRpc(
  url: string,
  plan: SeedPlan,
  mineEmpty: (blocks: number) => Promise<void>,
  log: (l: string) => void,
): Promise<void> {
  const t = performance.now()
  let done = 0
  for (const step of plan.steps) {
    if (step.kind === 'empty') {
      await mineEmpty(step.blocks)
      continue
    }
    const hash = await rpc<string>(url, 'eth_sendRawTransaction', [step.tx.raw])
    if (hash.toLowerCase() !== step.tx.hash)
      throw new Error(`${step.what}: node answered hash ${hash}, expected ${step.tx.hash}`)
    const receipt = await waitReceipt(url, hash)
    if (receipt.status !== '0x1') throw new Error(`${step.what} failed: ${JSON.stringify(receipt)}`)
    if (++done % 250 === 0) log(`  ${done} seed transactions (${((performance.now() - t) / 1000).toFixed(0)} s)`)
  }
  const head = Number(BigInt(await rpc<string>(url, 'eth_blockNumber')))
  if (head !== plan.head) throw new Error(`seeded head is ${head}, expected ${plan.head}`)
}

/**
 * A local IBFT network of real `ibex` processes, as a user makes one: `ibex genesis --validators N
 * --full-nodes M … --out DIR`, then `ibex start --config DIR/node<i>/config.toml` per node.
 * Ports are picked free (two runs of consecutive ports); every process is tracked by PID and
 * stopped by `cleanup()`, which also removes the directory.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { REPO_ROOT } from '../helpers/compile.js'
import { bytesToHex, decodeIbftExtra } from '../helpers/header.js'
import { IBEX_BIN, rpc, waitFor } from '../helpers/node.js'

/** How long a node may take to answer eth_chainId after spawn (five start at once on a small box). */
export const NODE_READY_TIMEOUT_MS = 45_000
/** How long a stopped node may take to exit before it is SIGKILLed. */
export const NODE_STOP_TIMEOUT_MS = 15_000
/**
 * Flags every cluster node starts with. Five to seven nodes start at once on a 2-core box (beside a
 * headless browser in CI), so a node's call worker can be starved of CPU for seconds: a lone
 * eth_call must not be refused busy by the 2 s exec.queue_timeout for that. These tests are about
 * consensus; the queue timeout's own behaviour is tested in test/heavyCalls.test.ts.
 */
const CLUSTER_NODE_FLAGS = ['--exec.queue-timeout', '30s']
/** Output kept per node (the tail), for failure messages. */
const MAX_OUTPUT_CHARS = 200_000
/**
 * Lowest and highest first port tried for a run of consecutive free ports: below Linux's ephemeral
 * range (32768–60999), where the kernel hands out ports for outgoing connections and for `listen(0)`
 * (every other test's node), so none of those can take a node's port between the pick and the bind
 * (a CI run lost a cluster to EADDRINUSE on 53466).
 */
const PORT_RANGE = [20_000, 32_000] as const

export interface ClusterOptions {
  validators: number
  fullNodes: number
  chainId: number
  blockTime: string
  roundTimeout: string
  /** ADDR=WEI entries. */
  prefund: string[]
  /** More `ibex genesis` flags (e.g. --checkpoint.base-rpc URL). */
  genesisArgs?: string[]
  /** More `ibex start` flags by node index, on every start of that node (e.g. --explorer on a full node). */
  startArgs?: Record<number, string[]>
}

export interface ClusterNode {
  index: number
  url: string
  config: string
  /** Validator address (lowercase) for validators, undefined for full nodes. */
  validator: string | undefined
  child: ChildProcess | undefined
  output: string
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)))
  })
}

/** A first port of `count` consecutive free ports. */
async function freeRun(count: number, avoid: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PORT_RANGE[0] + Math.floor(Math.random() * (PORT_RANGE[1] - PORT_RANGE[0]))
    let ok = true
    for (let p = base; p < base + count && ok; p++) ok = !avoid.has(p) && (await portFree(p))
    if (ok) return base
  }
  throw new Error(`no ${count} consecutive free ports found`)
}

export class Cluster {
  readonly dir: string
  readonly nodes: ClusterNode[]
  readonly validators: string[]
  private readonly startArgs: Record<number, string[]>

  private constructor(dir: string, nodes: ClusterNode[], validators: string[], startArgs: Record<number, string[]>) {
    this.dir = dir
    this.nodes = nodes
    this.validators = validators
    this.startArgs = startArgs
  }

  /** Runs `ibex genesis` for the network (nothing started yet). */
  static async create(o: ClusterOptions): Promise<Cluster> {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-ibft-net-'))
    const total = o.validators + o.fullNodes
    const http = await freeRun(total, new Set())
    const p2p = await freeRun(total, new Set(Array.from({ length: total }, (_, i) => http + i)))
    const args = ['genesis', '--validators', String(o.validators), '--full-nodes', String(o.fullNodes)]
    args.push('--chain-id', String(o.chainId), '--block-time', o.blockTime, '--ibft.round-timeout', o.roundTimeout)
    args.push('--http-base-port', String(http), '--p2p-base-port', String(p2p), '--out', dir)
    for (const p of o.prefund) args.push('--prefund', p)
    args.push(...(o.genesisArgs ?? []))
    execFileSync(process.execPath, [IBEX_BIN, ...args], { cwd: REPO_ROOT, encoding: 'utf8' })
    const genesis = JSON.parse(readFileSync(join(dir, 'genesis.json'), 'utf8')) as { extraData: string }
    const validators = decodeIbftExtra(genesis.extraData).validators.map((v) => bytesToHex(v))
    const nodes = Array.from({ length: total }, (_, i) => ({
      index: i + 1,
      url: `http://127.0.0.1:${http + i}`,
      config: join(dir, `node${i + 1}`, 'config.toml'),
      validator: validators[i],
      child: undefined,
      output: '',
    }))
    return new Cluster(dir, nodes, validators, o.startArgs ?? {})
  }

  node(index: number): ClusterNode {
    return this.nodes[index - 1] as ClusterNode
  }

  /** Spawns `ibex start --config …` (and the node's startArgs) for node `index` and waits until it answers eth_chainId. */
  async start(index: number): Promise<void> {
    const node = this.node(index)
    const args = [IBEX_BIN, 'start', '--config', node.config, '--log-level', 'info', ...CLUSTER_NODE_FLAGS]
    args.push(...(this.startArgs[index] ?? []))
    const child = spawn(process.execPath, args, {
      cwd: REPO_ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
      env: { ...process.env, NO_COLOR: '1' },
    })
    node.child = child
    const keep = (s: Buffer) => {
      node.output = (node.output + s.toString('utf8')).slice(-MAX_OUTPUT_CHARS)
    }
    child.stdout?.on('data', keep)
    child.stderr?.on('data', keep)
    await waitFor(
      async () => {
        if (child.exitCode !== null)
          throw new Error(`node ${index} exited (${child.exitCode}):\n${node.output.slice(-4000)}`)
        return (await rpc<string>(node.url, 'eth_chainId')) !== undefined
      },
      { timeoutMs: NODE_READY_TIMEOUT_MS, intervalMs: 100, what: `node ${index} to answer` },
    )
  }

  /** SIGTERM node `index` and wait for it to exit (SIGKILL after NODE_STOP_TIMEOUT_MS). */
  async stop(index: number): Promise<void> {
    const child = this.node(index).child
    if (child === undefined || child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), NODE_STOP_TIMEOUT_MS)
    await exited
    clearTimeout(timer)
  }

  running(): ClusterNode[] {
    return this.nodes.filter((n) => n.child !== undefined && n.child.exitCode === null && n.child.signalCode === null)
  }

  async cleanup(): Promise<void> {
    await Promise.allSettled(this.nodes.map((n) => this.stop(n.index)))
    rmSync(this.dir, { recursive: true, force: true })
  }

  /** The logs of every node (tails), for a failing assertion. */
  logs(): string {
    return this.nodes.map((n) => `--- node ${n.index} ---\n${n.output.slice(-3000)}`).join('\n')
  }
}

/** eth_blockNumber as a number. */
export async function headOf(url: string): Promise<number> {
  return Number(BigInt(await rpc<string>(url, 'eth_blockNumber')))
}

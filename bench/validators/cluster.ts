/**
 * A local IBFT network of real `ibex` processes for the validators benchmark, made as a user makes
 * one: `ibex genesis --validators N --full-nodes M --chain-id … --prefund … --out DIR`, the block
 * gas limit raised in DIR/genesis.json (a geth genesis field; `ibex genesis` keeps the preset's
 * 30M), then `ibex start --config DIR/node<i>/config.toml` per node. Every process is spawned by
 * bench/peers/process.ts (tracked by PID, stopped by PID, killed on exit as a last resort).
 *
 * Also here: CPU time of a process (all threads, and the main thread alone) read from /proc.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { rpc, waitForRpc } from '../rpc.js'
import { BENCH_CHAIN_ID } from '../seed/sign.js'
import { descendants, spawnTracked, type Tracked, treeRssMiB } from '../peers/process.js'

/** How long the network may take from the first spawn until every node follows a moving head. */
export const CLUSTER_READY_TIMEOUT_MS = 120_000
/**
 * First ports tried for the runs of consecutive free ports `ibex genesis` lays nodes out on: below
 * Linux's ephemeral range (32768–60999), which outgoing connections and `listen(0)` draw from.
 */
const PORT_RANGE = [20_000, 32_000] as const

export interface ClusterOptions {
  /** Checkout whose bin/ibex.js runs (built there with `npm run build`). */
  checkout: string
  validators: number
  fullNodes: number
  blockTime: string
  /** Block gas limit written into genesis.json. */
  gasLimit: bigint
  /** Accounts funded in the genesis (lowercase 0x addresses) and the wei each gets. */
  prefund: string[]
  prefundWei: bigint
  /** Extra `ibex start` flags for every node. */
  startFlags: string[]
  /** Extra flags of the `node` process running each ibex (`--cpu-prof …`). */
  nodeFlags: string[]
  log: (line: string) => void
  /** Where each node's output (its tail) is written when it stops; undefined = not kept. */
  logsDir?: string
  /** `ibex start --log-level` of every node. */
  logLevel?: string
}

export interface ClusterNode {
  name: string
  role: 'validator' | 'full node'
  url: string
  config: string
  proc: Tracked | undefined
}

export interface Cluster {
  dir: string
  nodes: ClusterNode[]
  /** Stops every node by PID (SIGTERM, SIGKILL after 15 s) and removes the directory. */
  stop(): Promise<void>
}

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)))
  })
}

/** The first port of `count` consecutive free ports, none in `avoid`. */
async function freeRun(count: number, avoid: Set<number>): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = PORT_RANGE[0] + Math.floor(Math.random() * (PORT_RANGE[1] - PORT_RANGE[0]))
    let ok = true
    for (let p = base; p < base + count && ok; p++) ok = !avoid.has(p) && (await portFree(p))
    if (ok) return base
  }
  throw new Error(`no ${count} consecutive free ports found`)
}

/** Runs `ibex genesis`, raises the gas limit, starts every node and waits until all follow new blocks. */
export async function startCluster(o: ClusterOptions): Promise<Cluster> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-bench-validators-'))
  const total = o.validators + o.fullNodes
  const http = await freeRun(total, new Set())
  const p2p = await freeRun(total, new Set(Array.from({ length: total }, (_, i) => http + i)))
  const bin = join(o.checkout, 'bin', 'ibex.js')
  const args = ['genesis', '--validators', String(o.validators), '--full-nodes', String(o.fullNodes)]
  args.push('--chain-id', String(BENCH_CHAIN_ID), '--block-time', o.blockTime)
  args.push('--http-base-port', String(http), '--p2p-base-port', String(p2p), '--out', dir)
  for (const a of o.prefund) args.push('--prefund', `${a}=${o.prefundWei}`)
  execFileSync(process.execPath, [bin, ...args], { cwd: o.checkout, stdio: 'pipe' })
  const genesisPath = join(dir, 'genesis.json')
  const genesis = JSON.parse(readFileSync(genesisPath, 'utf8')) as { gasLimit: string }
  genesis.gasLimit = `0x${o.gasLimit.toString(16)}`
  writeFileSync(genesisPath, `${JSON.stringify(genesis, null, 2)}\n`)

  const nodes: ClusterNode[] = Array.from({ length: total }, (_, i) => ({
    name: i < o.validators ? `validator ${i + 1}` : `full node ${i - o.validators + 1}`,
    role: i < o.validators ? 'validator' : 'full node',
    url: `http://127.0.0.1:${http + i}`,
    config: join(dir, `node${i + 1}`, 'config.toml'),
    proc: undefined,
  }))
  const cluster: Cluster = {
    dir,
    nodes,
    async stop() {
      await Promise.allSettled(nodes.map((n) => n.proc?.stop()))
      if (o.logsDir !== undefined) {
        mkdirSync(o.logsDir, { recursive: true })
        for (const n of nodes)
          if (n.proc !== undefined)
            writeFileSync(join(o.logsDir, `${n.name.replace(/ /g, '-')}-${n.proc.pid}.log`), n.proc.output())
      }
      rmSync(dir, { recursive: true, force: true })
    },
  }
  try {
    for (const n of nodes) {
      const argv = [
        ...o.nodeFlags,
        bin,
        'start',
        '--config',
        n.config,
        '--log-level',
        o.logLevel ?? 'warn',
        ...o.startFlags,
      ]
      n.proc = spawnTracked(n.name, process.execPath, argv, { cwd: o.checkout, env: { NO_COLOR: '1' } })
    }
    for (const n of nodes) await waitForRpc(n.url, n.proc as Tracked, CLUSTER_READY_TIMEOUT_MS)
    // every node must see blocks 1 and 2 decided (validators peered, the full node following)
    const until = Date.now() + CLUSTER_READY_TIMEOUT_MS
    for (const n of nodes) {
      for (;;) {
        if (!(n.proc as Tracked).running()) throw new Error(`${n.name} exited:\n${n.proc?.output().slice(-3000)}`)
        const head = Number(BigInt(await rpc<string>(n.url, 'eth_blockNumber', [], 10_000).catch(() => '0x0')))
        if (head >= 2) break
        if (Date.now() > until) throw new Error(`${n.name} did not reach block 2:\n${n.proc?.output().slice(-3000)}`)
        await new Promise((r) => setTimeout(r, 250))
      }
    }
    o.log(
      `  network up: ${nodes.map((n) => `${n.name} pid ${n.proc?.pid} ${n.url}`).join(', ')} (${o.checkout}, ${dir})`,
    )
    return cluster
  } catch (err) {
    await cluster.stop()
    throw err
  }
}

/** Clock ticks per second of /proc's utime and stime. */
export const CLOCK_TICKS_PER_SECOND = (() => {
  try {
    return Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100
  } catch {
    return 100
  }
})()

/** utime + stime of a /proc stat line, seconds (0 when gone). */
function statCpuSeconds(path: string): number {
  try {
    const stat = readFileSync(path, 'utf8')
    // pid (comm) state ppid …: fields after the comm's closing parenthesis; utime and stime are 14 and 15
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(f[11]) + Number(f[12])) / CLOCK_TICKS_PER_SECOND
  } catch {
    return 0
  }
}

export interface CpuReading {
  /** Every thread of the process and of its descendants, seconds. */
  process: number
  /** The main thread (event loop) alone, seconds. */
  main: number
}

/** CPU seconds used so far by `pid` (all threads, plus descendants) and by its main thread. */
export function readCpu(pid: number): CpuReading {
  let total = statCpuSeconds(`/proc/${pid}/stat`)
  for (const c of descendants(pid)) total += statCpuSeconds(`/proc/${c}/stat`)
  return { process: total, main: statCpuSeconds(`/proc/${pid}/task/${pid}/stat`) }
}

export { treeRssMiB }

/**
 * `npm run bench:sync`: a fresh full node catching up a chain of IBFT-sealed blocks from real
 * `ibex start` peers over libp2p (issue 22, "Sync"): blocks/s and transfers/s from the moment it
 * answers JSON-RPC to the moment its head is the peers' head, with progress lines (its
 * eth_blockNumber and eth_syncing) every few seconds.
 *
 *   npm run bench:sync -- [--blocks 100000] [--txs-per-block 2] [--empty-share 0.5] [--peers 1]
 *     [--baseline DIR] [--checkout DIR] [--cpu-prof DIR] [--timeout 600] [--generate-only] [--out bench/results]
 *
 * The source chain (bench/sync/generate.ts) is generated once per parameter set and cached under
 * /tmp/ibex-sync-source; generate it outside the benchmark lock with --generate-only. Each run
 * copies it into `--peers` datadirs (each its own node key), starts them (`ibex start`, p2p on, no
 * validator key: they only serve), then starts the syncing node on an empty datadir with the peers
 * as bootnodes and polls it until its head is the source's head, then checks the head hash.
 * `--baseline DIR` first runs the same measurement with every process from the checkout in DIR
 * (a `git worktree` with dist/ built), so one report holds before and after; `--checkout DIR` runs
 * the processes of DIR instead of this checkout's (one side alone). `--timeout` stops a run and
 * reports the blocks reached. Node output goes to
 * files in the run's scratch directory (its tail is printed when a run fails).
 *
 * Also reported: the syncing process's CPU seconds (user + system, from /proc: less noisy than
 * wall time on a shared box) and its peak RSS. Every process is stopped by PID, also on error or
 * timeout. Writes <out>/<UTC date>-sync.md and .json.
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { cpSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { peerIdOfSeed } from '../src/p2p/identity.js'
import { keccak256 } from '../src/util/crypto.js'
import { freePort } from './peers/process.js'
import { REPO, RESULTS_DIR } from './repo.js'
import { rpc } from './rpc.js'
import {
  DEFAULT_SOURCE,
  ensureSource,
  type SyncSourceManifest,
  type SyncSourceOptions,
  sourcePaths,
  transfersUpTo,
} from './sync/generate.js'

/** How often the syncing node is polled, ms. */
const POLL_MS = 500
/** Seconds between progress lines. */
const PROGRESS_SECONDS = 5
/** A node that has not answered JSON-RPC by then failed to start, ms. */
const START_TIMEOUT_MS = 120_000
/** SIGTERM, then SIGKILL after this long, ms. */
const STOP_TIMEOUT_MS = 20_000
const SCRATCH_PREFIX = '/tmp/ibex-sync-run-'

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: String(DEFAULT_SOURCE.blocks) },
    'txs-per-block': { type: 'string', default: String(DEFAULT_SOURCE.txsPerBlock) },
    'empty-share': { type: 'string', default: String(DEFAULT_SOURCE.emptyShare) },
    senders: { type: 'string', default: String(DEFAULT_SOURCE.senders) },
    recipients: { type: 'string', default: String(DEFAULT_SOURCE.recipients) },
    seed: { type: 'string', default: String(DEFAULT_SOURCE.seed) },
    peers: { type: 'string', default: '1' },
    baseline: { type: 'string' },
    checkout: { type: 'string' },
    'cpu-prof': { type: 'string' },
    timeout: { type: 'string', default: '600' },
    'generate-only': { type: 'boolean', default: false },
    out: { type: 'string', default: RESULTS_DIR },
  },
})

const options: SyncSourceOptions = {
  blocks: Number(values.blocks),
  txsPerBlock: Number(values['txs-per-block']),
  emptyShare: Number(values['empty-share']),
  senders: Number(values.senders),
  recipients: Number(values.recipients),
  seed: Number(values.seed),
}
const peers = Number(values.peers)
const timeoutMs = Number(values.timeout) * 1000

/** A node process: output to a file, stopped by PID. */
interface NodeProc {
  name: string
  pid: number
  logFile: string
  child: ChildProcess
  running(): boolean
  stop(): Promise<void>
}

const live = new Set<NodeProc>()
/** Scratch directories of runs under way (removed on Ctrl-C too). */
const scratches = new Set<string>()
process.on('exit', () => {
  for (const p of live) {
    try {
      process.kill(p.pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

function startProc(name: string, args: string[], logFile: string): NodeProc {
  const fd = openSync(logFile, 'a')
  const child = spawn(process.execPath, args, { stdio: ['ignore', fd, fd], env: { ...process.env, NO_COLOR: '1' } })
  if (child.pid === undefined) throw new Error(`could not start ${name}`)
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const running = () => child.exitCode === null && child.signalCode === null
  const proc: NodeProc = {
    name,
    pid: child.pid,
    logFile,
    child,
    running,
    async stop() {
      if (running()) {
        process.kill(proc.pid, 'SIGTERM')
        const timer = setTimeout(() => running() && process.kill(proc.pid, 'SIGKILL'), STOP_TIMEOUT_MS)
        await exited
        clearTimeout(timer)
      }
      live.delete(proc)
    },
  }
  live.add(proc)
  return proc
}

function tail(file: string, chars = 3000): string {
  try {
    const text = readFileSync(file, 'utf8')
    return text.slice(-chars)
  } catch {
    return '(no output)'
  }
}

async function waitRpc(url: string, proc: NodeProc): Promise<void> {
  const until = Date.now() + START_TIMEOUT_MS
  for (;;) {
    try {
      await rpc(url, 'eth_chainId', [], 2_000)
      return
    } catch {
      if (!proc.running()) throw new Error(`${proc.name} exited before serving:\n${tail(proc.logFile)}`)
      if (Date.now() > until) throw new Error(`${proc.name} did not answer within ${START_TIMEOUT_MS} ms`)
      await new Promise((r) => setTimeout(r, 100))
    }
  }
}

/** utime + stime of a process, seconds (from /proc/<pid>/stat; clock ticks of 100 Hz). */
function cpuSeconds(pid: number): number {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ')
    return (Number(fields[11]) + Number(fields[12])) / 100
  } catch {
    return Number.NaN
  }
}

function rssMiB(pid: number): number {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch {
    return 0
  }
}

export interface SyncRun {
  label: string
  checkout: string
  commit: string
  peers: number
  /** False when --timeout stopped it: the figures cover the blocks reached. */
  finished: boolean
  blocks: number
  transfers: number
  /** From the syncing node answering JSON-RPC to its head = the source's head, s. */
  seconds: number
  /** From the first synced block to the last, s. */
  importSeconds: number
  blocksPerSecond: number
  transfersPerSecond: number
  /** The syncing process's CPU (user + system) over the sync, s. */
  cpuSeconds: number
  peakRssMiB: number
  /** Head samples: [seconds since ready, head]. */
  samples: [number, number][]
  loadBefore: number[]
  loadAfter: number[]
  headHashMatches: boolean
  cpuProfileDir?: string
}

function commitOf(checkout: string): string {
  try {
    return execFileSync('git', ['-C', checkout, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
  } catch {
    return 'unknown'
  }
}

async function measure(
  label: string,
  checkout: string,
  src: { dir: string; manifest: SyncSourceManifest },
): Promise<SyncRun> {
  const bin = join(checkout, 'bin', 'ibex.js')
  const scratch = mkdtempSync(SCRATCH_PREFIX)
  scratches.add(scratch)
  const { datadir: srcData, genesis } = sourcePaths(src.dir)
  const procs: NodeProc[] = []
  try {
    const bootnodes: string[] = []
    for (let k = 1; k <= peers; k++) {
      const data = join(scratch, `peer${k}`)
      cpSync(srcData, data, { recursive: true })
      const seed = keccak256(Buffer.from(`ibex-sync-bench/peer/${k}`))
      writeFileSync(join(data, 'node.key'), `${Buffer.from(seed).toString('hex')}\n`, { mode: 0o600 })
      const [http, p2p] = [await freePort(), await freePort()]
      const args = [bin, 'start', '--network', 'dev', '--genesis', genesis, '--datadir', data]
      args.push('--http.port', String(http), '--p2p.port', String(p2p), '--log-level', 'warn')
      const proc = startProc(`peer ${k}`, args, join(scratch, `peer${k}.log`))
      procs.push(proc)
      await waitRpc(`http://127.0.0.1:${http}`, proc)
      bootnodes.push(`/ip4/127.0.0.1/tcp/${p2p}/p2p/${peerIdOfSeed(seed)}`)
    }
    const data = join(scratch, 'sync')
    mkdirSync(data)
    const [http, p2p] = [await freePort(), await freePort()]
    const url = `http://127.0.0.1:${http}`
    const nodeFlags: string[] = []
    let profDir: string | undefined
    if (values['cpu-prof'] !== undefined) {
      profDir = resolve(values['cpu-prof'], label)
      mkdirSync(profDir, { recursive: true })
      nodeFlags.push('--cpu-prof', '--cpu-prof-dir', profDir)
    }
    const args = [...nodeFlags, bin, 'start', '--network', 'dev', '--genesis', genesis, '--datadir', data]
    args.push('--http.port', String(http), '--p2p.port', String(p2p), '--bootnodes', bootnodes.join(','))
    const loadBefore = loadavg()
    const syncing = startProc('syncing node', args, join(scratch, 'sync.log'))
    procs.push(syncing)
    await waitRpc(url, syncing)
    const t0 = performance.now()
    const cpu0 = cpuSeconds(syncing.pid)
    const target = src.manifest.head
    const samples: [number, number][] = []
    let lastLine = t0
    let firstBlockAt: number | undefined
    let peakRss = 0
    let current = 0
    console.log(`${label}: syncing ${target} blocks from ${peers} peer(s) (${checkout}, ${commitOf(checkout)})`)
    let finished = true
    while (current < target) {
      if (!syncing.running()) throw new Error(`the syncing node exited:\n${tail(syncing.logFile)}`)
      const now = performance.now()
      if (now - t0 > timeoutMs) {
        // reported as it stands: the rate over the blocks reached
        console.log(`${label}: head ${current} of ${target} after ${values.timeout} s: stopped, reported as reached`)
        finished = false
        break
      }
      current = Number(BigInt(await rpc<string>(url, 'eth_blockNumber', [], 30_000)))
      const at = (performance.now() - t0) / 1000
      samples.push([Math.round(at * 10) / 10, current])
      if (current > 0 && firstBlockAt === undefined) firstBlockAt = at
      peakRss = Math.max(peakRss, rssMiB(syncing.pid))
      if (now - lastLine >= PROGRESS_SECONDS * 1000) {
        lastLine = now
        const s = (await rpc(url, 'eth_syncing', [], 30_000)) as false | Record<string, string>
        const syncingText =
          s === false
            ? 'eth_syncing false'
            : `eth_syncing current ${Number(BigInt(s.currentBlock ?? '0x0'))} highest ${Number(BigInt(s.highestBlock ?? '0x0'))}`
        console.log(
          `  ${at.toFixed(0).padStart(4)} s  head ${current}/${target}  ${(current / at).toFixed(0)} blocks/s  ${syncingText}`,
        )
      }
      if (current < target) await new Promise((r) => setTimeout(r, POLL_MS))
    }
    const seconds = (performance.now() - t0) / 1000
    const cpu = cpuSeconds(syncing.pid) - cpu0
    const loadAfter = loadavg()
    const block = await rpc<{ hash: string }>(url, 'eth_getBlockByNumber', [`0x${target.toString(16)}`, false])
    const headHashMatches = finished && block?.hash === src.manifest.headHash
    if (finished && !headHashMatches)
      console.log(`  ! head hash ${block?.hash} is not the source's ${src.manifest.headHash}`)
    const blocks = finished ? target : current
    const transfers = finished ? src.manifest.transfers : transfersUpTo(src.manifest.options, current)
    const importSeconds = seconds - (firstBlockAt ?? 0)
    const run: SyncRun = {
      label,
      checkout,
      commit: commitOf(checkout),
      peers,
      finished,
      blocks,
      transfers,
      seconds,
      importSeconds,
      blocksPerSecond: blocks / seconds,
      transfersPerSecond: transfers / seconds,
      cpuSeconds: cpu,
      peakRssMiB: Math.round(peakRss),
      samples,
      loadBefore,
      loadAfter,
      headHashMatches,
      cpuProfileDir: profDir,
    }
    console.log(
      `${label}: ${blocks} blocks${finished ? '' : ` of ${target} (timed out)`} in ${seconds.toFixed(1)} s: ${run.blocksPerSecond.toFixed(0)} blocks/s, ${run.transfersPerSecond.toFixed(0)} transfers/s, CPU ${cpu.toFixed(1)} s, peak RSS ${run.peakRssMiB} MiB, load ${loadBefore.map((l) => l.toFixed(2)).join(' ')} → ${loadAfter.map((l) => l.toFixed(2)).join(' ')}`,
    )
    return run
  } finally {
    for (const p of procs.reverse()) await p.stop()
    rmSync(scratch, { recursive: true, force: true })
    scratches.delete(scratch)
  }
}

function stamp(): string {
  const d = new Date()
  const p = (n: number) => String(n).padStart(2, '0')
  return `${d.getUTCFullYear()}-${p(d.getUTCMonth() + 1)}-${p(d.getUTCDate())}T${p(d.getUTCHours())}${p(d.getUTCMinutes())}`
}

function report(runs: SyncRun[], manifest: SyncSourceManifest, command: string): string {
  const lines = [
    `# Full-node sync — ${new Date().toISOString()}`,
    '',
    `\`${command}\``,
    '',
    `Source chain: ${manifest.head} blocks, ${manifest.transfers} transfers (${manifest.fullBlocks} blocks with transfers, the rest empty), ${JSON.stringify(manifest.options)}; head ${manifest.headHash}.`,
    `A fresh full node (\`ibex start\`, default settings, empty datadir) syncs from ${runs[0]?.peers ?? 1} \`ibex start\` peer(s) on loopback; time from its first JSON-RPC answer to its head = the source's head.`,
    '',
    '| run | commit | blocks/s | transfers/s | wall s | import s | CPU s | peak RSS MiB | load before | load after | head hash |',
    '|---|---|---:|---:|---:|---:|---:|---:|---|---|---|',
  ]
  for (const r of runs) {
    lines.push(
      `| ${r.label}${r.finished ? '' : ` (stopped at ${r.blocks} of ${manifest.head})`} | ${r.commit} | ${r.blocksPerSecond.toFixed(0)} | ${r.transfersPerSecond.toFixed(0)} | ${r.seconds.toFixed(1)} | ${r.importSeconds.toFixed(1)} | ${r.cpuSeconds.toFixed(1)} | ${r.peakRssMiB} | ${r.loadBefore.map((l) => l.toFixed(2)).join(' ')} | ${r.loadAfter.map((l) => l.toFixed(2)).join(' ')} | ${r.headHashMatches ? 'matches' : 'DIFFERS'} |`,
    )
  }
  const [before, after] = runs
  if (runs.length === 2 && before !== undefined && after !== undefined) {
    lines.push(
      '',
      `After / before: ${(after.blocksPerSecond / before.blocksPerSecond).toFixed(2)}× blocks/s, CPU per block ${(after.cpuSeconds / before.cpuSeconds).toFixed(2)}×.`,
    )
  }
  lines.push('', "Load averages are the box's 1/5/15-minute figures (2 cores, shared with other agents).", '')
  return lines.join('\n')
}

async function main(): Promise<void> {
  const src = await ensureSource(options)
  if (values['generate-only']) return
  if (!existsSync(join(REPO, 'dist', 'bench', 'sync.js'))) throw new Error('build first (npm run build)')
  const runs: SyncRun[] = []
  if (values.baseline !== undefined) runs.push(await measure('before', resolve(values.baseline), src))
  const checkout = values.checkout === undefined ? REPO : resolve(values.checkout)
  runs.push(await measure(values.baseline !== undefined ? 'after' : commitOf(checkout), checkout, src))
  const command = `npm run bench:sync -- ${process.argv.slice(2).join(' ')}`.trim()
  const base = join(values.out, `${stamp()}-sync`)
  mkdirSync(values.out, { recursive: true })
  writeFileSync(`${base}.json`, `${JSON.stringify({ command, source: src.manifest, runs }, null, 2)}\n`)
  writeFileSync(`${base}.md`, report(runs, src.manifest, command))
  console.log(`wrote ${base}.md and .json`)
}

for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, async () => {
    for (const p of [...live]) await p.stop()
    for (const d of scratches) rmSync(d, { recursive: true, force: true })
    process.exit(130)
  })
}

main().catch(async (err) => {
  console.error(err instanceof Error ? err.message : err)
  for (const p of [...live]) await p.stop()
  process.exit(1)
})

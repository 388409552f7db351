/**
 * `npm run bench`: ibex side by side with anvil, ganache and hardhat (and a bare node:http server),
 * on loopback, on the same seeded state; writes bench/results/<date>.md, .json and .png charts.
 *
 *   npm run bench -- [--nodes ibex,anvil,ganache,hardhat] [--scenarios framing,compare,readmix,
 *     batch,logs,traces,memory,heavy,writes] [--cpus N] [--seconds 5] [--soak-minutes 1]
 *     [--write-rate 2500] [--write-seconds 10] [--history 1000] [--senders 2000]
 *     [--max-minutes 90] [--out DIR] [--ibex-flags "--exec.workers 1 …"]
 *
 * Order: build the seed plan; start node:http and every node (each seeded in turn); measure idle
 * RSS; run the scenarios, each over all nodes back to back (so a change in the machine's load hits
 * them alike); stop everything by PID; write the report. --max-minutes bounds the run: past it,
 * remaining scenarios are skipped and the report says so.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, freemem, loadavg, tmpdir, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { ibexBaseline, ibexExtraFlags, ibexNodeFlags } from './peers/ibex.js'
import {
  NODE_NAMES,
  type NodeName,
  type Peer,
  PEERS,
  type RunningNode,
  type StartContext,
  startBare,
  stopAll,
  treeRssMiB,
} from './peers/index.js'
import { type Report, writeReport } from './report/markdown.js'
import { pauseOthersWhileMeasuring } from './load/index.js'
import { descendants } from './peers/process.js'
import { RESULTS_DIR } from './repo.js'
import { SCENARIOS } from './scenarios/index.js'
import { RequestFactory } from './scenarios/requests.js'
import { type BenchOptions, DEFAULT_OPTIONS, type ScenarioContext, type ScenarioResult } from './scenarios/types.js'
import { buildSeedPlan, DEFAULT_SEED } from './seed/plan.js'

const { values } = parseArgs({
  options: {
    nodes: { type: 'string', default: NODE_NAMES.join(',') },
    scenarios: { type: 'string', default: Object.keys(SCENARIOS).join(',') },
    cpus: { type: 'string' },
    seconds: { type: 'string', default: String(DEFAULT_OPTIONS.seconds) },
    warmup: { type: 'string', default: String(DEFAULT_OPTIONS.warmupSeconds) },
    connections: { type: 'string', default: String(DEFAULT_OPTIONS.connections) },
    'soak-minutes': { type: 'string', default: String(DEFAULT_OPTIONS.soakMinutes) },
    'write-rate': { type: 'string', default: String(DEFAULT_OPTIONS.writeRate) },
    'write-seconds': { type: 'string', default: String(DEFAULT_OPTIONS.writeSeconds) },
    history: { type: 'string', default: String(DEFAULT_SEED.historyTxs) },
    senders: { type: 'string', default: String(DEFAULT_SEED.senders) },
    'max-minutes': { type: 'string', default: '90' },
    out: { type: 'string', default: RESULTS_DIR },
    'gen-processes': { type: 'string', default: '1' },
    'ibex-flags': { type: 'string', default: '' },
    'ibex-node-flags': { type: 'string', default: '' },
    baseline: { type: 'string' },
    help: { type: 'boolean', short: 'h' },
  },
})

if (values.help === true) {
  console.log(`usage: npm run bench -- [options]   (every option is described in bench/README.md)
  --nodes ${NODE_NAMES.join(',')}   which nodes (node:http always runs)
  --scenarios ${Object.keys(SCENARIOS).join(',')}
  --cpus N              pin the nodes to CPUs 0..N-1 (taskset), load generators to the rest
  --seconds S --warmup S --connections N --soak-minutes M
  --write-rate R --write-seconds S --history N --senders N --gen-processes N
  --max-minutes M       skip the scenarios left after M minutes
  --out DIR             where the report goes (default bench/results)
  --ibex-flags "..."    extra ibex CLI flags; --ibex-node-flags "..." extra node flags
  --baseline DIR        another checkout's ibex measured beside this one`)
  process.exit(0)
}

const started = Date.now()
const deadline = started + Number(values['max-minutes']) * 60_000
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`)
const names = (values.nodes as string).split(',').filter(Boolean) as NodeName[]
// --baseline DIR: another checkout's ibex beside this one (after ibex in every scenario)
if (values.baseline !== undefined) {
  PEERS['ibex@base'] = ibexBaseline(resolve(values.baseline))
  if (!names.includes('ibex@base')) names.splice(names.indexOf('ibex') + 1, 0, 'ibex@base')
}
for (const n of names)
  if (PEERS[n] === undefined) throw new Error(`unknown node ${n} (known: ${NODE_NAMES.join(', ')})`)
const scenarioNames = (values.scenarios as string).split(',').filter(Boolean)
for (const s of scenarioNames)
  if (!(s in SCENARIOS)) throw new Error(`unknown scenario ${s} (known: ${Object.keys(SCENARIOS).join(', ')})`)
ibexExtraFlags.push(...(values['ibex-flags'] as string).split(' ').filter(Boolean))
ibexNodeFlags.push(...(values['ibex-node-flags'] as string).split(' ').filter(Boolean))

// --cpus N: nodes on CPUs 0..N-1, load generators on the rest (if any are left)
const total = cpus().length
const pinned = values.cpus === undefined ? undefined : Math.max(1, Math.min(total, Number(values.cpus)))
const nodeCpus = pinned === undefined ? undefined : `0-${pinned - 1}`
const genCpus = pinned === undefined || pinned >= total ? undefined : `${pinned}-${total - 1}`

const opts: BenchOptions = {
  ...DEFAULT_OPTIONS,
  seconds: Number(values.seconds),
  warmupSeconds: Number(values.warmup),
  connections: Number(values.connections),
  soakMinutes: Number(values['soak-minutes']),
  writeRate: Number(values['write-rate']),
  writeSeconds: Number(values['write-seconds']),
}
const seedOpts = { ...DEFAULT_SEED, historyTxs: Number(values.history), senders: Number(values.senders) }
const errors: string[] = []
const loadBefore = loadavg()
const scratch = mkdtempSync(join(tmpdir(), 'ibex-bench-'))

process.on('SIGINT', () => {
  log('interrupted: stopping every node')
  stopAll().finally(() => process.exit(130))
})

try {
  log(
    `seed plan: ${seedOpts.historyTxs} history transactions × ${seedOpts.transfersPerTx} Transfers, ${seedOpts.senders} senders`,
  )
  const plan = buildSeedPlan(seedOpts)
  log(`  ${plan.steps.length} steps, head block ${plan.head}, token ${plan.token}`)
  const nodes: RunningNode[] = []
  const contexts = new Map<string, StartContext>()
  const bare = await startBare(nodeCpus)
  for (const name of names) {
    const ctx: StartContext = { dir: mkdtempSync(join(scratch, `${name}-`)), cpus: nodeCpus, plan, log }
    const t = Date.now()
    log(`starting and seeding ${name}`)
    try {
      nodes.push(await (PEERS[name] as Peer).start(ctx))
      contexts.set(name, ctx)
      log(`  ${name} seeded in ${((Date.now() - t) / 1000).toFixed(1)} s`)
    } catch (err) {
      errors.push(`${name} could not be started/seeded: ${String(err).split('\n')[0]}`)
      log(`  ${name} FAILED: ${String(err)}`)
    }
  }
  // idle RSS: after a short settle
  await new Promise((r) => setTimeout(r, 2000))
  const memory = new Map<string, Record<string, number>>()
  for (const n of [bare, ...nodes]) memory.set(n.name, { idle: treeRssMiB(n.proc.pid) })
  const versions: Record<string, string> = {}
  for (const n of [...nodes, bare]) versions[n.name] = n.version

  // one node at a time: the others (and their child processes) are paused while it is measured
  pauseOthersWhileMeasuring(() =>
    [bare, ...sctx.nodes].map((n) => ({ url: n.url, pids: [n.proc.pid, ...descendants(n.proc.pid)] })),
  )
  const done = new Map<string, ScenarioResult>()
  const sctx: ScenarioContext = {
    nodes,
    bare,
    plan,
    requests: new RequestFactory(plan),
    opts,
    gen: { processes: Number(values['gen-processes']), cpus: genCpus },
    log,
    done,
    memory,
    async intervalMining(node, seconds) {
      const fresh = await (PEERS[node.name as NodeName] as Peer).intervalMining(
        node,
        contexts.get(node.name) as StartContext,
        seconds,
      )
      const i = nodes.indexOf(node)
      if (i >= 0) nodes[i] = fresh
      return fresh
    },
  }
  for (const name of scenarioNames) {
    if (Date.now() > deadline) {
      errors.push(`scenario ${name} skipped: --max-minutes ${values['max-minutes']} reached`)
      continue
    }
    log(`scenario ${name}`)
    try {
      done.set(name, await SCENARIOS[name]!.run(sctx))
    } catch (err) {
      errors.push(`scenario ${name} failed: ${String(err).split('\n')[0]}`)
      log(`  FAILED: ${err instanceof Error ? err.stack : String(err)}`)
    }
  }
  await stopAll()
  const date = new Date(started).toISOString().slice(0, 16).replace(':', '')
  const report: Report = {
    meta: {
      date,
      startedAt: new Date(started).toISOString(),
      minutes: (Date.now() - started) / 60_000,
      host: {
        cpus: total,
        model: cpus()[0]?.model.trim() ?? 'unknown',
        memGiB: Math.round(totalmem() / 2 ** 30),
        loadBefore,
        loadAfter: loadavg(),
        node: process.version,
      },
      pinning:
        nodeCpus === undefined ? 'none' : `nodes on CPUs ${nodeCpus}, load generators on ${genCpus ?? 'the same CPUs'}`,
      versions,
      seed: {
        blocks: plan.head,
        historyTxs: seedOpts.historyTxs,
        transferLogs: seedOpts.historyTxs * seedOpts.transfersPerTx + 1,
        senders: seedOpts.senders,
        holders: plan.holders.length,
        gasLimit: 60_000_000,
      },
      options: {
        ...opts,
        nodes: names,
        scenarios: scenarioNames,
        cpus: pinned ?? 'all',
        freeMemGiB: Math.round(freemem() / 2 ** 30),
      },
      command: `npm run bench -- ${process.argv.slice(2).join(' ')}`.trim(),
      errors,
    },
    scenarios: [...done.values()],
    memory: Object.fromEntries(memory),
  }
  const md = writeReport(values.out as string, report)
  log(`report: ${md}`)
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}

/**
 * `npm run bench:bigstate`: ibex on a big generated state beside ibex on a small one, in the same run
 * (issue 22). Both datadirs come from the same generator (generate.ts), so the same kinds of
 * accounts, tokens, slots, receipts and logs are read from each; only the sizes differ.
 *
 *   npm run bench:bigstate -- [--big DIR] [--small DIR] [--accounts N --contracts N --txs N
 *     --blocks N --senders N] [--seconds 10] [--turns 8] [--out bench/results]
 *     ["--ibex-node-flags=--cpu-prof --cpu-prof-dir=DIR"]
 *
 * --big / --small name directories generated before (`npm run bench:bigstate:gen`); a missing one
 * is generated into a scratch directory first (the big one at the size flags, the small one at
 * SMALL_SIZE). For each: spawn → first eth_getBalance answer, idle RSS, the read mix (closed loop,
 * 32 connections, `--turns` turns alternating small and big, each while the other node is paused
 * with SIGSTOP; the best turn counts: a node's first turns after its start are cold, its page and
 * block caches filling, and the default of 8 lets both reach what they hold from then on), peak RSS under it, eth_getLogs over the last 10,000 blocks,
 * chaindata size on disk. Writes <out>/<date>-bigstate.md and .json.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { generate, type Summary } from '../load/index.js'
import { ibexNodeFlags } from '../peers/ibex.js'
import { RssSampler, stopAll, treeRssMiB } from '../peers/process.js'
import { RESULTS_DIR } from '../repo.js'
import { type BigStateManifest, bigStatePaths, generateBigState, readManifest } from './generate.js'
import {
  BIG_MIX,
  MIX_REQUESTS,
  bigMixRequests,
  checkServes,
  diskBytes,
  LOGS_SPAN,
  logsOver10k,
  type ServedBigState,
  startBigState,
  awaitFlatTable,
} from './measure.js'
import { type BigStateOptions, FULL_SIZE } from './plan.js'

/** The small state beside the big one: the scale of `npm run bench`'s seed (2,000 accounts, 10k blocks). */
export const SMALL_SIZE: BigStateOptions = {
  seed: 1,
  accounts: 2_000,
  contracts: 100,
  txs: 20_000,
  blocks: 10_000,
  senders: 100,
}
const CONNECTIONS = 32
/** Settle time before the idle RSS is read, ms. */
const SETTLE_MS = 2_000

const { values } = parseArgs({
  options: {
    big: { type: 'string' },
    small: { type: 'string' },
    seed: { type: 'string', default: String(FULL_SIZE.seed) },
    accounts: { type: 'string', default: String(FULL_SIZE.accounts) },
    contracts: { type: 'string', default: String(FULL_SIZE.contracts) },
    txs: { type: 'string', default: String(FULL_SIZE.txs) },
    blocks: { type: 'string', default: String(FULL_SIZE.blocks) },
    senders: { type: 'string', default: String(FULL_SIZE.senders) },
    seconds: { type: 'string', default: '10' },
    turns: { type: 'string', default: '8' },
    out: { type: 'string', default: RESULTS_DIR },
    'ibex-node-flags': { type: 'string', default: '' },
    /** Seconds of a turn per method alone (0: no per-method table), after the mix. */
    'per-method': { type: 'string', default: '0' },
  },
})
ibexNodeFlags.push(...(values['ibex-node-flags'] as string).split(' ').filter(Boolean))
const started = Date.now()
const log = (line: string): void => console.log(`[${((Date.now() - started) / 1000).toFixed(0).padStart(4)} s] ${line}`)
const scratch = mkdtempSync(join(tmpdir(), 'ibex-bigstate-'))
const loadBefore = loadavg()

async function datadir(name: string, given: string | undefined, size: BigStateOptions): Promise<string> {
  if (given !== undefined) {
    if (!existsSync(bigStatePaths(resolve(given)).manifest))
      throw new Error(`${given}: no ${name} state generated there`)
    return resolve(given)
  }
  const out = join(scratch, name)
  log(`generating the ${name} state ${JSON.stringify(size)}`)
  const m = await generateBigState(size, out, (l) => log(l))
  log(`  ${m.txs} txs, head ${m.head} in ${m.seconds.toFixed(0)} s (${(m.txs / m.seconds).toFixed(0)} tx/s)`)
  return out
}

interface Side {
  name: string
  dir: string
  m: BigStateManifest
  node: ServedBigState
  idleRssMiB: number
  peakRssMiB: number
  turns: Summary[]
  /** Method → req/s of a turn of that method alone (--per-method). */
  alone: Map<string, number>
}

try {
  const sizeFlags: BigStateOptions = {
    seed: Number(values.seed),
    accounts: Number(values.accounts),
    contracts: Number(values.contracts),
    txs: Number(values.txs),
    blocks: Number(values.blocks),
    senders: Number(values.senders),
  }
  const dirs = {
    small: await datadir('small', values.small, SMALL_SIZE),
    big: await datadir('big', values.big, sizeFlags),
  }
  const sides: Side[] = []
  for (const [name, dir] of Object.entries(dirs)) {
    const m = readManifest(dir)
    // the other node sleeps while this one starts
    for (const s of sides) process.kill(s.node.proc.pid, 'SIGSTOP')
    const node = await startBigState(dir, m)
    log(
      `${name}: ${m.options.accounts} accounts, head ${m.head}: first answer ${node.startMs.toFixed(0)} ms after spawn`,
    )
    await checkServes(node.url, m)
    const flatMs = await awaitFlatTable(node)
    if (flatMs > 0)
      log(`${name}: flat account table built in ${(flatMs / 1000).toFixed(1)} s (a datadir from before it)`)
    await new Promise((r) => setTimeout(r, SETTLE_MS))
    sides.push({
      name,
      dir,
      m,
      node,
      idleRssMiB: treeRssMiB(node.proc.pid),
      peakRssMiB: 0,
      turns: [],
      alone: new Map(),
    })
    for (const s of sides) if (s.name !== name) process.kill(s.node.proc.pid, 'SIGCONT')
  }
  const mixes = new Map(sides.map((s) => [s.name, bigMixRequests(s.m)]))
  for (let turn = 0; turn < Number(values.turns); turn++) {
    for (const side of sides) {
      const others = sides.filter((s) => s !== side)
      for (const o of others) process.kill(o.node.proc.pid, 'SIGSTOP')
      const rss = new RssSampler(side.node.proc.pid, 100)
      const summary = await generate({
        url: side.node.url,
        requests: mixes.get(side.name) ?? [],
        connections: CONNECTIONS,
        durationMs: Number(values.seconds) * 1000,
        warmupMs: 1000,
        timeoutMs: 10_000,
      })
      side.peakRssMiB = Math.max(side.peakRssMiB, rss.stop())
      for (const o of others) process.kill(o.node.proc.pid, 'SIGCONT')
      side.turns.push(summary)
      log(
        `turn ${turn + 1} ${side.name}: ${Math.round(summary.rps)} req/s, p50 ${summary.p50.toFixed(1)} ms, p99 ${summary.p99.toFixed(1)} ms, errors ${summary.httpErrors + summary.rpcErrors + summary.failed}`,
      )
    }
  }
  const aloneSeconds = Number(values['per-method'])
  if (aloneSeconds > 0) {
    for (const method of Object.keys(BIG_MIX)) {
      for (const side of sides) {
        const requests = bigMixRequests(side.m, MIX_REQUESTS, 11, method)
        const others = sides.filter((s) => s !== side)
        for (const o of others) process.kill(o.node.proc.pid, 'SIGSTOP')
        const summary = await generate({
          url: side.node.url,
          requests,
          connections: CONNECTIONS,
          durationMs: aloneSeconds * 1000,
          warmupMs: 500,
          timeoutMs: 10_000,
        })
        for (const o of others) process.kill(o.node.proc.pid, 'SIGCONT')
        side.alone.set(method, summary.rps)
        log(`${method} alone, ${side.name}: ${Math.round(summary.rps)} req/s, p99 ${summary.p99.toFixed(1)} ms`)
      }
    }
  }
  const logs = new Map<string, Record<string, { ms: number; logs: number }>>()
  for (const side of sides) {
    for (const o of sides) if (o !== side) process.kill(o.node.proc.pid, 'SIGSTOP')
    logs.set(side.name, await logsOver10k(side.node.url, side.m))
    for (const o of sides) if (o !== side) process.kill(o.node.proc.pid, 'SIGCONT')
  }
  await stopAll()
  const best = (s: Side): Summary => s.turns.reduce((a, b) => (b.rps > a.rps ? b : a))
  const [small, big] = sides as [Side, Side]
  const ratio = best(big).rps / best(small).rps
  const loadAfter = loadavg()
  const row = (label: string, f: (s: Side) => string): string => `| ${label} | ${f(small)} | ${f(big)} |`
  const mib = (b: number): string => `${(b / 2 ** 20).toFixed(0)} MiB`
  const logNames = Object.keys(logs.get('small') ?? {})
  const md = [
    `# Big state beside small state — ${new Date(started).toISOString().slice(0, 16)}Z`,
    '',
    `Command: \`npm run bench:bigstate -- ${process.argv.slice(2).join(' ')}\`. Load average ${loadBefore.map((x) => x.toFixed(2)).join(' ')} before, ${loadAfter.map((x) => x.toFixed(2)).join(' ')} after. ${CONNECTIONS} connections closed loop, ${values.seconds} s a turn, ${values.turns} turns alternating (the other node paused), best turn.`,
    '',
    `Read mix (${Object.entries(BIG_MIX)
      .map(([k, v]) => `${k} ${v}%`)
      .join(', ')}), every account, slot and transaction drawn at random from the generated state.`,
    '',
    '| | small state | big state |',
    '|---|---|---|',
    row(
      'generated with',
      (s) =>
        `${s.m.options.accounts} accounts, ${s.m.options.contracts} tokens, ${s.m.txs} txs, ${s.m.head} blocks (seed ${s.m.options.seed})`,
    ),
    row('generation time', (s) => `${s.m.seconds.toFixed(0)} s (${(s.m.txs / s.m.seconds).toFixed(0)} tx/s)`),
    row('chaindata on disk', (s) => mib(diskBytes(s.dir))),
    row('spawn → first eth_getBalance', (s) => `${s.node.startMs.toFixed(0)} ms`),
    row('RSS idle', (s) => `${s.idleRssMiB.toFixed(0)} MiB`),
    row(
      'read mix, req/s (turns)',
      (s) => `**${Math.round(best(s).rps)}** (${s.turns.map((t) => Math.round(t.rps)).join(', ')})`,
    ),
    row('read mix p50 / p99', (s) => `${best(s).p50.toFixed(1)} / ${best(s).p99.toFixed(1)} ms`),
    row('read mix errors', (s) => String(s.turns.reduce((n, t) => n + t.httpErrors + t.rpcErrors + t.failed, 0))),
    row('peak RSS under the mix', (s) => `${s.peakRssMiB.toFixed(0)} MiB`),
    ...logNames.map((q) =>
      row(`eth_getLogs, ${q}, last ${LOGS_SPAN} blocks (median)`, (s) => {
        const r = logs.get(s.name)?.[q]
        return r === undefined ? '—' : `${r.ms.toFixed(1)} ms (${r.logs} logs)`
      }),
    ),
    '',
    `Big-state read mix / small-state read mix: **${ratio.toFixed(2)}** (target ≥ 0.80).`,
    '',
    ...(aloneSeconds > 0
      ? [
          `Each method alone (\`--per-method ${aloneSeconds}\`: ${aloneSeconds} s a turn, a list of that method alone drawn as the mix draws it), req/s:`,
          '',
          '| method | small state | big state | big / small |',
          '|---|---:|---:|---:|',
          ...Object.keys(BIG_MIX).map((method) => {
            const a = small.alone.get(method) ?? 0
            const b = big.alone.get(method) ?? 0
            return `| ${method} | ${Math.round(a)} | ${Math.round(b)} | ${a > 0 ? (b / a).toFixed(2) : '—'} |`
          }),
          '',
        ]
      : []),
  ].join('\n')
  const date = new Date(started).toISOString().slice(0, 16).replace(':', '')
  const file = join(values.out as string, `${date}-bigstate.md`)
  writeFileSync(file, md)
  writeFileSync(
    file.replace(/\.md$/, '.json'),
    `${JSON.stringify(
      {
        loadBefore,
        loadAfter,
        ratio,
        sides: sides.map((s) => ({
          name: s.name,
          options: s.m.options,
          head: s.m.head,
          generationSeconds: s.m.seconds,
          diskBytes: diskBytes(s.dir),
          startMs: s.node.startMs,
          idleRssMiB: s.idleRssMiB,
          peakRssMiB: s.peakRssMiB,
          turns: s.turns.map((t) => ({ rps: t.rps, p50: t.p50, p99: t.p99, tags: t.tags })),
          alone: Object.fromEntries(s.alone),
          logs: logs.get(s.name),
        })),
      },
      null,
      2,
    )}\n`,
  )
  console.log(md)
  log(`report: ${file}`)
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}

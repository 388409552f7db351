/**
 * `npm run bench:gate`: the CI performance gate (a couple of minutes). Starts a bare node:http
 * server and ibex on a small seeded state (GATE_SEED), measures closed-loop throughput at
 * GATE_CONNECTIONS keep-alive connections, and fails when
 *   - a throughput falls below its floor, stated as a ratio to the node:http server measured in
 *     the same run (absolute numbers are noise on shared machines), or
 *   - ibex's peak RSS under the read mix exceeds RSS_BUDGET_MIB, or
 *   - any request answered a JSON-RPC error.
 * node:http is measured before and after ibex; the ratio uses the higher of the two, so a
 * machine that got busier meanwhile cannot flatter ibex.
 *
 *   npm run bench:gate [-- --json FILE]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { generate, type LoadRequest, type Summary } from './load/index.js'
import { PEERS, type Peer, RssSampler, startBare, stopAll } from './peers/index.js'
import { prng } from '../src/util/prng.js'
import { RequestFactory } from './scenarios/requests.js'
import { buildSeedPlan } from './seed/plan.js'

/** Keep-alive connections of every point. */
export const GATE_CONNECTIONS = 32
/** Measured seconds per point, after a warmup second. */
const GATE_SECONDS = 3
/** A small seed: 2,010 blocks, 3,201 Transfer logs, 300 senders (ibex seeds it in ~20 s). */
const GATE_SEED = { historyTxs: 200, transfersPerTx: 16, gap: 9, senders: 300, holders: 100 }
/** Peak RSS ibex may reach under the gate's read mix: ~1.9x the 380–411 MiB seen (target < 1 GiB). */
export const RSS_BUDGET_MIB = 768

/**
 * Floors: ibex's throughput / node:http's, same run, same connections. Set at ~55% of the lowest
 * of five runs on the 2-core dev box (load average 3–9 from other engineers' tests, two of the
 * runs beside a busy-loop process; bench/README.md lists them): a regression that halves a
 * path fails, the box's noise does not.
 */
/** Requests of the distinct rows: more than ibex answers in one point, so none repeats (no result cache). */
const DISTINCT_REQUESTS = 60_000

export const FLOORS: Record<string, number> = {
  // since the HTTP fast path (src/rpc/server/wire.ts, 2026-11-25): 1.37 and 1.05, see bench/README.md
  eth_blockNumber: 0.8,
  eth_getBalance: 0.5,
  'eth_getBlockByNumber(full)': 0.22,
  // since the main-thread result cache (2026-11-22, runs 6–8): 0.59–0.66 and 0.33–0.35
  'eth_call(view)': 0.4,
  // since the fast interpreter (2026-11-24): uncached calls and account reads, see bench/README.md
  'eth_call(view, distinct)': 0.1,
  'eth_getBalance(distinct)': 0.5,
  'read mix': 0.17,
}

const { values } = parseArgs({ options: { json: { type: 'string' } } })
const log = (line: string): void => console.log(`[gate] ${line}`)
const scratch = mkdtempSync(join(tmpdir(), 'ibex-gate-'))

async function point(url: string, requests: LoadRequest[]): Promise<Summary> {
  return generate({
    url,
    requests,
    connections: GATE_CONNECTIONS,
    durationMs: GATE_SECONDS * 1000,
    warmupMs: 1000,
    timeoutMs: 10_000,
  })
}

let failed = false
try {
  const loadBefore = loadavg()
  const t = Date.now()
  const plan = buildSeedPlan(GATE_SEED)
  const bare = await startBare(undefined)
  const ibex = await (PEERS.ibex as Peer).start({ dir: mkdtempSync(join(scratch, 'ibex-')), plan, log })
  log(`seeded ${plan.head} blocks and started ibex in ${((Date.now() - t) / 1000).toFixed(0)} s`)
  const f = new RequestFactory(plan)
  const rand = prng(7)
  const randomAddress = () =>
    `0x${Math.floor(rand() * 2 ** 48)
      .toString(16)
      .padStart(40, '0')}`
  const lists: Record<string, LoadRequest[]> = {
    eth_blockNumber: f.single('eth_blockNumber', 16),
    eth_getBalance: f.single('eth_getBalance'),
    'eth_getBlockByNumber(full)': f.single('eth_getBlockByNumber', undefined, () => {
      const h = plan.history[Math.floor(rand() * plan.history.length)] as { block: number }
      return [`0x${h.block.toString(16)}`, true]
    }),
    'eth_call(view)': f.single('eth_call'),
    'eth_call(view, distinct)': f.single('eth_call', DISTINCT_REQUESTS, () => [
      { to: plan.token, data: `0x70a08231${randomAddress().slice(2).padStart(64, '0')}` },
      'latest',
    ]),
    'eth_getBalance(distinct)': f.single('eth_getBalance', DISTINCT_REQUESTS, () => [randomAddress(), 'latest']),
    'read mix': f.mix(),
  }
  const bareBefore = await point(bare.url, lists.eth_blockNumber as LoadRequest[])
  const results: Record<string, Summary> = {}
  let peak = 0
  for (const [name, requests] of Object.entries(lists)) {
    const rss = name === 'read mix' ? new RssSampler(ibex.proc.pid, 100) : undefined
    results[name] = await point(ibex.url, requests)
    if (rss !== undefined) peak = rss.stop()
  }
  const bareAfter = await point(bare.url, lists.eth_blockNumber as LoadRequest[])
  const ceiling = Math.max(bareBefore.rps, bareAfter.rps)
  log(
    `node:http ${Math.round(bareBefore.rps)} / ${Math.round(bareAfter.rps)} req/s (before / after); load average ${loadBefore.map((x) => x.toFixed(1)).join(' ')} → ${loadavg()
      .map((x) => x.toFixed(1))
      .join(' ')}`,
  )
  // a path below its floor is measured once more and the better of the two counts (as node:http's
  // higher of two): one 3-s point on a shared box can land on someone else's burst
  for (const [name, s] of Object.entries(results)) {
    if (s.rps / ceiling >= (FLOORS[name] as number) || s.httpErrors + s.rpcErrors + s.failed > 0) continue
    const again = await point(ibex.url, lists[name] as LoadRequest[])
    log(`retry ${name}: ${Math.round(s.rps)} then ${Math.round(again.rps)} req/s`)
    if (again.rps > s.rps) results[name] = again
  }
  const rows: Record<string, { rps: number; ratio: number; floor: number; errors: number; ok: boolean }> = {}
  for (const [name, s] of Object.entries(results)) {
    const ratio = s.rps / ceiling
    const errors = s.httpErrors + s.rpcErrors + s.failed
    const floor = FLOORS[name] as number
    const ok = ratio >= floor && errors === 0
    rows[name] = { rps: s.rps, ratio, floor, errors, ok }
    if (!ok) failed = true
    log(
      `${ok ? 'ok  ' : 'FAIL'} ${name.padEnd(28)} ${String(Math.round(s.rps)).padStart(6)} req/s = ${ratio.toFixed(3)}× node:http (floor ${floor}), p99 ${s.p99.toFixed(1)} ms, errors ${errors}`,
    )
  }
  const rssOk = peak > 0 && peak <= RSS_BUDGET_MIB
  if (!rssOk) failed = true
  log(`${rssOk ? 'ok  ' : 'FAIL'} peak RSS under the read mix ${Math.round(peak)} MiB (budget ${RSS_BUDGET_MIB} MiB)`)
  if (values.json !== undefined) {
    writeFileSync(
      values.json,
      `${JSON.stringify({ ceiling, bareBefore: bareBefore.rps, bareAfter: bareAfter.rps, rows, peakRssMiB: peak, loadBefore, loadAfter: loadavg() }, null, 2)}\n`,
    )
  }
  log(failed ? 'performance gate FAILED' : 'performance gate passed')
} catch (err) {
  failed = true
  log(`error: ${err instanceof Error ? err.stack : String(err)}`)
} finally {
  await stopAll()
  rmSync(scratch, { recursive: true, force: true })
}
process.exit(failed ? 1 : 0)

/**
 * Side by side on the seeded state, one run, CONNECTIONS keep-alive connections, closed loop:
 * eth_blockNumber (against the bare node:http server too), eth_getBalance (the read mix's
 * accounts, and 60,000 distinct addresses), eth_getBlockByNumber
 * of history blocks with full transactions, and a view eth_call (BenchToken.balanceOf) — both
 * the read mix's list (holders: repeated calls, as a public host sees) and a list of distinct
 * addresses that never repeats within the point (what result caches cannot help). eth_blockNumber
 * is measured in FRAMING_ROUNDS turns of node:http and each node, the other methods in COMPARE_ROUNDS
 * turns of each node (alternating, so a burst on the shared box falls on all of them), each keeping
 * its median turn.
 */
import { generate, type Summary } from '../load/index.js'
import { prng } from '../../src/util/prng.js'
import { job, type Row, rowOf, type Scenario } from './types.js'

export const COMPARE_METHODS = [
  'eth_blockNumber',
  'eth_getBalance',
  'eth_getBalance(distinct)',
  'eth_getBlockByNumber(full)',
  'eth_call(view)',
  'eth_call(view, distinct)',
]
/** Turns node:http and the nodes take at eth_blockNumber (each keeps its median round). */
export const FRAMING_ROUNDS = 3
/** Turns each node takes at every other method when two or more nodes are compared (each keeps its median turn). */
export const COMPARE_ROUNDS = 3
/**
 * Distinct eth_calls of a turn of the "distinct" row: more than either node answered in a point
 * (ibex ~16k/s, anvil up to ~24k/s over 6 s), so none repeats and no result cache can help.
 */
const DISTINCT_CALLS = 160_000
/**
 * Distinct addresses of a turn of the eth_getBalance "distinct" row, as when the issue measured it
 * (0.82× anvil): a node at ~35k/s goes through them about three times in a point, so repeats come
 * from per-state caches (ibex keeps READ_CACHE_ACCOUNTS = 100,000 accounts per state root).
 */
const DISTINCT_BALANCES = 60_000

export const compare: Scenario = {
  name: 'compare',
  title: 'Side by side (closed loop)',
  async run(ctx) {
    const rows: Row[] = []
    const c = ctx.opts.connections
    const rand = prng(7)
    const randomAddress = () =>
      `0x${Math.floor(rand() * 2 ** 48)
        .toString(16)
        .padStart(40, '0')}`
    type List = ReturnType<typeof ctx.requests.single>
    const lists: Record<string, List> = {
      eth_blockNumber: ctx.requests.single('eth_blockNumber', 16),
      eth_getBalance: ctx.requests.single('eth_getBalance'),
      'eth_getBlockByNumber(full)': ctx.requests.single('eth_getBlockByNumber', undefined, () => {
        const h = ctx.plan.history[Math.floor(rand() * ctx.plan.history.length)] as { block: number }
        return [`0x${h.block.toString(16)}`, true]
      }),
      'eth_call(view)': ctx.requests.single('eth_call'),
    }
    // the distinct rows draw new addresses every turn: a turn must not find the last one's answers cached
    const distinct: Record<string, () => List> = {
      'eth_getBalance(distinct)': () =>
        ctx.requests.single('eth_getBalance', DISTINCT_BALANCES, () => [randomAddress(), 'latest']),
      'eth_call(view, distinct)': () =>
        ctx.requests.single('eth_call', DISTINCT_CALLS, () => [
          { to: ctx.plan.token, data: `0x70a08231${randomAddress().slice(2).padStart(64, '0')}` },
          'latest',
        ]),
    }
    // eth_blockNumber: node:http and every node take turns, FRAMING_ROUNDS times, and each keeps its
    // median round: on a shared box a load burst then falls on all of them, not on one
    const rounds = ctx.bare === undefined ? 1 : FRAMING_ROUNDS
    const framing = new Map<string, Summary[]>()
    for (let r = 0; r < rounds; r++) {
      for (const node of ctx.bare === undefined ? ctx.nodes : [ctx.bare, ...ctx.nodes]) {
        const s = await generate(job(ctx, node.url, lists.eth_blockNumber as never, c), ctx.gen)
        framing.set(node.name, [...(framing.get(node.name) ?? []), s])
      }
    }
    for (const [name, runs] of framing) {
      const s = medianRun(runs)
      rows.push(rowOf(name, `eth_blockNumber ×${c}`, s))
      ctx.log(
        `  ${name.padEnd(9)} eth_blockNumber: ${Math.round(s.rps)} req/s p50 ${s.p50.toFixed(2)} p99 ${s.p99.toFixed(1)} ms errors ${s.httpErrors + s.rpcErrors + s.failed} (median of ${runs.map((x) => Math.round(x.rps)).join(', ')})`,
      )
    }
    // every other method: the nodes take COMPARE_ROUNDS turns, alternating, and each keeps its median
    // turn — one turn's rate swings by ±15% on a shared box, and a ratio of single turns with it
    const turns = ctx.nodes.length > 1 ? COMPARE_ROUNDS : 1
    for (const method of COMPARE_METHODS.slice(1)) {
      const runs = new Map<string, Summary[]>()
      for (let r = 0; r < turns; r++) {
        const list = distinct[method]?.() ?? (lists[method] as List)
        for (const node of ctx.nodes) {
          const s = await generate(job(ctx, node.url, list, c), ctx.gen)
          runs.set(node.name, [...(runs.get(node.name) ?? []), s])
        }
      }
      for (const node of ctx.nodes) {
        const all = runs.get(node.name) as Summary[]
        const s = medianRun(all)
        rows.push(rowOf(node.name, `${method} ×${c}`, s))
        const errors = all.reduce((n, x) => n + x.httpErrors + x.rpcErrors + x.failed, 0)
        ctx.log(
          `  ${node.name.padEnd(9)} ${method}: ${Math.round(s.rps)} req/s p50 ${s.p50.toFixed(2)} p99 ${s.p99.toFixed(1)} ms errors ${errors}${all.length > 1 ? ` (median of ${all.map((x) => Math.round(x.rps)).join(', ')})` : ''}`,
        )
      }
    }
    return {
      name: 'compare',
      title: `${this.title}, ${c} connections`,
      unit: 'req/s',
      rows,
      notes: ratioNotes(rows, c),
    }
  },
}

/** The run of median throughput (the lower middle one of an even count). */
function medianRun(runs: Summary[]): Summary {
  const sorted = [...runs].sort((a, b) => a.rps - b.rps)
  return sorted[(sorted.length - 1) >> 1] as Summary
}

/** The must-show ratios: ibex vs node:http (blockNumber) and vs anvil (the others). */
export function ratioNotes(rows: Row[], c: number): string[] {
  const get = (node: string, method: string) => rows.find((r) => r.node === node && r.label === `${method} ×${c}`)?.rps
  const notes: string[] = []
  const ratio = (a: number | undefined, b: number | undefined) =>
    a === undefined || b === undefined || b === 0 ? undefined : a / b
  const bn = ratio(get('ibex', 'eth_blockNumber'), get('node:http', 'eth_blockNumber'))
  if (bn !== undefined) notes.push(`ibex eth_blockNumber = ${bn.toFixed(2)}× node:http (target ≥ 0.8)`)
  const targets: [string, number][] = [
    ['eth_getBalance', 0.5],
    ['eth_getBalance(distinct)', 0.5],
    ['eth_getBlockByNumber(full)', 0.5],
    ['eth_call(view)', 0.25],
    ['eth_call(view, distinct)', 0.25],
  ]
  for (const [m, want] of targets) {
    const r = ratio(get('ibex', m), get('anvil', m))
    if (r !== undefined) notes.push(`ibex ${m} = ${r.toFixed(2)}× anvil (target ≥ ${want})`)
  }
  const base = COMPARE_METHODS.map((m) => [m, ratio(get('ibex', m), get('ibex@base', m))] as const).filter(
    ([, r]) => r !== undefined,
  )
  if (base.length > 0)
    notes.push(
      `ibex / ibex@base (after / before): ${base.map(([m, r]) => `${m} ${(r as number).toFixed(2)}×`).join(', ')}`,
    )
  return notes
}

/**
 * eth_getLogs over the last 100 / 1,000 / 10,000 blocks of the Transfer history (every Transfer of
 * the token), and over 10,000 blocks for one recipient (topic 2). Sequential queries on one
 * connection; the median time is the figure (target: < 100 ms for 10,000 blocks), the first
 * (unmeasured) query is shown apart: it is the one that meets cold caches.
 */
import { rpcTimed } from '../rpc.js'
import type { Row, Scenario } from './types.js'

export const LOG_SPANS = [100, 1000, 10_000]
/** Queries per point (after one unmeasured warm-up), and the most time a point may take. */
const QUERIES = 9
const POINT_BUDGET_MS = 30_000

function pct(xs: number[], p: number): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number
}

export const logs: Scenario = {
  name: 'logs',
  title: 'eth_getLogs over a range (sequential, median of queries)',
  async run(ctx) {
    const rows: Row[] = []
    const points: [string, string][] = LOG_SPANS.filter((s) => s <= ctx.plan.head + 1).map((s) => [
      `${s} blocks`,
      ctx.requests.logs(s),
    ])
    const span = Math.min(10_000, ctx.plan.head + 1)
    points.push([`${span} blocks, one recipient`, ctx.requests.logs(span, ctx.plan.holders[0])])
    for (const [label, body] of points) {
      for (const node of ctx.nodes) {
        const times: number[] = []
        let count = -1
        let bytes = 0
        let firstMs = Number.NaN
        let errors = 0
        const until = performance.now() + POINT_BUDGET_MS
        for (let i = 0; i <= QUERIES && performance.now() < until; i++) {
          try {
            const { ms, json, bytes: b } = await rpcTimed(node.url, body, POINT_BUDGET_MS)
            const result = (json as { result?: unknown[] }).result
            if (!Array.isArray(result)) {
              errors++
              continue
            }
            count = result.length
            bytes = b
            if (i > 0) times.push(ms)
            else firstMs = ms
          } catch {
            errors++
          }
        }
        const p50 = times.length > 0 ? pct(times, 50) : Number.NaN
        rows.push({
          node: node.name,
          label,
          rps: times.length > 0 ? 1000 / p50 : 0,
          p50,
          p99: times.length > 0 ? Math.max(...times) : Number.NaN,
          success: times.length / Math.max(1, times.length + errors),
          errors,
          extra: { logs: count, kB: Math.round(bytes / 1024), firstMs: Math.round(firstMs) },
        })
        ctx.log(`  ${node.name.padEnd(9)} ${label}: ${count} logs, median ${p50.toFixed(1)} ms`)
      }
    }
    return {
      name: 'logs',
      title: this.title,
      unit: 'queries/s',
      rows,
      notes: ['p99 column: the slowest query of the point.'],
    }
  },
}

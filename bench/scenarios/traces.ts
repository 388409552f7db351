/**
 * Traces beside the read mix: the mix at half the node's ladder maximum, open loop, first alone,
 * then with a stream of debug_traceTransaction (struct logger, history transactions of 16
 * transfers each) on TRACE_CONNECTIONS connections in parallel. The mix's p99 must hold.
 */
import { generate } from '../load/index.js'
import { LADDER_CONNECTIONS } from './readmix.js'
import { job, type Row, rowOf, type Scenario } from './types.js'

export const TRACE_CONNECTIONS = 2
/** Share of the node's ladder maximum the mix runs at. */
export const TRACE_MIX_SHARE = 0.5

export const traces: Scenario = {
  name: 'traces',
  title: `Read mix at half its maximum, alone and beside debug_traceTransaction (${TRACE_CONNECTIONS} connections)`,
  async run(ctx) {
    const rows: Row[] = []
    const notes: string[] = []
    const ladder = ctx.done.get('readmix')
    const mix = ctx.requests.mix()
    const traceList = ctx.requests.traces(200)
    for (const node of ctx.nodes) {
      let max = ladder?.rows.find((r) => r.node === node.name && r.label === 'max rate held')?.rps ?? 0
      if (max === 0) {
        const probe = await generate({ ...job(ctx, node.url, mix, ctx.opts.connections), durationMs: 2000 }, ctx.gen)
        max = probe.rps * 0.6
      }
      const rate = Math.max(5, Math.round(max * TRACE_MIX_SHARE))
      const alone = await generate(job(ctx, node.url, mix, LADDER_CONNECTIONS, rate), ctx.gen)
      const [beside, tr] = await Promise.all([
        generate(job(ctx, node.url, mix, LADDER_CONNECTIONS, rate), ctx.gen),
        generate({ ...job(ctx, node.url, traceList, TRACE_CONNECTIONS), timeoutMs: 30_000 }, ctx.gen),
      ])
      rows.push(rowOf(node.name, `mix ${rate}/s alone`, alone))
      rows.push(rowOf(node.name, `mix ${rate}/s + traces`, beside))
      rows.push(rowOf(node.name, 'traces beside the mix', tr, { kBPerTrace: Math.round(tr.bodyBytes / 1024) }))
      const held = beside.p99 < ctx.opts.ladderP99Ms && beside.success >= ctx.opts.ladderSuccess
      notes.push(
        `${node.name}: mix p99 ${alone.p99.toFixed(1)} → ${beside.p99.toFixed(1)} ms with ${tr.rps.toFixed(1)} traces/s (${held ? 'held' : 'did not hold'})`,
      )
      ctx.log(`  ${node.name.padEnd(9)} ${notes[notes.length - 1]}`)
    }
    return { name: 'traces', title: this.title, unit: 'req/s', rows, notes }
  },
}

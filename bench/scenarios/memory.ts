/**
 * Memory: resident set (process and descendants) idle after seeding, at its peak under the read
 * mix (sampled by the read-mix scenario), and after `soakMinutes` of read mix at a steady rate
 * (half the node's ladder maximum, or SOAK_DEFAULT_RATE) — a leak shows as growth.
 */
import { generate } from '../load/index.js'
import { RssSampler, treeRssMiB } from '../peers/index.js'
import { LADDER_CONNECTIONS } from './readmix.js'
import { job, type Row, type Scenario } from './types.js'

export const SOAK_DEFAULT_RATE = 200

export const memory: Scenario = {
  name: 'memory',
  title: 'Resident memory (MiB)',
  async run(ctx) {
    const rows: Row[] = []
    const ladder = ctx.done.get('readmix')
    const mix = ctx.requests.mix()
    for (const node of ctx.nodes) {
      const max = ladder?.rows.find((r) => r.node === node.name && r.label === 'max rate held')?.rps ?? 0
      const rate = max > 0 ? Math.round(max * 0.5) : SOAK_DEFAULT_RATE
      const before = treeRssMiB(node.proc.pid)
      const rss = new RssSampler(node.proc.pid, 1000)
      const s = await generate(
        {
          ...job(ctx, node.url, mix, LADDER_CONNECTIONS, rate),
          warmupMs: 0,
          durationMs: ctx.opts.soakMinutes * 60_000,
        },
        ctx.gen,
      )
      const peak = rss.stop()
      const after = treeRssMiB(node.proc.pid)
      const mem = ctx.memory.get(node.name) ?? {}
      mem.soakPeak = peak
      mem.afterSoak = after
      ctx.memory.set(node.name, mem)
      rows.push({
        node: node.name,
        label: `read mix ${rate}/s for ${ctx.opts.soakMinutes} min`,
        rps: s.rps,
        p50: s.p50,
        p99: s.p99,
        success: s.success,
        errors: s.httpErrors + s.rpcErrors + s.failed,
        extra: {
          idleMiB: Math.round(mem.idle ?? Number.NaN),
          readMixPeakMiB: Math.round(mem.readMixPeak ?? Number.NaN),
          beforeSoakMiB: Math.round(before),
          soakPeakMiB: Math.round(peak),
          afterSoakMiB: Math.round(after),
        },
      })
      ctx.log(
        `  ${node.name.padEnd(9)} RSS idle ${Math.round(mem.idle ?? 0)} MiB, read-mix peak ${Math.round(mem.readMixPeak ?? 0)}, after ${ctx.opts.soakMinutes} min ${Math.round(after)} MiB`,
      )
    }
    return {
      name: 'memory',
      title: this.title,
      unit: 'req/s',
      rows,
      notes: ['RSS of the node process and its descendants (VmRSS from /proc).'],
    }
  },
}

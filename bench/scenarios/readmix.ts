/**
 * The public read mix (READ_MIX weights) as a rate ladder, open loop: a closed-loop probe finds
 * roughly what the node sustains, then rates climb from half of it by LADDER_STEP until one fails
 * (success < opts.ladderSuccess or p99 ≥ opts.ladderP99Ms). The node's score is the highest rate
 * that held. Resident memory is sampled throughout (the "peak under load" of the memory table).
 */
import { generate, type Summary } from '../load/index.js'
import { RssSampler } from '../peers/index.js'
import { job, type Row, rowOf, type Scenario, type ScenarioContext } from './types.js'
import type { RunningNode } from '../peers/types.js'

/** Open-loop connections (a proxy's upstream pool). */
export const LADDER_CONNECTIONS = 64
/** Each rung is this much above the last. */
export const LADDER_STEP = 1.25
/** Most rungs per node (bounds the run time). */
export const LADDER_MAX_RUNGS = 9

export function passes(ctx: ScenarioContext, s: Summary): boolean {
  return s.success >= ctx.opts.ladderSuccess && s.p99 < ctx.opts.ladderP99Ms
}

/** Runs the ladder on one node; returns its rows and the highest rate that held (0 if none). */
export async function ladder(
  ctx: ScenarioContext,
  node: RunningNode,
): Promise<{ rows: Row[]; max: number; probe: Summary }> {
  const requests = ctx.requests.mix()
  const rows: Row[] = []
  const probe = await generate(job(ctx, node.url, requests, ctx.opts.connections), ctx.gen)
  rows.push(rowOf(node.name, `closed loop ×${ctx.opts.connections}`, probe))
  ctx.log(`  ${node.name.padEnd(9)} probe: ${Math.round(probe.rps)} req/s p99 ${probe.p99.toFixed(1)} ms`)
  let rate = Math.max(10, Math.round(probe.rps * 0.5))
  let max = 0
  for (let rung = 0, down = 0; rung < LADDER_MAX_RUNGS; rung++) {
    const s = await generate(job(ctx, node.url, requests, LADDER_CONNECTIONS, rate), ctx.gen)
    const ok = passes(ctx, s)
    rows.push(rowOf(node.name, `rate ${rate}`, s, { held: ok ? 'yes' : 'no' }))
    ctx.log(
      `  ${node.name.padEnd(9)} ${rate}/s: success ${(s.success * 100).toFixed(2)}% p99 ${s.p99.toFixed(1)} ms ${ok ? 'held' : 'failed'}`,
    )
    if (ok) {
      max = rate
      rate = Math.round(rate * LADDER_STEP)
    } else if (max === 0 && down < 3) {
      // the first rung failed: go down until one holds
      down++
      rate = Math.max(5, Math.round(rate / 2))
    } else break
  }
  return { rows, max, probe }
}

export const readmix: Scenario = {
  name: 'readmix',
  title: 'Public read mix: highest open-loop rate with success ≥ 99.9% and p99 < 50 ms',
  async run(ctx) {
    const rows: Row[] = []
    const notes: string[] = []
    for (const node of ctx.nodes) {
      const rss = new RssSampler(node.proc.pid)
      const { rows: r, max, probe } = await ladder(ctx, node)
      const peak = rss.stop()
      const mem = ctx.memory.get(node.name) ?? {}
      mem.readMixPeak = peak
      ctx.memory.set(node.name, mem)
      rows.push(...r)
      rows.push({
        node: node.name,
        label: 'max rate held',
        rps: max,
        p50: Number.NaN,
        p99: Number.NaN,
        success: 1,
        errors: 0,
        extra: { probeRps: Math.round(probe.rps), peakRssMiB: Math.round(peak) },
      })
      const slow = Object.entries(probe.tags).sort((a, b) => b[1].p99 - a[1].p99)[0]
      if (slow !== undefined)
        notes.push(`${node.name}: slowest method in the probe ${slow[0]} (p99 ${slow[1].p99.toFixed(1)} ms)`)
    }
    return { name: 'readmix', title: this.title, unit: 'req/s', rows, notes }
  },
}

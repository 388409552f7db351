/** What a scenario gets to work with and what it reports. */
import type { GeneratorOptions, LoadJob, Summary } from '../load/index.js'
import type { RunningNode } from '../peers/types.js'
import type { SeedPlan } from '../seed/plan.js'
import type { RequestFactory } from './requests.js'

export interface BenchOptions {
  /** Measured seconds per point (after warmup). */
  seconds: number
  warmupSeconds: number
  /** Keep-alive connections of the side-by-side comparison. */
  connections: number
  /** Read-mix ladder: success and p99 a rate must hold. */
  ladderSuccess: number
  ladderP99Ms: number
  /** Write path: offered transfers/s and for how long. */
  writeRate: number
  writeSeconds: number
  /** Minutes of read mix before the "after N minutes" RSS. */
  soakMinutes: number
}

export const DEFAULT_OPTIONS: BenchOptions = {
  seconds: 5,
  warmupSeconds: 1,
  connections: 32,
  ladderSuccess: 0.999,
  ladderP99Ms: 50,
  writeRate: 2500,
  writeSeconds: 10,
  soakMinutes: 1,
}

/** One measured point: a node, what was measured, the load summary (or a single timing). */
export interface Row {
  node: string
  /** What was measured (method, connections, rate…). */
  label: string
  rps: number
  callsPerSec?: number
  p50: number
  p99: number
  success: number
  errors: number
  /** Scenario-specific figures (log counts, RSS, finalized tx/s…). */
  extra?: Record<string, number | string>
}

export interface ScenarioResult {
  name: string
  title: string
  /** Column meaning of `rps` for this scenario (req/s, batches/s, tx/s…). */
  unit: string
  rows: Row[]
  notes: string[]
}

export interface ScenarioContext {
  nodes: RunningNode[]
  /** The bare node:http server (framing ceiling), when started. */
  bare: RunningNode | undefined
  plan: SeedPlan
  requests: RequestFactory
  opts: BenchOptions
  gen: GeneratorOptions
  log: (line: string) => void
  /** Results of scenarios already run (the trace scenario reads the read-mix ladder). */
  done: Map<string, ScenarioResult>
  /** Peak RSS per node seen during the read mix (MiB), filled by the read-mix scenario. */
  memory: Map<string, Record<string, number>>
  /** Restarts a node for the write path (interval mining); replaces it in `nodes`. */
  intervalMining(node: RunningNode, seconds: number): Promise<RunningNode>
}

export interface Scenario {
  name: string
  title: string
  run(ctx: ScenarioContext): Promise<ScenarioResult>
}

/** A LoadJob with the run's durations filled in. */
export function job(
  ctx: ScenarioContext,
  url: string,
  requests: LoadJob['requests'],
  connections: number,
  rate?: number,
): LoadJob {
  return {
    url,
    requests,
    connections,
    rate,
    durationMs: ctx.opts.seconds * 1000,
    warmupMs: ctx.opts.warmupSeconds * 1000,
    timeoutMs: 10_000,
  }
}

/** A Row from a load summary. */
export function rowOf(node: string, label: string, s: Summary, extra?: Row['extra']): Row {
  return {
    node,
    label,
    rps: s.rps,
    callsPerSec: s.callsPerSec,
    p50: s.p50,
    p99: s.p99,
    success: s.success,
    errors: s.httpErrors + s.rpcErrors + s.failed,
    extra,
  }
}

export function fmtRate(n: number): string {
  return n >= 100 ? Math.round(n).toLocaleString('en-US') : n.toFixed(1)
}

/**
 * Runs a load job in generator processes (bench/load/child.ts), optionally pinned to CPUs with
 * taskset, and merges their results into one Summary: throughput, success rate, error counts
 * and latency percentiles, overall and per request tag.
 */
import { spawn } from 'node:child_process'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { LoadJob, LoadResult, TagResult } from './generator.js'
import { Histogram } from './histogram.js'

export type { LoadJob, LoadRequest } from './generator.js'

export interface GeneratorOptions {
  /** Generator processes sharing the job's connections and rate (default 1). */
  processes?: number
  /** `taskset -c` CPU list for the generators (e.g. "1"); absent = not pinned. */
  cpus?: string
}

export interface Stats {
  sent: number
  ok: number
  httpErrors: number
  rpcErrors: number
  failed: number
  /** ok / sent (1 when nothing was sent). */
  success: number
  /** Successful requests per second. */
  rps: number
  p50: number
  p90: number
  p99: number
  max: number
  /** Mean answer size, bytes. */
  bodyBytes: number
}

export interface Summary extends Stats {
  /** Successful JSON-RPC calls per second (batch items counted). */
  callsPerSec: number
  /** Requests per second the job asked for (open loop), else undefined. */
  rate: number | undefined
  connections: number
  seconds: number
  tags: Record<string, Stats>
}

const CHILD = join(dirname(fileURLToPath(import.meta.url)), 'child.js')

function runChild(job: LoadJob, cpus: string | undefined): Promise<LoadResult> {
  const args = cpus === undefined ? [CHILD] : ['-c', cpus, process.execPath, CHILD]
  const child = spawn(cpus === undefined ? process.execPath : 'taskset', args, {
    stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
  })
  return new Promise((ok, fail) => {
    let answered = false
    child.once('message', (m: { ok: boolean; result?: LoadResult; error?: string }) => {
      answered = true
      if (m.ok) ok(m.result as LoadResult)
      else fail(new Error(`load generator: ${m.error}`))
    })
    child.once('exit', (code) => {
      if (!answered) fail(new Error(`load generator exited with ${code}`))
    })
    child.send(job)
  })
}

function statsOf(parts: TagResult[], seconds: number): Stats & { hist: Histogram } {
  const hist = new Histogram()
  let sent = 0
  let ok = 0
  let httpErrors = 0
  let rpcErrors = 0
  let failed = 0
  let bytes = 0
  for (const p of parts) {
    sent += p.sent
    ok += p.ok
    httpErrors += p.httpErrors
    rpcErrors += p.rpcErrors
    failed += p.failed
    bytes += p.bodyBytes
    hist.add(Histogram.fromSparse(p.latency, p.maxUs).counts, p.maxUs)
  }
  return {
    sent,
    ok,
    httpErrors,
    rpcErrors,
    failed,
    success: sent === 0 ? 1 : ok / sent,
    rps: ok / seconds,
    p50: hist.percentileMs(50),
    p90: hist.percentileMs(90),
    p99: hist.percentileMs(99),
    max: hist.maxUs / 1000,
    bodyBytes: hist.total === 0 ? 0 : bytes / hist.total,
    hist,
  }
}

/**
 * Nodes under test that are paused (SIGSTOP) while another one is measured, and resumed
 * (SIGCONT) right after: an idle peer's background work (timers, GC, database compaction) then
 * takes no CPU from the node being measured. On a 2-core box a single-threaded server loses more
 * to such neighbours than a multi-threaded one does, so without this the order and the set of
 * peers in a run would shape each node's figures.
 */
let quietNodes: (() => { url: string; pids: number[] }[]) | undefined
/** Measurements in progress per target URL (the traces scenario runs two at once on one node). */
const measuring = new Map<string, number>()

/** Registers the nodes to pause while another is measured (run.ts); undefined = none. */
export function pauseOthersWhileMeasuring(nodes: (() => { url: string; pids: number[] }[]) | undefined): void {
  quietNodes = nodes
}

function signalOthers(url: string, signal: 'SIGSTOP' | 'SIGCONT'): void {
  for (const node of quietNodes?.() ?? []) {
    if (node.url === url) continue
    for (const pid of node.pids) {
      try {
        process.kill(pid, signal)
      } catch {
        // exited (a node restarted for the write path): nothing to pause
      }
    }
  }
}

/** Runs `fn` (a measurement of the node at `url`) with every other registered node paused. */
export async function whileMeasuring<T>(url: string, fn: () => Promise<T>): Promise<T> {
  const running = measuring.get(url) ?? 0
  measuring.set(url, running + 1)
  if (running === 0) signalOthers(url, 'SIGSTOP')
  try {
    return await fn()
  } finally {
    const left = (measuring.get(url) ?? 1) - 1
    if (left === 0) {
      measuring.delete(url)
      signalOthers(url, 'SIGCONT')
    } else measuring.set(url, left)
  }
}

/** Runs `job` and returns the merged summary (other registered nodes paused meanwhile). */
export function generate(job: LoadJob, opts: GeneratorOptions = {}): Promise<Summary> {
  return whileMeasuring(job.url, () => generateNow(job, opts))
}

async function generateNow(job: LoadJob, opts: GeneratorOptions): Promise<Summary> {
  const n = Math.max(1, Math.min(opts.processes ?? 1, job.connections))
  const jobs: LoadJob[] = []
  for (let i = 0; i < n; i++) {
    const connections = Math.floor(job.connections / n) + (i < job.connections % n ? 1 : 0)
    jobs.push({
      ...job,
      connections,
      rate: job.rate === undefined ? undefined : (job.rate * connections) / job.connections,
      offset: (job.offset ?? 0) + Math.floor((i * job.requests.length) / n),
    })
  }
  const results = await Promise.all(jobs.map((j) => runChild(j, opts.cpus)))
  const seconds = job.durationMs / 1000
  const byTag = new Map<string, TagResult[]>()
  let calls = 0
  for (const r of results) {
    calls += r.calls
    for (const [tag, t] of Object.entries(r.tags)) {
      const list = byTag.get(tag) ?? []
      list.push(t)
      byTag.set(tag, list)
    }
  }
  const all = statsOf([...byTag.values()].flat(), seconds)
  const tags: Record<string, Stats> = {}
  for (const [tag, list] of byTag) {
    const { hist: _, ...s } = statsOf(list, seconds)
    tags[tag] = s
  }
  const { hist: _, ...overall } = all
  const callShare = all.sent === 0 ? 0 : calls / all.sent
  return {
    ...overall,
    callsPerSec: (all.ok * callShare) / seconds,
    rate: job.rate,
    connections: job.connections,
    seconds,
    tags,
  }
}

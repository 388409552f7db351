/**
 * One measured turn on a running network: an idle window (no transactions: what consensus alone
 * costs per block), then pre-signed transfers sent through eth_sendRawTransaction open loop at a
 * fixed rate (round-robin over the target nodes' connections; a send still queued SEND_LATE_MS
 * after its time is given up), a warm-up, and the measured window. A poller on the watched node
 * (the full node: what a user reads) stamps when each transfer first appears in a block.
 *
 *   idle ── idleSeconds ──▶ send at rate ── warmup ──▶ [window: seconds] ──▶ drain (≤ DRAIN_MS)
 *   CPU read   CPU read                      CPU read              CPU read
 *
 * Figures: transfers finalized per second = transfers in blocks the poller saw during the window
 * / window length; send→receipt latency of the transfers scheduled in the window (from their
 * scheduled send, so a backed-up node cannot hide its queue); CPU of every node (all threads and
 * the main thread, /proc utime+stime) over the window, per 1,000 transfers finalized in it.
 */
import { loadavg } from 'node:os'
import { performance } from 'node:perf_hooks'
import { Histogram } from '../load/histogram.js'
import { buildRequest, Http1Connection } from '../load/http1.js'
import { rpc } from '../rpc.js'
import type { SignedTx } from '../seed/sign.js'
import { type Cluster, type CpuReading, readCpu, treeRssMiB } from './cluster.js'

/** Connections the sender opens in all (shared out over the target nodes). */
export const SEND_CONNECTIONS = 32
/** A send still queued this long after its scheduled time is given up (counted as unsent). */
const SEND_LATE_MS = 5_000
/** After the window, how long to wait for the transfers scheduled in it to be included. */
const DRAIN_MS = 20_000
/** How often the poller asks the watched node for its head. */
const POLL_MS = 50

export interface TurnOptions {
  /** Transfers per second offered. */
  rate: number
  warmupSeconds: number
  seconds: number
  idleSeconds: number
  /** Indexes into cluster.nodes the transfers are sent to (round-robin). */
  targets: number[]
  /** Index into cluster.nodes of the node whose blocks are watched. */
  watch: number
  log: (line: string) => void
}

export interface NodeFigures {
  name: string
  role: string
  pid: number
  /** Process CPU (all threads) over the window, seconds. */
  cpuSeconds: number
  /** Main-thread CPU over the window, seconds. */
  mainSeconds: number
  /** cpuSeconds per 1,000 transfers finalized in the window. */
  cpuPer1k: number
  mainPer1k: number
  /** Process CPU over the idle window per block decided in it, milliseconds. */
  idleCpuMsPerBlock: number
  /** Process and main-thread CPU over the idle window, seconds per second (share of one core). */
  idleCpuPerSecond: number
  idleMainPerSecond: number
  /** Resident memory (process and descendants) at the end of the window, MiB. */
  rssMiB: number
}

export interface TurnFigures {
  label: string
  checkout: string
  loadBefore: number[]
  loadAfter: number[]
  idle: { seconds: number; blocks: number }
  offered: number
  sent: number
  accepted: number
  refused: number
  unsent: number
  refusals: Record<string, number>
  window: {
    seconds: number
    included: number
    transfersPerSecond: number
    blocks: number
    meanTxsPerBlock: number
    fullestBlock: number
  }
  /** Transfers scheduled in the window: how many were included by the end of the drain. */
  windowScheduled: number
  windowScheduledIncluded: number
  latencyMs: { p50: number; p90: number; p99: number; max: number }
  nodes: NodeFigures[]
  /** CPU of this (sender + poller) process over the window, seconds. */
  generatorCpuSeconds: number
}

const sleep = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms))

function readAll(cluster: Cluster): CpuReading[] {
  return cluster.nodes.map((n) => readCpu(n.proc?.pid ?? 0))
}

async function headOf(url: string): Promise<number> {
  return Number(BigInt(await rpc<string>(url, 'eth_blockNumber', [], 10_000)))
}

/** Runs the idle window, then the load; returns the turn's figures. */
export async function measureTurn(
  cluster: Cluster,
  txs: SignedTx[],
  o: TurnOptions,
  label: string,
  checkout: string,
): Promise<TurnFigures> {
  const watched = cluster.nodes[o.watch]?.url as string
  const loadBefore = loadavg()

  // idle: consensus alone
  const idleHead0 = await headOf(watched)
  const idle0 = readAll(cluster)
  const idleT0 = performance.now()
  await sleep(o.idleSeconds * 1000)
  const idle1 = readAll(cluster)
  const idleSeconds = (performance.now() - idleT0) / 1000
  const idleBlocks = (await headOf(watched)) - idleHead0

  // load
  const index = new Map<string, number>()
  const targets = o.targets.map((i) => new URL(cluster.nodes[i]?.url as string))
  const requests = txs.map((t, i) => {
    index.set(t.hash, i)
    const u = targets[i % targets.length] as URL
    const body = JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [t.raw] })
    return buildRequest(u.host, '/', body)
  })
  const idle: Http1Connection[][] = targets.map(() => [])
  const perTarget = Math.max(1, Math.floor(SEND_CONNECTIONS / targets.length))
  const conns: Http1Connection[] = []
  for (const [ti, u] of targets.entries()) {
    for (let k = 0; k < perTarget; k++) {
      const c = new Http1Connection(Number(u.port), u.hostname, () => undefined)
      c.keepBodies = true
      conns.push(c)
      idle[ti]?.push(c)
    }
  }
  await Promise.all(conns.map((c) => c.ready()))
  const dueAt = new Float64Array(txs.length)
  const includedAt = new Float64Array(txs.length)
  const queues: number[][] = targets.map(() => [])
  const heads = targets.map(() => 0)
  let sent = 0
  let accepted = 0
  let refused = 0
  let unsent = 0
  const refusals: Record<string, number> = {}
  const pump = (ti: number): void => {
    const q = queues[ti] as number[]
    const free = idle[ti] as Http1Connection[]
    while (free.length > 0 && (heads[ti] as number) < q.length) {
      const i = q[heads[ti]++] as number
      if (performance.now() - (dueAt[i] as number) > SEND_LATE_MS) {
        unsent++
        continue
      }
      const c = free.pop() as Http1Connection
      sent++
      c.send(
        requests[i] as Buffer,
        (a) => {
          if (a.status === 200 && a.rpcErrors === 0) accepted++
          else {
            refused++
            const why =
              a.status !== 200
                ? `HTTP ${a.status}`
                : (/"message":"([^"]*)"/.exec(a.body?.toString() ?? '')?.[1] ?? 'error')
            refusals[why] = (refusals[why] ?? 0) + 1
          }
          free.push(c)
          pump(ti)
        },
        () => undefined,
      )
    }
  }

  const t0 = performance.now()
  const windowStart = t0 + o.warmupSeconds * 1000
  const windowEnd = windowStart + o.seconds * 1000
  const count = Math.min(txs.length, Math.round(o.rate * (o.warmupSeconds + o.seconds)))
  let issued = 0
  const ticker = setInterval(() => {
    const due = Math.min(count, Math.floor(((performance.now() - t0) * o.rate) / 1000))
    while (issued < due) {
      dueAt[issued] = t0 + (issued * 1000) / o.rate
      const ti = issued % targets.length
      queues[ti]?.push(issued++)
    }
    for (let ti = 0; ti < targets.length; ti++) pump(ti)
  }, 1)

  let cpuA: CpuReading[] = []
  let cpuB: CpuReading[] = []
  let genA = process.cpuUsage()
  let genB = genA
  let rss: number[] = []
  const timerA = setTimeout(() => {
    cpuA = readAll(cluster)
    genA = process.cpuUsage()
  }, windowStart - performance.now())
  const timerB = setTimeout(() => {
    cpuB = readAll(cluster)
    genB = process.cpuUsage(genA)
    rss = cluster.nodes.map((n) => treeRssMiB(n.proc?.pid ?? 0))
  }, windowEnd - performance.now())

  // the poller
  let last = await headOf(watched)
  let windowIncluded = 0
  let windowBlocks = 0
  let fullest = 0
  let includedTotal = 0
  const scheduledInWindow = (i: number): boolean =>
    (dueAt[i] as number) >= windowStart && (dueAt[i] as number) < windowEnd
  const firstInWindow = Math.ceil(((windowStart - t0) * o.rate) / 1000)
  const lastInWindow = Math.min(count, Math.ceil(((windowEnd - t0) * o.rate) / 1000)) - 1
  const windowScheduled = Math.max(0, lastInWindow - firstInWindow + 1)
  let windowScheduledIncluded = 0
  while (performance.now() < windowEnd + DRAIN_MS) {
    await sleep(POLL_MS)
    if (performance.now() > windowEnd + 1_000 && windowScheduledIncluded >= windowScheduled) break
    let head: number
    try {
      head = await headOf(watched)
    } catch {
      continue
    }
    for (let n = last + 1; n <= head; n++) {
      const block = await rpc<{ transactions: string[] } | null>(
        watched,
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, false],
        30_000,
      )
      const now = performance.now()
      let mine = 0
      for (const h of block?.transactions ?? []) {
        const i = index.get(h.toLowerCase())
        if (i === undefined || includedAt[i] !== 0) continue
        includedAt[i] = now
        mine++
        if (scheduledInWindow(i)) windowScheduledIncluded++
      }
      includedTotal += mine
      if (now >= windowStart && now < windowEnd) {
        windowIncluded += mine
        windowBlocks++
        if (mine > fullest) fullest = mine
      }
    }
    last = head
  }
  clearInterval(ticker)
  clearTimeout(timerA)
  clearTimeout(timerB)
  for (const c of conns) c.close()
  if (cpuB.length === 0) throw new Error('the measured window did not end (drain shorter than the window?)')
  const loadAfter = loadavg()

  const latency = new Histogram()
  for (let i = firstInWindow; i <= lastInWindow; i++)
    if (includedAt[i] !== 0) latency.record(((includedAt[i] as number) - (dueAt[i] as number)) * 1000)
  const nodes = cluster.nodes.map((n, k): NodeFigures => {
    const a = cpuA[k] as CpuReading
    const b = cpuB[k] as CpuReading
    const cpuSeconds = b.process - a.process
    const mainSeconds = b.main - a.main
    const per = windowIncluded > 0 ? 1000 / windowIncluded : Number.NaN
    const idleCpu = (idle1[k] as CpuReading).process - (idle0[k] as CpuReading).process
    const idleMain = (idle1[k] as CpuReading).main - (idle0[k] as CpuReading).main
    return {
      name: n.name,
      role: n.role,
      pid: n.proc?.pid ?? 0,
      cpuSeconds,
      mainSeconds,
      cpuPer1k: cpuSeconds * per,
      mainPer1k: mainSeconds * per,
      idleCpuMsPerBlock: idleBlocks > 0 ? (idleCpu * 1000) / idleBlocks : Number.NaN,
      idleCpuPerSecond: idleCpu / idleSeconds,
      idleMainPerSecond: idleMain / idleSeconds,
      rssMiB: rss[k] ?? 0,
    }
  })
  o.log(
    `  ${label}: ${Math.round(windowIncluded / o.seconds)} transfers/s finalized over ${o.seconds} s (${windowIncluded} in ${windowBlocks} blocks, fullest ${fullest}), p50 ${latency.percentileMs(50).toFixed(0)} ms p99 ${latency.percentileMs(99).toFixed(0)} ms; sent ${sent}, refused ${refused}, unsent ${unsent}, included ${includedTotal}`,
  )
  return {
    label,
    checkout,
    loadBefore,
    loadAfter,
    idle: { seconds: idleSeconds, blocks: idleBlocks },
    offered: count,
    sent,
    accepted,
    refused,
    unsent,
    refusals,
    window: {
      seconds: o.seconds,
      included: windowIncluded,
      transfersPerSecond: windowIncluded / o.seconds,
      blocks: windowBlocks,
      meanTxsPerBlock: windowBlocks > 0 ? windowIncluded / windowBlocks : 0,
      fullestBlock: fullest,
    },
    windowScheduled,
    windowScheduledIncluded,
    latencyMs: {
      p50: latency.percentileMs(50),
      p90: latency.percentileMs(90),
      p99: latency.percentileMs(99),
      max: latency.maxUs / 1000,
    },
    nodes,
    generatorCpuSeconds: (genB.user + genB.system) / 1e6,
  }
}

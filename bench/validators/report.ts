/**
 * The validators benchmark's report: per turn the throughput, latency and refusals, a CPU table
 * per node, and a projection to the target hardware and to more validators, with the assumptions
 * it rests on written beside the figures.
 */
import type { NodeFigures, TurnFigures } from './drive.js'

/** The target machine a node runs on (issue 22): cores and memory. */
export const TARGET_CORES = 4
export const TARGET_MEMORY_MIB = 8 * 1024
/** Validator counts the projection is written for. */
export const PROJECTED_VALIDATORS = [4, 7, 10, 21]

export interface ReportInput {
  started: Date
  command: string
  commits: Record<string, string>
  box: { cores: number; model: string; memoryMiB: number }
  options: Record<string, unknown>
  turns: TurnFigures[]
}

const f0 = (n: number): string => (Number.isFinite(n) ? Math.round(n).toLocaleString('en-US') : '–')
const f1 = (n: number): string => (Number.isFinite(n) ? n.toFixed(1) : '–')
const f2 = (n: number): string => (Number.isFinite(n) ? n.toFixed(2) : '–')
const f3 = (n: number): string => (Number.isFinite(n) ? n.toFixed(3) : '–')
const loads = (l: number[]): string => l.map((x) => x.toFixed(2)).join(' / ')

/** Marginal CPU of one transfer on a node: the window's CPU less what the idle network used over as long, seconds. */
export function marginalPerTransfer(n: NodeFigures, t: TurnFigures): { process: number; main: number } {
  const included = t.window.included
  if (included === 0) return { process: Number.NaN, main: Number.NaN }
  const s = t.window.seconds
  return {
    process: Math.max(0, n.cpuSeconds - n.idleCpuPerSecond * s) / included,
    main: Math.max(0, n.mainSeconds - n.idleMainPerSecond * s) / included,
  }
}

export interface Projection {
  validators: number
  /** Transfers/s one validator on the target machine could finalize: its busier limit. */
  ceiling: number
  /** Which limit binds: the main thread (one core) or all cores. */
  bound: 'main thread' | `${number} cores`
}

/**
 * Projects the busiest validator of a turn to TARGET_CORES and to `counts` validators:
 *   main-thread ceiling = (1 − idle main share · N/4) / marginal main CPU per transfer
 *   process ceiling     = (TARGET_CORES − idle process share · N/4) / marginal process CPU per transfer
 * (idle consensus work assumed to grow linearly with the number of validators: each one checks
 * every other's PREPARE and COMMIT, and a block carries a quorum of seals).
 */
export function project(t: TurnFigures, counts: number[] = PROJECTED_VALIDATORS): Projection[] {
  const validators = t.nodes.filter((n) => n.role === 'validator')
  const measuredN = validators.length
  return counts.map((N) => {
    let worst: Projection = { validators: N, ceiling: Number.POSITIVE_INFINITY, bound: 'main thread' }
    for (const v of validators) {
      const m = marginalPerTransfer(v, t)
      const scale = N / measuredN
      const mainCeil = (1 - v.idleMainPerSecond * scale) / m.main
      const procCeil = (TARGET_CORES - v.idleCpuPerSecond * scale) / m.process
      const p: Projection =
        mainCeil <= procCeil
          ? { validators: N, ceiling: mainCeil, bound: 'main thread' }
          : { validators: N, ceiling: procCeil, bound: `${TARGET_CORES} cores` }
      if (p.ceiling < worst.ceiling) worst = p
    }
    return worst
  })
}

function turnTable(turns: TurnFigures[]): string[] {
  const out = [
    '| turn | transfers/s finalized | p50 ms | p90 ms | p99 ms | max ms | in window (blocks, mean / fullest) | window-scheduled included | sent / refused / unsent | load avg before → after |',
    '|---|---:|---:|---:|---:|---:|---|---:|---|---|',
  ]
  for (const t of turns) {
    out.push(
      `| ${t.label} | **${f0(t.window.transfersPerSecond)}** | ${f0(t.latencyMs.p50)} | ${f0(t.latencyMs.p90)} | ${f0(t.latencyMs.p99)} | ${f0(t.latencyMs.max)} | ${f0(t.window.included)} (${t.window.blocks}, ${f0(t.window.meanTxsPerBlock)} / ${f0(t.window.fullestBlock)}) | ${f0(t.windowScheduledIncluded)} / ${f0(t.windowScheduled)} | ${f0(t.sent)} / ${f0(t.refused)} / ${f0(t.unsent)} | ${loads(t.loadBefore)} → ${loads(t.loadAfter)} |`,
    )
  }
  return out
}

function cpuTable(t: TurnFigures): string[] {
  const out = [
    `**${t.label}** — CPU over the ${t.window.seconds} s window (${f0(t.window.included)} transfers); idle: ${t.idle.blocks} empty blocks in ${f1(t.idle.seconds)} s`,
    '',
    '| node | pid | CPU s (all threads) | of which main thread | % of one core | CPU s per 1k transfers | main thread s per 1k | marginal CPU s per 1k (less idle) | idle CPU ms per block | RSS MiB |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
  ]
  let sum = 0
  for (const n of t.nodes) {
    const m = marginalPerTransfer(n, t)
    sum += n.cpuSeconds
    out.push(
      `| ${n.name} | ${n.pid} | ${f2(n.cpuSeconds)} | ${f2(n.mainSeconds)} | ${f0((100 * n.cpuSeconds) / t.window.seconds)}% | ${f3(n.cpuPer1k)} | ${f3(n.mainPer1k)} | ${f3(m.process * 1000)} | ${f1(n.idleCpuMsPerBlock)} | ${f0(n.rssMiB)} |`,
    )
  }
  out.push(
    `| all nodes | | ${f2(sum)} | | ${f0((100 * sum) / t.window.seconds)}% | ${f3(t.window.included > 0 ? (sum * 1000) / t.window.included : Number.NaN)} | | | | |`,
  )
  out.push(
    `| sender + poller (this process) | ${process.pid} | ${f2(t.generatorCpuSeconds)} | | ${f0((100 * t.generatorCpuSeconds) / t.window.seconds)}% | | | | | |`,
  )
  return out
}

function projectionSection(turns: TurnFigures[]): string[] {
  const out: string[] = ['## Projection', '']
  for (const t of turns) {
    const p = project(t)
    const rssMax = Math.max(...t.nodes.map((n) => n.rssMiB))
    out.push(
      `**${t.label}**: one validator per ${TARGET_CORES}-core / ${TARGET_MEMORY_MIB / 1024} GB machine could finalize about ` +
        p.map((x) => `**${f0(x.ceiling)}** transfers/s with ${x.validators} validators (${x.bound} bound)`).join(', ') +
        `; its largest RSS here was ${f0(rssMax)} MiB of the ${f0(TARGET_MEMORY_MIB)} MiB.`,
      '',
    )
  }
  out.push(
    "How: for each validator, its marginal CPU per transfer = (window CPU − idle CPU per second × window) / transfers finalized, for the process (all threads) and for its main thread. On the target a validator is limited by its main thread (one core: block building or verification, commits, pool admission, RPC and gossip are all on it) and by all its cores (recovery and call workers, libuv, GC threads); the projection is the busiest validator's lower ceiling: min((1 − idle main share) / main CPU per transfer, (4 − idle CPU share) / CPU per transfer).",
    '',
    'Assumptions, each of which can move the figure:',
    '',
    "- One node per machine, each with the target's 4 cores at the speed of this box's cores. Here five nodes, the sender and other engineers' work share 2 cores, so a node's CPU per transfer includes the cost of being descheduled (cache, context switches); on a machine of its own it would be a little lower.",
    '- CPU per transfer stays constant up to the ceiling (no batching gain or loss as blocks fill, no GC growth with a larger pool). Blocks of a few hundred transfers were measured; ceilings of thousands per second mean blocks ten times fuller.',
    "- Idle consensus work (PREPARE/COMMIT checks, seals, timers, gossip heartbeats) grows linearly with the validator count (each validator checks every other's messages; a block carries a quorum of committed seals); per-transfer work does not (every validator admits each transfer once from gossip and executes each block once). gossipsub delivers a message from up to its mesh degree of peers, so duplicate receipts grow with N up to the mesh size and then stop: not modelled.",
    '- Loopback network: no latency or bandwidth limit. On a LAN each round adds three message delays (PRE-PREPARE, PREPARE, COMMIT: ~1–3 ms); across regions, tens of ms per block — latency, not throughput, at these block times.',
    '- The ceiling is where the busiest validator runs out of its main thread; latency near it grows with the queue (the p99 here is at the offered rate, not at the ceiling).',
  )
  return out
}

export function renderReport(r: ReportInput): string {
  const lines = [
    `# Several validators: finalized transfers on 4 validators + 1 full node — ${r.started.toISOString().slice(0, 16)}Z`,
    '',
    '```',
    r.command,
    '```',
    '',
    `Box: ${r.box.cores} cores (${r.box.model}), ${f0(r.box.memoryMiB)} MiB. Commits: ${Object.entries(r.commits)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
    '',
    `Options: ${Object.entries(r.options)
      .map(([k, v]) => `${k} ${Array.isArray(v) ? v.join(' ') : String(v)}`)
      .join(', ')}.`,
    '',
    'Every turn is a fresh network (`ibex genesis`, then 5 × `ibex start`), the same pre-signed transfers. Transfers/s = transfers in blocks the full node showed during the window / window; latency = scheduled send → the full node showing it in a block (50 ms polling), for the transfers scheduled in the window.',
    '',
    ...turnTable(r.turns),
    '',
  ]
  for (const t of r.turns) {
    if (Object.keys(t.refusals).length > 0)
      lines.push(
        `${t.label} refusals: ${Object.entries(t.refusals)
          .map(([m, n]) => `${n}× "${m}"`)
          .join(', ')}`,
        '',
      )
  }
  lines.push('## CPU per node', '')
  for (const t of r.turns) lines.push(...cpuTable(t), '')
  lines.push(...projectionSection(r.turns), '')
  return lines.join('\n')
}

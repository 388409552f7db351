/**
 * The run's report: `bench/results/<date>.md` (summary table, then one table per scenario with
 * its chart), `<date>.json` (everything measured) and `<date>-<scenario>.png`.
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Row, ScenarioResult } from '../scenarios/types.js'
import { COMPARE_METHODS } from '../scenarios/compare.js'
import { writeScenarioPng } from './charts.js'

export interface RunMeta {
  date: string
  startedAt: string
  minutes: number
  host: { cpus: number; model: string; memGiB: number; loadBefore: number[]; loadAfter: number[]; node: string }
  pinning: string
  versions: Record<string, string>
  seed: Record<string, number | string>
  options: Record<string, unknown>
  command: string
  errors: string[]
}

export interface Report {
  meta: RunMeta
  scenarios: ScenarioResult[]
  memory: Record<string, Record<string, number>>
}

const NODE_ORDER = ['ibex', 'ibex@base', 'anvil', 'ganache', 'hardhat', 'node:http']

function n0(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '–'
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2)
}

function ms(x: number | undefined): string {
  if (x === undefined || !Number.isFinite(x)) return '–'
  return x >= 100 ? Math.round(x).toLocaleString('en-US') : x >= 10 ? x.toFixed(1) : x.toFixed(2)
}

function nodesOf(rows: Row[]): string[] {
  const present = new Set(rows.map((r) => r.node))
  return NODE_ORDER.filter((n) => present.has(n))
}

function find(s: ScenarioResult | undefined, node: string, pred: (label: string) => boolean): Row | undefined {
  return s?.rows.find((r) => r.node === node && pred(r.label))
}

/** The headline table: one line per figure, one column per node. */
export function summaryTable(report: Report): string {
  const by = new Map(report.scenarios.map((s) => [s.name, s]))
  const allNodes = NODE_ORDER.filter((n) => report.scenarios.some((s) => s.rows.some((r) => r.node === n)))
  const lines: [string, (node: string) => string][] = []
  const compare = by.get('compare')
  if (compare !== undefined) {
    for (const m of COMPARE_METHODS) {
      lines.push([
        `${m}, req/s (p99 ms)`,
        (node) => {
          const r = find(compare, node, (l) => l.startsWith(`${m} ×`))
          return r === undefined ? '' : `${n0(r.rps)} (${ms(r.p99)})`
        },
      ])
    }
  }
  const framing = by.get('framing')
  if (framing !== undefined) {
    lines.push([
      'eth_blockNumber ×1000 conns, req/s',
      (node) => n0(find(framing, node, (l) => l === 'eth_blockNumber ×1000')?.rps),
    ])
  }
  const mix = by.get('readmix')
  if (mix !== undefined)
    lines.push(['read mix: max rate held, req/s', (node) => n0(find(mix, node, (l) => l === 'max rate held')?.rps)])
  const batch = by.get('batch')
  if (batch !== undefined)
    lines.push(['batch of 100: calls/s', (node) => n0(find(batch, node, (l) => l === 'batch 100')?.callsPerSec)])
  const logs = by.get('logs')
  if (logs !== undefined) {
    lines.push([
      'eth_getLogs 10k blocks (all Transfers): median ms',
      (node) => ms(find(logs, node, (l) => l === '10000 blocks')?.p50),
    ])
    lines.push([
      'eth_getLogs 10k blocks (one recipient): median ms',
      (node) => ms(find(logs, node, (l) => l.endsWith('one recipient'))?.p50),
    ])
  }
  const traces = by.get('traces')
  if (traces !== undefined) {
    lines.push([
      'read-mix p99 alone → beside traces, ms',
      (node) => {
        const a = find(traces, node, (l) => l.endsWith('alone'))
        const b = find(traces, node, (l) => l.endsWith('+ traces'))
        return a === undefined || b === undefined ? '' : `${ms(a.p99)} → ${ms(b.p99)}`
      },
    ])
  }
  const heavy = by.get('heavy')
  if (heavy !== undefined) {
    lines.push([
      'eth_blockNumber p50 / p99 / max beside 8 heavy clients, ms',
      (node) => {
        const r = find(heavy, node, (l) => l.startsWith('eth_blockNumber beside'))
        return r === undefined ? '' : `${ms(r.p50)} / ${ms(r.p99)} / ${r.extra?.maxMs ?? ''}`
      },
    ])
  }
  const writes = by.get('writes')
  if (writes !== undefined) {
    lines.push(['transfers finalized/s (1 s blocks)', (node) => n0(find(writes, node, () => true)?.rps)])
    lines.push([
      'send → receipt p50 / p99, ms',
      (node) => {
        const r = find(writes, node, () => true)
        return r === undefined ? '' : `${ms(r.p50)} / ${ms(r.p99)}`
      },
    ])
  }
  const mem = report.memory
  if (Object.keys(mem).length > 0) {
    lines.push([
      'RSS idle / read-mix peak / after soak, MiB',
      (node) => {
        const m = mem[node]
        if (m === undefined) return ''
        return `${n0(m.idle)} / ${n0(m.readMixPeak)} / ${n0(m.afterSoak)}`
      },
    ])
  }
  const head = `| | ${allNodes.join(' | ')} |\n|---|${allNodes.map(() => '---:').join('|')}|`
  const body = lines.map(([label, cell]) => `| ${label} | ${allNodes.map((n) => cell(n) || '–').join(' | ')} |`)
  return [head, ...body].join('\n')
}

function scenarioTable(s: ScenarioResult): string {
  const nodes = nodesOf(s.rows)
  const labels = [...new Set(s.rows.map((r) => r.label))]
  const head = `| ${s.unit} (p50 / p99 ms) | ${nodes.join(' | ')} |\n|---|${nodes.map(() => '---:').join('|')}|`
  const body = labels.map((label) => {
    const cells = nodes.map((node) => {
      const r = s.rows.find((x) => x.node === node && x.label === label)
      if (r === undefined) return '–'
      let cell = n0(r.rps)
      if (Number.isFinite(r.p50)) cell += ` (${ms(r.p50)} / ${ms(r.p99)})`
      if (r.success < 1 || r.errors > 0) cell += ` ${(r.success * 100).toFixed(r.success > 0.99 ? 2 : 0)}% ok`
      if (r.callsPerSec !== undefined && label.startsWith('batch')) cell += `, ${n0(r.callsPerSec)} calls/s`
      if (r.extra !== undefined && s.name !== 'readmix') {
        const keys = Object.entries(r.extra).filter(([k]) => k !== 'held')
        if (keys.length > 0)
          cell += `<br>${keys.map(([k, v]) => `${k} ${typeof v === 'number' ? n0(v) : v}`).join(', ')}`
      }
      if (r.extra?.held === 'no') cell += ' ✗'
      return cell
    })
    return `| ${label} | ${cells.join(' | ')} |`
  })
  return [head, ...body].join('\n')
}

export function renderMarkdown(report: Report, pngs: Map<string, string>): string {
  const m = report.meta
  const out: string[] = []
  out.push(`# ibex side-by-side benchmark — ${m.date}`)
  out.push('')
  out.push(
    `\`${m.command}\` · ${m.minutes.toFixed(1)} min · ${m.host.cpus} cores (${m.host.model}), ${m.host.memGiB} GiB · Node ${m.host.node}`,
  )
  out.push(
    `load average before ${m.host.loadBefore.map((x) => x.toFixed(2)).join(' ')}, after ${m.host.loadAfter.map((x) => x.toFixed(2)).join(' ')} · pinning: ${m.pinning}`,
  )
  out.push('')
  out.push(
    `Nodes: ${Object.entries(m.versions)
      .map(([k, v]) => `${k} = ${v}`)
      .join('; ')}.`,
  )
  out.push(
    `Seeded state (same signed transactions on every node): ${Object.entries(m.seed)
      .map(([k, v]) => `${k} ${v}`)
      .join(', ')}.`,
  )
  out.push('')
  out.push('The machine is shared: compare nodes within this run, not with other runs.')
  out.push('')
  out.push('## Summary')
  out.push('')
  out.push(summaryTable(report))
  const notes = report.scenarios.filter((s) => s.name === 'compare').flatMap((s) => s.notes)
  if (notes.length > 0) {
    out.push('')
    for (const n of notes) out.push(`- ${n}`)
  }
  if (m.errors.length > 0) {
    out.push('')
    out.push('**Errors during the run:**')
    for (const e of m.errors) out.push(`- ${e}`)
  }
  for (const s of report.scenarios) {
    out.push('')
    out.push(`## ${s.title}`)
    out.push('')
    out.push(scenarioTable(s))
    if (s.notes.length > 0) {
      out.push('')
      for (const n of s.notes) out.push(`- ${n}`)
    }
    const png = pngs.get(s.name)
    if (png !== undefined) {
      out.push('')
      out.push(`![${s.name}](${png})`)
    }
  }
  out.push('')
  out.push(`Options: \`${JSON.stringify(m.options)}\``)
  out.push('')
  return out.join('\n')
}

/** Writes the report files; returns the markdown path. */
export function writeReport(dir: string, report: Report): string {
  mkdirSync(dir, { recursive: true })
  const stem = report.meta.date
  const pngs = new Map<string, string>()
  for (const s of report.scenarios) {
    const name = `${stem}-${s.name}.png`
    if (writeScenarioPng(s, join(dir, name))) pngs.set(s.name, name)
  }
  writeFileSync(join(dir, `${stem}.json`), `${JSON.stringify(report, null, 2)}\n`)
  const md = join(dir, `${stem}.md`)
  writeFileSync(md, renderMarkdown(report, pngs))
  return md
}

/**
 * Charts of a scenario as PNG (SVG drawn here, rasterised by @resvg/resvg-js): left, throughput
 * per point and node (grouped horizontal bars); right, p50 and p99 latency (p50 the light bar,
 * p99 the dark one, log scale).
 */
import { writeFileSync } from 'node:fs'
import { Resvg } from '@resvg/resvg-js'
import type { Row, ScenarioResult } from '../scenarios/types.js'

const COLORS: Record<string, [string, string]> = {
  ibex: ['#f4a261', '#c8553d'],
  'ibex@base': ['#f6d5b8', '#a98467'],
  anvil: ['#8ecae6', '#219ebc'],
  ganache: ['#b5e48c', '#52b69a'],
  hardhat: ['#cdb4db', '#7b2cbf'],
  'node:http': ['#d9d9d9', '#6c757d'],
}
const BAR_H = 12
const GROUP_GAP = 14
const LABEL_W = 230
const PANEL_W = 380
const TOP = 46

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')
}

function fmt(n: number): string {
  if (!Number.isFinite(n)) return '–'
  if (n >= 1000) return `${(n / 1000).toFixed(n >= 10_000 ? 0 : 1)}k`
  return n >= 10 ? n.toFixed(0) : n.toFixed(n >= 1 ? 1 : 2)
}

/** Rows that chart: skip summary rows without latency. */
function chartable(rows: Row[]): Row[] {
  return rows.filter((r) => Number.isFinite(r.rps))
}

export function scenarioSvg(result: ScenarioResult): string {
  const rows = chartable(result.rows)
  const labels = [...new Set(rows.map((r) => r.label))]
  const nodes = [...new Set(rows.map((r) => r.node))]
  const groupH = nodes.length * BAR_H + GROUP_GAP
  const height = TOP + labels.length * groupH + 40
  const width = LABEL_W + PANEL_W * 2 + 60
  const maxRps = Math.max(1, ...rows.map((r) => r.rps))
  const lats = rows.flatMap((r) => [r.p50, r.p99]).filter((x) => Number.isFinite(x) && x > 0)
  const latMin = Math.max(0.01, Math.min(...lats, 1))
  const latMax = Math.max(...lats, 10)
  const latX = (ms: number): number =>
    ((Math.log10(Math.max(ms, latMin)) - Math.log10(latMin)) / (Math.log10(latMax) - Math.log10(latMin))) *
    (PANEL_W - 50)
  const out: string[] = []
  out.push(
    `<svg xmlns="http://www.w3.org/2000/svg" width="${width}" height="${height}" font-family="DejaVu Sans, Arial, sans-serif" font-size="11">`,
  )
  out.push(`<rect width="100%" height="100%" fill="white"/>`)
  out.push(`<text x="10" y="18" font-size="14" font-weight="bold">${esc(result.title)}</text>`)
  out.push(`<text x="${LABEL_W}" y="38" fill="#333">${esc(result.unit)} (higher is better)</text>`)
  out.push(
    `<text x="${LABEL_W + PANEL_W + 30}" y="38" fill="#333">latency ms, log scale: p50 light, p99 dark (lower is better)</text>`,
  )
  labels.forEach((label, g) => {
    const y0 = TOP + g * groupH
    out.push(
      `<text x="${LABEL_W - 8}" y="${y0 + (nodes.length * BAR_H) / 2 + 4}" text-anchor="end">${esc(label)}</text>`,
    )
    nodes.forEach((node, k) => {
      const r = rows.find((x) => x.label === label && x.node === node)
      if (r === undefined) return
      const [light, dark] = COLORS[node] ?? ['#ccc', '#666']
      const y = y0 + k * BAR_H
      const w = (r.rps / maxRps) * (PANEL_W - 60)
      out.push(`<rect x="${LABEL_W}" y="${y}" width="${Math.max(1, w)}" height="${BAR_H - 2}" fill="${dark}"/>`)
      out.push(`<text x="${LABEL_W + w + 4}" y="${y + BAR_H - 3}" font-size="9">${esc(`${node} ${fmt(r.rps)}`)}</text>`)
      const lx = LABEL_W + PANEL_W + 30
      if (Number.isFinite(r.p99) && r.p99 > 0)
        out.push(`<rect x="${lx}" y="${y}" width="${Math.max(1, latX(r.p99))}" height="${BAR_H - 2}" fill="${dark}"/>`)
      if (Number.isFinite(r.p50) && r.p50 > 0)
        out.push(
          `<rect x="${lx}" y="${y + 2}" width="${Math.max(1, latX(r.p50))}" height="${BAR_H - 6}" fill="${light}"/>`,
        )
      if (Number.isFinite(r.p99))
        out.push(
          `<text x="${lx + latX(r.p99) + 4}" y="${y + BAR_H - 3}" font-size="9">${esc(`${fmt(r.p50)} / ${fmt(r.p99)}`)}</text>`,
        )
    })
  })
  const ly = height - 16
  nodes.forEach((node, k) => {
    const [, dark] = COLORS[node] ?? ['#ccc', '#666']
    out.push(
      `<rect x="${LABEL_W + k * 110}" y="${ly - 9}" width="10" height="10" fill="${dark}"/><text x="${LABEL_W + k * 110 + 14}" y="${ly}">${esc(node)}</text>`,
    )
  })
  out.push('</svg>')
  return out.join('\n')
}

/** Writes `<file>` (PNG) for a scenario; returns false when resvg could not render it. */
export function writeScenarioPng(result: ScenarioResult, file: string): boolean {
  try {
    const png = new Resvg(scenarioSvg(result), {
      background: 'white',
      font: { loadSystemFonts: true, defaultFontFamily: 'DejaVu Sans' },
    })
      .render()
      .asPng()
    writeFileSync(file, png)
    return true
  } catch {
    return false
  }
}

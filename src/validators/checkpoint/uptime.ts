/**
 * Uptime and health of validators from the base chain's events alone (VALIDATORS.md "Uptime"):
 *
 *   window     the last `uptime_window` checkpoints (Polygon: 700)
 *   of(v)      checkpoints of the window v could sign: the contract's set when each was submitted
 *              named v (set of checkpoint c = the ValidatorSetUpdated with the largest id < c; a
 *              set carried by checkpoint c signs from c + 10000 on, the constructor's is id 0)
 *   signed(v)  checkpoints of the window whose CheckpointSigners lists v
 *   uptime(v)  signed / of (1 when of = 0: nothing to sign yet)
 *
 * Health follows Polygon's performance rule (PIP-4, kept at 95% by PIP-9): the benchmark is 95%
 * of the median uptime of the current signers; a validator below it in the current window is in
 * "grace period"; still below in the window before (the 2nd consecutive window) it has a
 * "notice of deficiency"; below in three consecutive windows, a "final notice" (Polygon: forced
 * unstaking follows). Each earlier window is judged against its own median. Windows are whole
 * blocks of `uptime_window` checkpoints counted back from the latest, so a validator's state is a
 * function of the events and the same on every node; an earlier window only counts when the node
 * holds events for all of it.
 *
 * When the events do not reach back to the constructor's set (a long history still being read),
 * the set before the first change read is not known: checkpoints before it are taken as signable
 * by the current signers.
 */
import { bytesToHex } from '@ethereumjs/util'

/** PERFORMANCE_BENCHMARK_PERCENT: Polygon's benchmark, 95% of the median (PIP-4, PIP-9). */
export const PERFORMANCE_BENCHMARK_PERCENT = 95n
/** Fixed-point scale of uptime ratios (parts per million). */
export const UPTIME_SCALE = 1_000_000n
/** Windows looked back for the health rule. */
export const HEALTH_WINDOWS = 3

export type Health = 'healthy' | 'grace period' | 'notice of deficiency' | 'final notice'
const HEALTH_BY_WINDOWS: readonly Health[] = ['healthy', 'grace period', 'notice of deficiency', 'final notice']

/** A validator set carried by checkpoint `id` (0 = the constructor's). */
export interface SetChange {
  id: bigint
  signers: Uint8Array[]
  powers: bigint[]
}

export interface UptimeInput {
  /** Checkpoints with their signers, ascending by id, contiguous up to the latest. */
  checkpoints: readonly { id: bigint; signers: readonly Uint8Array[] }[]
  /** Set changes ascending by id. */
  sets: readonly SetChange[]
  /** `sets` starts at the constructor's (id 0). */
  setsComplete: boolean
  /** The contract's current signers: whose uptime is reported. */
  current: readonly Uint8Array[]
  window: number
}

export interface ValidatorUptime {
  signer: Uint8Array
  signed: number
  of: number
  /** signed / of in parts per million (UPTIME_SCALE); 1,000,000 when of = 0. */
  uptimePpm: bigint
  health: Health
}

export interface UptimeReport {
  /** Id of the latest checkpoint counted (0: none). */
  latest: bigint
  /** Checkpoints in the current window. */
  checkpoints: number
  /** Median uptime of the current signers (ppm) and the benchmark (95% of it). */
  medianPpm: bigint
  benchmarkPpm: bigint
  validators: ValidatorUptime[]
}

function median(values: bigint[]): bigint {
  if (values.length === 0) return UPTIME_SCALE
  const sorted = [...values].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  const mid = Math.floor(sorted.length / 2)
  return sorted.length % 2 === 1 ? (sorted[mid] as bigint) : ((sorted[mid - 1] as bigint) + (sorted[mid] as bigint)) / 2n
}

/** The signers (hex) that could sign checkpoint `id`. */
function eligibleAt(input: UptimeInput, id: bigint): Set<string> {
  let set: SetChange | undefined
  for (const s of input.sets) {
    if (s.id < id) set = s
    else break
  }
  const signers = set === undefined ? input.current : set.signers
  return new Set(signers.map((s) => bytesToHex(s)))
}

interface WindowResult {
  perSigner: Map<string, { signed: number; of: number; ppm: bigint }>
  benchmark: bigint
  median: bigint
}

function judge(input: UptimeInput, window: readonly { id: bigint; signers: readonly Uint8Array[] }[]): WindowResult {
  const perSigner = new Map<string, { signed: number; of: number; ppm: bigint }>()
  for (const s of input.current) perSigner.set(bytesToHex(s), { signed: 0, of: 0, ppm: UPTIME_SCALE })
  for (const c of window) {
    const eligible = eligibleAt(input, c.id)
    const signed = new Set<string>(c.signers.map((s) => bytesToHex(s)))
    for (const [hex, u] of perSigner) {
      if (!eligible.has(hex)) continue
      u.of++
      if (signed.has(hex)) u.signed++
    }
  }
  for (const u of perSigner.values()) u.ppm = u.of === 0 ? UPTIME_SCALE : (BigInt(u.signed) * UPTIME_SCALE) / BigInt(u.of)
  const med = median([...perSigner.values()].filter((u) => u.of > 0).map((u) => u.ppm))
  return { perSigner, median: med, benchmark: (med * PERFORMANCE_BENCHMARK_PERCENT) / 100n }
}

/** computeUptime: the report of the module doc. */
export function computeUptime(input: UptimeInput): UptimeReport {
  const w = input.window
  const all = input.checkpoints
  const windows: (typeof all)[] = []
  for (let i = 0; i < HEALTH_WINDOWS; i++) {
    const end = all.length - i * w
    if (end <= 0 || (i > 0 && end - w < 0)) break
    windows.push(all.slice(Math.max(0, end - w), end))
  }
  const results = windows.map((win) => judge(input, win))
  const current = results[0] ?? judge(input, [])
  const validators = input.current.map((signer) => {
    const hex: string = bytesToHex(signer)
    const u = current.perSigner.get(hex) ?? { signed: 0, of: 0, ppm: UPTIME_SCALE }
    let below = 0
    for (const r of results) {
      const ur = r.perSigner.get(hex)
      if (ur === undefined || ur.of === 0 || ur.ppm >= r.benchmark) break
      below++
    }
    return { signer, signed: u.signed, of: u.of, uptimePpm: u.ppm, health: HEALTH_BY_WINDOWS[below] as Health }
  })
  return {
    latest: all.at(-1)?.id ?? 0n,
    checkpoints: windows[0]?.length ?? 0,
    medianPpm: current.median,
    benchmarkPpm: current.benchmark,
    validators,
  }
}

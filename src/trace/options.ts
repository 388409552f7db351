/**
 * Tracer options of the debug_trace* methods, decoded as geth decodes its TraceConfig
 * (eth/tracers/api.go): the struct logger's switches sit at the top level, `tracer` picks a
 * native tracer, `tracerConfig` is that tracer's own object, `timeout` is a Go duration string.
 * Go's JSON decoding matches field names case-insensitively and ignores unknown fields; so does
 * this decoder. What it returns is plain data, cheap to send to a worker.
 */

import { IbexError } from '../util/errors.js'

/** DEFAULT_TRACE_TIMEOUT_MS is geth's defaultTraceTimeout and the spec's "Tracer timeOut default". */
export const DEFAULT_TRACE_TIMEOUT_MS = 5000

/**
 * The tracers. `otsTrace`, `otsInternal` and `otsError` (otsTracer.ts) are the ots_ methods'
 * own, `parityStateDiff` (stateDiffTracer.ts) trace_replayTransaction's: the node asks for them,
 * a client's `tracer` option cannot name them.
 */
export type TracerName =
  | 'structLogger'
  | 'callTracer'
  | 'prestateTracer'
  | 'noopTracer'
  | 'otsTrace'
  | 'otsInternal'
  | 'otsError'
  | 'parityStateDiff'

export interface StructLoggerConfig {
  enableMemory: boolean
  disableStack: boolean
  disableStorage: boolean
  enableReturnData: boolean
  /** geth's `limit`: once the entries written exceed this many bytes, later steps are left out (0 = no limit). */
  limit: number
}

export interface CallTracerConfig {
  onlyTopCall: boolean
  withLog: boolean
}

export interface PrestateTracerConfig {
  diffMode: boolean
  disableCode: boolean
  disableStorage: boolean
}

export interface TraceOptions {
  tracer: TracerName
  logger: StructLoggerConfig
  call: CallTracerConfig
  prestate: PrestateTracerConfig
  /** Per-transaction time limit, ms. */
  timeoutMs: number
}

/** A bad options object: the message is what follows `invalid argument N: `. */
export class TraceOptionsError extends IbexError {
  readonly kind = 'traceOptions'
}

/** Raised when the trace runs (geth reports these as plain -32000 errors, not param errors). */
export class TraceConfigError extends IbexError {
  readonly kind = 'traceConfig'
}

export function defaultTraceOptions(): TraceOptions {
  return {
    tracer: 'structLogger',
    logger: { enableMemory: false, disableStack: false, disableStorage: false, enableReturnData: false, limit: 0 },
    call: { onlyTopCall: false, withLog: false },
    prestate: { diffMode: false, disableCode: false, disableStorage: false },
    timeoutMs: DEFAULT_TRACE_TIMEOUT_MS,
  }
}

const TRACERS: Record<string, TracerName> = {
  callTracer: 'callTracer',
  prestateTracer: 'prestateTracer',
  noopTracer: 'noopTracer',
}

type Obj = Record<string, unknown>

/** Go's case-insensitive field lookup. */
function field(o: Obj, name: string): unknown {
  if (name in o) return o[name]
  const lower = name.toLowerCase()
  for (const k of Object.keys(o)) if (k.toLowerCase() === lower) return o[k]
  return undefined
}

function goType(v: unknown): string {
  if (typeof v === 'string') return 'string'
  if (typeof v === 'number') return 'number'
  if (typeof v === 'boolean') return 'bool'
  if (Array.isArray(v)) return 'array'
  return 'object'
}

function bool(o: Obj, name: string, where: string): boolean {
  const v = field(o, name)
  if (v === undefined || v === null) return false
  if (typeof v !== 'boolean') {
    throw new TraceOptionsError(
      `json: cannot unmarshal ${goType(v)} into Go struct field ${where}.${name} of type bool`,
    )
  }
  return v
}

function int(o: Obj, name: string, where: string): number {
  const v = field(o, name)
  if (v === undefined || v === null) return 0
  if (typeof v !== 'number' || !Number.isInteger(v)) {
    throw new TraceOptionsError(`json: cannot unmarshal ${goType(v)} into Go struct field ${where}.${name} of type int`)
  }
  return Math.max(0, v)
}

function object(v: unknown, where: string): Obj {
  if (v === undefined || v === null) return {}
  if (typeof v !== 'object' || Array.isArray(v)) {
    throw new TraceOptionsError(`json: cannot unmarshal ${goType(v)} into Go value of type ${where}`)
  }
  return v as Obj
}

/** Decodes the tracer-options param (absent or null = all defaults). */
export function decodeTraceOptions(raw: unknown): TraceOptions {
  const o = object(raw, 'tracers.TraceConfig')
  const opts = defaultTraceOptions()
  opts.logger = {
    enableMemory: bool(o, 'enableMemory', 'TraceConfig'),
    disableStack: bool(o, 'disableStack', 'TraceConfig'),
    disableStorage: bool(o, 'disableStorage', 'TraceConfig'),
    enableReturnData: bool(o, 'enableReturnData', 'TraceConfig'),
    limit: int(o, 'limit', 'TraceConfig'),
  }
  const tracer = field(o, 'tracer')
  if (tracer !== undefined && tracer !== null && typeof tracer !== 'string') {
    throw new TraceOptionsError(
      `json: cannot unmarshal ${goType(tracer)} into Go struct field TraceConfig.tracer of type string`,
    )
  }
  const timeout = field(o, 'timeout')
  if (timeout !== undefined && timeout !== null && typeof timeout !== 'string') {
    throw new TraceOptionsError(
      `json: cannot unmarshal ${goType(timeout)} into Go struct field TraceConfig.timeout of type string`,
    )
  }
  if (typeof timeout === 'string') opts.timeoutMs = parseGoDurationMs(timeout)
  if (typeof tracer === 'string' && tracer !== '') {
    const name = TRACERS[tracer]
    if (name === undefined) {
      throw new TraceConfigError(
        `tracer ${JSON.stringify(tracer)} is not available: use callTracer, prestateTracer, noopTracer or no tracer (the struct logger)`,
      )
    }
    opts.tracer = name
  }
  const cfg = field(o, 'tracerConfig')
  if (opts.tracer === 'callTracer') {
    const c = object(cfg, 'native.callTracerConfig')
    opts.call = {
      onlyTopCall: bool(c, 'onlyTopCall', 'callTracerConfig'),
      withLog: bool(c, 'withLog', 'callTracerConfig'),
    }
  } else if (opts.tracer === 'prestateTracer') {
    const c = object(cfg, 'native.prestateTracerConfig')
    opts.prestate = {
      diffMode: bool(c, 'diffMode', 'prestateTracerConfig'),
      disableCode: bool(c, 'disableCode', 'prestateTracerConfig'),
      disableStorage: bool(c, 'disableStorage', 'prestateTracerConfig'),
    }
  }
  return opts
}

/** Go's time.Duration is an int64 of nanoseconds (about 292 years). */
const MAX_DURATION_NS = 2 ** 63

const UNIT_NS: Record<string, number> = {
  ns: 1,
  us: 1e3,
  µs: 1e3,
  μs: 1e3,
  ms: 1e6,
  s: 1e9,
  m: 60e9,
  h: 3600e9,
}

/**
 * Go's time.ParseDuration, in milliseconds (rounded down; negative durations clamp to 0, which
 * like geth's expired context stops the trace at once). Errors carry Go's wording.
 */
export function parseGoDurationMs(text: string): number {
  const quoted = JSON.stringify(text)
  let s = text
  let neg = false
  if (s !== '' && (s[0] === '-' || s[0] === '+')) {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0
  if (s === '') throw new TraceConfigError(`time: invalid duration ${quoted}`)
  let totalNs = 0
  while (s !== '') {
    const num = /^([0-9]*)(\.[0-9]*)?/.exec(s)
    const digits = num?.[0] ?? ''
    if (digits === '' || digits === '.') throw new TraceConfigError(`time: invalid duration ${quoted}`)
    s = s.slice(digits.length)
    const unit = /^[^0-9.]*/.exec(s)?.[0] ?? ''
    if (unit === '') throw new TraceConfigError(`time: missing unit in duration ${quoted}`)
    const scale = UNIT_NS[unit]
    if (scale === undefined)
      throw new TraceConfigError(`time: unknown unit ${JSON.stringify(unit)} in duration ${quoted}`)
    s = s.slice(unit.length)
    totalNs += Number.parseFloat(digits.startsWith('.') ? `0${digits}` : digits) * scale
  }
  if (totalNs > MAX_DURATION_NS) throw new TraceConfigError(`time: invalid duration ${quoted}`)
  return neg ? 0 : Math.floor(totalNs / 1e6)
}

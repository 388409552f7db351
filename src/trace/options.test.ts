/** Tracer options decoded as geth decodes TraceConfig, and Go durations as time.ParseDuration. */
import { describe, expect, it } from 'vitest'
import {
  decodeTraceOptions,
  DEFAULT_TRACE_TIMEOUT_MS,
  parseGoDurationMs,
  TraceConfigError,
  TraceOptionsError,
} from './options.js'

describe('parseGoDurationMs (Go time.ParseDuration)', () => {
  it.each([
    ['5s', 5000],
    ['300ms', 300],
    ['1m30s', 90_000],
    ['1.5h', 5_400_000],
    ['0', 0],
    ['-1s', 0],
    ['2500us', 2],
    ['.5s', 500],
  ])('%s → %d ms', (text, ms) => {
    expect(parseGoDurationMs(text)).toBe(ms)
  })

  it.each([
    ['', 'time: invalid duration ""'],
    ['5', 'time: missing unit in duration "5"'],
    ['5x', 'time: unknown unit "x" in duration "5x"'],
    ['abc', 'time: invalid duration "abc"'],
    ['5 s', 'time: unknown unit " s" in duration "5 s"'],
  ])('%j is an error: %s', (text, message) => {
    expect(() => parseGoDurationMs(text)).toThrow(new TraceConfigError(message))
  })
})

describe('decodeTraceOptions', () => {
  it('defaults: struct logger, 5 s', () => {
    const o = decodeTraceOptions(undefined)
    expect(o.tracer).toBe('structLogger')
    expect(o.timeoutMs).toBe(DEFAULT_TRACE_TIMEOUT_MS)
    expect(o.logger).toEqual({
      enableMemory: false,
      disableStack: false,
      disableStorage: false,
      enableReturnData: false,
      limit: 0,
    })
  })

  it('matches field names case-insensitively, as Go does, and reads tracerConfig', () => {
    const o = decodeTraceOptions({
      EnableMemory: true,
      TRACER: 'callTracer',
      tracerconfig: { onlytopcall: true, withLog: true },
      timeout: '1s',
    })
    expect(o).toMatchObject({
      tracer: 'callTracer',
      timeoutMs: 1000,
      logger: { enableMemory: true },
      call: { onlyTopCall: true, withLog: true },
    })
    expect(decodeTraceOptions({ tracer: 'prestateTracer', tracerConfig: { diffMode: true } }).prestate.diffMode).toBe(
      true,
    )
  })

  it("rejects wrong JSON types with Go's wording, unknown tracers as a config error", () => {
    expect(() => decodeTraceOptions({ enableMemory: 'yes' })).toThrow(
      new TraceOptionsError('json: cannot unmarshal string into Go struct field TraceConfig.enableMemory of type bool'),
    )
    expect(() => decodeTraceOptions([])).toThrow(TraceOptionsError)
    expect(() => decodeTraceOptions({ tracer: '4byteTracer' })).toThrow(TraceConfigError)
  })
})

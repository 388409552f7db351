/**
 * trace_: of OpenEthereum's ad-hoc tracing API (as Erigon serves it, trace_adhoc.go), the method
 * Otterscan's State Diff tab calls: trace_replayTransaction(hash, ["stateDiff"]). Served when
 * `trace` is in `[jsonrpc] api` (dev: on).
 *
 *   hash ─▶ the mined transaction's place ─▶ Backend.traceTransaction with the parityStateDiff tracer
 *        (trace/stateDiffTracer.ts: the prestateTracer's diff rewritten; a trace worker re-executes)
 *        ─▶ {output, stateDiff, trace: [], vmTrace: null}, spliced in unparsed
 *
 * Only the `stateDiff` trace type is served: `trace` and `vmTrace` (Parity's call and VM traces; ibex
 * serves the same facts as debug_trace* and ots_traceTransaction) are refused with -32602 naming
 * them, an unknown type with Erigon's "unrecognized trace type". An unknown transaction is null,
 * as in Erigon.
 */
import { defaultTraceOptions } from '../../exec/pool/index.js'
import type { Backend } from '../backend.js'
import { GenesisNotTraceableError, InvalidParamsError } from '../errors.js'
import { goDecoder, Hash } from '../params/index.js'
import { GoDecodeError } from '../params/gojson.js'
import { method, type Namespace, type ParamDecoder, RawJson } from '../types.js'

/** The trace types OpenEthereum defines. */
const TRACE_TYPES = new Set(['trace', 'stateDiff', 'vmTrace'])
/** The ones ibex answers. */
const SERVED_TRACE_TYPES = new Set(['stateDiff'])

/** The trace types: a JSON array of strings (Go's []string). */
const TraceTypes: ParamDecoder<string[]> = goDecoder((raw) => {
  if (!Array.isArray(raw)) throw new GoDecodeError(raw === null ? 'null' : typeof raw, '[]string', false)
  for (const t of raw) if (typeof t !== 'string') throw new GoDecodeError(typeof t, 'string', false)
  return raw as string[]
})

/** Refuses what ibex does not trace, before anything runs. */
function checkTraceTypes(types: readonly string[]): void {
  for (const t of types) {
    if (!TRACE_TYPES.has(t)) throw new InvalidParamsError(`unrecognized trace type: ${t}`)
    if (!SERVED_TRACE_TYPES.has(t))
      throw new InvalidParamsError(`trace type ${t} is not served (ibex serves stateDiff)`)
  }
  if (types.length === 0) throw new InvalidParamsError('no trace type given (ibex serves stateDiff)')
}

export const traceNamespace: Namespace<Backend> = {
  name: 'trace',
  methods: {
    trace_replayTransaction: method([Hash, TraceTypes], async (b, [hash, types]) => {
      checkTraceTypes(types)
      const loc = b.txLocation(hash)
      if (loc === undefined) return null
      if (loc.blockNumber === 0n) throw new GenesisNotTraceableError()
      return new RawJson(await b.traceTransaction(loc, { ...defaultTraceOptions(), tracer: 'parityStateDiff' }))
    }),
  },
}

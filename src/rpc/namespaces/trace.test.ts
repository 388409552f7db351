/**
 * trace_replayTransaction through the dispatcher with a fake Backend: the parityStateDiff tracer
 * asked of the trace lane for ["stateDiff"], its JSON spliced in as is; trace types ibex does not
 * serve, unknown ones and a missing list refused with -32602 before anything runs; an unknown
 * transaction null (Erigon).
 */
import { describe, expect, it } from 'vitest'
import type { TraceOptions } from '../../exec/pool/index.js'
import type { Backend } from '../backend.js'
import { callMethod, fakeBackend } from './testing.js'
import { traceNamespace } from './trace.js'

const HASH = `0x${'12'.repeat(32)}`
const UNKNOWN = `0x${'ab'.repeat(32)}`
const ANSWER = '{"output":"0x","stateDiff":{},"trace":[],"vmTrace":null}'

function backend(asked: TraceOptions['tracer'][]): Backend {
  return fakeBackend({
    txLocation: (h) => (h[0] === 0xab ? undefined : { blockHash: new Uint8Array(32), blockNumber: 3n, index: 0 }),
    traceTransaction: async (_loc, opts) => {
      asked.push(opts.tracer)
      return [Buffer.from(ANSWER)]
    },
  })
}

const call = (b: Backend, params: unknown[]) => callMethod(traceNamespace, b, 'trace_replayTransaction', params)

describe('trace_replayTransaction', () => {
  it('runs the parityStateDiff tracer for ["stateDiff"] (what Otterscan sends) and answers its JSON', async () => {
    const asked: TraceOptions['tracer'][] = []
    const r = await call(backend(asked), [HASH, ['stateDiff']])
    expect(r.error).toBeUndefined()
    expect(r.result).toEqual(JSON.parse(ANSWER))
    expect(asked).toEqual(['parityStateDiff'])
  })

  it('answers null for an unknown transaction, as Erigon does', async () => {
    expect((await call(backend([]), [UNKNOWN, ['stateDiff']])).result).toBeNull()
  })

  it.each([
    [['vmTrace'], /trace type vmTrace is not served/],
    [['stateDiff', 'trace'], /trace type trace is not served/],
    [['balance'], /unrecognized trace type: balance/],
    [[], /no trace type given/],
    ['stateDiff', /invalid argument 1/],
    [[1], /invalid argument 1/],
  ])('refuses trace types %j with -32602 before tracing', async (types, message) => {
    const asked: TraceOptions['tracer'][] = []
    const r = await call(backend(asked), [HASH, types])
    expect(r.error?.code).toBe(-32602)
    expect(r.error?.message).toMatch(message)
    expect(asked).toEqual([])
  })

  it('needs both arguments', async () => {
    expect((await call(backend([]), [HASH])).error?.message).toMatch(/missing value for required argument 1/)
  })
})

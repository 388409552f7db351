import { describe, expect, it } from 'vitest'
import { RawJson } from '../types.js'
import { RpcDispatcher } from './dispatch.js'

describe('RpcDispatcher: raw JSON given as bytes (a trace)', () => {
  const json = JSON.stringify({
    structLogs: Array.from({ length: 300 }, (_, i) => ({ pc: i, op: 'PUSH1' })),
    gas: 21000,
  })
  // cut in three chunks, as a trace worker hands them over
  const chunks = [json.slice(0, 1000), json.slice(1000, 5000), json.slice(5000)].map((c) =>
    Uint8Array.from(Buffer.from(c, 'latin1')),
  )
  const dispatcher = (maxResponseBytes = 0) =>
    new RpcDispatcher<Record<string, never>>({
      namespaces: [{ name: 'debug', methods: { debug_trace: { params: [], handler: () => new RawJson(chunks) } } }],
      enabledApis: ['debug'],
      ctx: {},
      maxBatchItems: 10,
      maxResponseBytes,
    })
  const call = (id: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method: 'debug_trace', params: [] })

  it('answers a single call as bytes: the envelope around the chunks, byte for byte', async () => {
    for (const id of [1, 'ä"\\<id>', null]) {
      const answer = await dispatcher().answerBody(call(id))
      expect(Buffer.isBuffer(answer)).toBe(true)
      expect((answer as Buffer).toString('utf8')).toBe(
        `{"jsonrpc":"2.0","id":${JSON.stringify(id).replace('<', '\\u003c').replace('>', '\\u003e')},"result":${json}}`,
      )
    }
  })

  it('answers in a batch as text, and too large when over the response limit', async () => {
    const batch = await dispatcher().handleBody(`[${call(1)},${call(2)}]`)
    expect(JSON.parse(batch as string)).toEqual([1, 2].map((id) => ({ jsonrpc: '2.0', id, result: JSON.parse(json) })))
    const tooLarge = await dispatcher(json.length).answerBody(call(7))
    expect(JSON.parse(String(tooLarge))).toEqual({
      jsonrpc: '2.0',
      id: 7,
      error: { code: -32003, message: 'response too large' },
    })
  })
})

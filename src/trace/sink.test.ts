/** The bounded JSON sink: order across chunks, holes, rewinding, the size limit. */
import { describe, expect, it } from 'vitest'
import { CHUNK_BYTES, decodeParts, JsonSink, TraceTooLargeError } from './sink.js'

describe('JsonSink', () => {
  it('keeps text in order across chunks, with holes filled later', () => {
    const sink = new JsonSink(10 * CHUNK_BYTES)
    sink.write('{')
    const hole = sink.reserve()
    const big = 'x'.repeat(CHUNK_BYTES + 123)
    sink.write(`"a":"${big}"}`)
    sink.fill(hole, '"h":1,')
    const parts = sink.parts()
    expect(parts.length).toBeGreaterThan(2)
    expect(JSON.parse(decodeParts(parts))).toEqual({ h: 1, a: big })
  })

  it('rewinds to a mark', () => {
    const sink = new JsonSink(1000)
    sink.write('[1,')
    const mark = sink.mark()
    sink.write('"half written')
    sink.rewind(mark)
    sink.write('2]')
    expect(sink.text()).toBe('[1,2]')
    expect(sink.size).toBe(5)
  })

  it('throws TraceTooLargeError at the first write past the limit', () => {
    const sink = new JsonSink(10)
    sink.write('0123456789')
    expect(() => sink.write('x')).toThrow(TraceTooLargeError)
  })
})

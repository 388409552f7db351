import { describe, expect, it } from 'vitest'

import { formatTextLine } from './log.js'

describe('formatTextLine', () => {
  it('renders a pino JSON line for a terminal', () => {
    const json = '{"level":"info","time":"2026-11-02T10:00:00.000Z","pid":7,"msg":"sealed block 5","txs":3,"who":"a b"}'
    expect(formatTextLine(json)).toBe('2026-11-02T10:00:00.000Z INFO  sealed block 5 txs=3 who=a b\n')
  })
})

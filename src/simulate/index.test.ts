import { describe, expect, it } from 'vitest'
import { SIM_ERROR, SimulationError } from './errors.js'
import { checkCallCounts, MAX_SIMULATE_CALLS_PER_BLOCK, sanitizeChain } from './index.js'
import { emptyBlockOverrides, type SimBlock, type SimCall } from './types.js'

function block(o: { number?: bigint; time?: bigint } = {}): SimBlock {
  return { blockOverrides: { ...emptyBlockOverrides(), ...o }, stateOverrides: undefined, calls: [] }
}

function codeOf(fn: () => unknown): string | undefined {
  try {
    fn()
  } catch (err) {
    return err instanceof SimulationError ? err.kind : undefined
  }
  return undefined
}

describe('sanitizeChain (geth rules)', () => {
  it('numbers blocks after the base and spaces them 12 s apart', () => {
    const out = sanitizeChain([block(), block()], 54n, 540n)
    expect(out.map((b) => [b.overrides.number, b.overrides.time])).toEqual([
      [55n, 552n],
      [56n, 564n],
    ])
  })

  it('fills a gap in numbers with empty blocks, advancing the time', () => {
    const out = sanitizeChain([block({ number: 58n })], 54n, 540n)
    expect(out.map((b) => [b.overrides.number, b.overrides.time])).toEqual([
      [55n, 552n],
      [56n, 564n],
      [57n, 576n],
      [58n, 588n],
    ])
  })

  it('refuses numbers or times that do not increase, and more than 256 blocks', () => {
    expect(codeOf(() => sanitizeChain([block({ number: 54n })], 54n, 540n))).toBe(SIM_ERROR.blockNumberInvalid)
    // the gap blocks advance the time first: 0x226 is then in the past
    expect(codeOf(() => sanitizeChain([block({ number: 59n, time: 550n })], 54n, 540n))).toBe(
      SIM_ERROR.blockTimestampInvalid,
    )
    expect(codeOf(() => sanitizeChain([block({ time: 540n })], 54n, 540n))).toBe(SIM_ERROR.blockTimestampInvalid)
    expect(codeOf(() => sanitizeChain([block({ number: 54n + 257n })], 54n, 540n))).toBe(SIM_ERROR.clientLimitExceeded)
  })
})

describe('call counts (geth maxSimulateCallsPerBlock, maxSimulateTotalCalls)', () => {
  const withCalls = (n: number): SimBlock => ({ ...block(), calls: new Array<SimCall>(n) })
  const message = (blocks: SimBlock[]) => {
    try {
      checkCallCounts(blocks)
    } catch (err) {
      return err instanceof SimulationError ? `${err.kind} ${err.message}` : undefined
    }
    return 'passed'
  }

  it('allows 5000 calls in a block and 10000 in all', () => {
    expect(message([withCalls(MAX_SIMULATE_CALLS_PER_BLOCK), withCalls(MAX_SIMULATE_CALLS_PER_BLOCK)])).toBe('passed')
  })

  it('refuses more, in geth words', () => {
    expect(message([withCalls(5001)])).toBe(`${SIM_ERROR.clientLimitExceeded} too many calls in block: 5001 > 5000`)
    expect(message([withCalls(5000), withCalls(4000), withCalls(1001)])).toBe(
      `${SIM_ERROR.clientLimitExceeded} too many calls: 10001 > 10000`,
    )
  })
})

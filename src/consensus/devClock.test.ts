import { describe, expect, it } from 'vitest'
import { DevClock, TimestampNotAfterParentError } from './devClock.js'

/** A clock whose wall time the test sets. */
function clockAt(start: bigint) {
  let now = start
  const clock = new DevClock(() => now)
  return {
    clock,
    tick: (s: bigint) => {
      now += s
    },
  }
}

describe('DevClock', () => {
  it('stamps now, and never at or before the parent', () => {
    const { clock } = clockAt(1000n)
    expect(clock.next(900n)).toBe(1000n)
    expect(clock.next(1000n)).toBe(1001n)
    expect(clock.next(5000n)).toBe(5001n)
  })

  it('evm_increaseTime adds to the offset and answers the total', () => {
    const { clock, tick } = clockAt(1000n)
    expect(clock.increaseTime(60n)).toBe(60n)
    expect(clock.increaseTime(40n)).toBe(100n)
    expect(clock.next(0n)).toBe(1100n)
    tick(5n)
    // an ordinary seal keeps the offset
    clock.sealed(1105n)
    expect(clock.next(1105n)).toBe(1106n)
    expect(clock.offset).toBe(100n)
  })

  it('a set timestamp is used once; time then runs on from it', () => {
    const { clock, tick } = clockAt(1000n)
    clock.setNextBlockTimestamp(5000n, 999n)
    expect(clock.next(999n)).toBe(5000n)
    // not consumed until a block is sealed with it
    expect(clock.next(999n)).toBe(5000n)
    clock.sealed(5000n)
    expect(clock.offset).toBe(4000n)
    tick(3n)
    expect(clock.next(5000n)).toBe(5003n)
    expect(clock.increaseTime(10n)).toBe(4010n)
  })

  it('refuses a timestamp at or before the head, in anvil words', () => {
    const { clock } = clockAt(1000n)
    expect(() => clock.setNextBlockTimestamp(1000n, 1000n)).toThrow(new TimestampNotAfterParentError(1000n).message)
    expect(() => clock.setNextBlockTimestamp(999n, 1000n)).toThrow(
      "Timestamp error: 999 is lower than previous block's timestamp",
    )
    expect(clock.next(1000n)).toBe(1001n)
  })

  it('a set timestamp the parent has passed still gives a later block', () => {
    const { clock } = clockAt(1000n)
    clock.setNextBlockTimestamp(1500n, 1000n)
    expect(clock.next(1600n)).toBe(1601n)
  })
})

/**
 * DevClock: the block clock of a dev chain whose time tests move (evm_increaseTime,
 * evm_setNextBlockTimestamp, evm_mine with a timestamp), as anvil's TimeManager keeps it:
 *
 *   next block's timestamp = the timestamp set for it, else now + offset,
 *                            and never at or before its parent's (then parent + 1)
 *   evm_increaseTime(s)        offset += s; answers the total offset, seconds
 *   evm_setNextBlockTimestamp  refused unless after the head's timestamp; used once, after which
 *                              the offset is such that time runs on from it
 *
 * One departure from anvil: anvil lets two blocks share a timestamp (a set timestamp equal to the
 * head's is accepted); ibex's header rule is geth's (strictly after the parent), so that is refused
 * too, with anvil's wording. The offset lives in memory, as anvil's does: after a restart blocks
 * are stamped from the wall clock again (and still after their parent).
 */
import { IbexError } from '../util/errors.js'
import type { BlockClock } from './sealer.js'

/** The wall clock in whole seconds. */
export function wallClockSeconds(): bigint {
  return BigInt(Math.floor(Date.now() / 1000))
}

/** -32602 (anvil's code): a set block timestamp not after the head's. */
export class TimestampNotAfterParentError extends IbexError {
  readonly kind = 'timestampNotAfterParent'
  readonly timestamp: bigint
  constructor(timestamp: bigint) {
    super(`Timestamp error: ${timestamp} is lower than previous block's timestamp`)
    this.timestamp = timestamp
  }
}

export class DevClock implements BlockClock {
  readonly #now: () => bigint
  /** Seconds added to the wall clock. */
  #offset = 0n
  /** The exact timestamp of the next block, when one was set. */
  #next: bigint | undefined

  constructor(now: () => bigint = wallClockSeconds) {
    this.#now = now
  }

  /** The total offset from the wall clock, seconds. */
  get offset(): bigint {
    return this.#offset
  }

  /** evm_increaseTime: moves the clock `seconds` forward; the total offset. */
  increaseTime(seconds: bigint): bigint {
    this.#offset += seconds
    return this.#offset
  }

  /** evm_setNextBlockTimestamp: the next block gets `timestamp`, which must be after the head's. */
  setNextBlockTimestamp(timestamp: bigint, headTimestamp: bigint): void {
    if (timestamp <= headTimestamp) throw new TimestampNotAfterParentError(timestamp)
    this.#next = timestamp
  }

  next(parentTimestamp: bigint): bigint {
    const wanted = this.#next ?? this.#now() + this.#offset
    return wanted > parentTimestamp ? wanted : parentTimestamp + 1n
  }

  sealed(timestamp: bigint): void {
    if (this.#next === undefined) return
    // a set timestamp is used once; time runs on from it
    this.#next = undefined
    this.#offset = timestamp - this.#now()
  }
}

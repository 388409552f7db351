/**
 * parityStateDiff: the prestateTracer's diff-mode answer rewritten as OpenEthereum's stateDiff (what
 * Erigon's trace_replayTransaction answers and Otterscan's State Diff tab draws): "=" or
 * {"*": {from, to}} for accounts that existed before and after, {"+": …} for accounts born (absent
 * or empty before), {"-": …} for destroyed ones; nonces as hex quantities; slots changed from or to
 * zero (which geth's diff leaves out of one side) as full words.
 */
import { describe, expect, it } from 'vitest'
import { parityStateDiff } from './stateDiffTracer.js'

const A = `0x${'aa'.repeat(20)}`
const B = `0x${'bb'.repeat(20)}`
const C = `0x${'cc'.repeat(20)}`
const word = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
const ZERO = word(0)

describe('parityStateDiff', () => {
  it('shows an account that existed before and after field by field: "=" or {"*": {from, to}}', () => {
    const diff = parityStateDiff({
      pre: { [A]: { balance: '0x100', nonce: 4, code: '0x6000', storage: { [word(1)]: word(7), [word(2)]: word(9) } } },
      // slot 1: 7 → 8; slot 2: 9 → 0 (left out of post); slot 3: 0 → 5 (left out of pre)
      post: { [A]: { balance: '0xff', storage: { [word(1)]: word(8), [word(3)]: word(5) } } },
    })
    expect(diff).toEqual({
      [A]: {
        balance: { '*': { from: '0x100', to: '0xff' } },
        code: '=',
        nonce: '=',
        storage: {
          [word(1)]: { '*': { from: word(7), to: word(8) } },
          [word(2)]: { '*': { from: word(9), to: ZERO } },
          [word(3)]: { '*': { from: ZERO, to: word(5) } },
        },
      },
    })
  })

  it('writes nonces as hex quantities, the sender from nonce 0 included', () => {
    const diff = parityStateDiff({ pre: { [A]: { balance: '0x10' } }, post: { [A]: { balance: '0x1', nonce: 1 } } })
    expect(diff[A]?.nonce).toEqual({ '*': { from: '0x0', to: '0x1' } })
  })

  it('shows an account born in the transaction (absent from pre, or empty there) with "+"', () => {
    const diff = parityStateDiff({
      // B: a created contract (the prestateTracer leaves it out of pre); C: a fresh address paid
      pre: { [C]: { balance: '0x0' } },
      post: {
        [B]: { balance: '0x5', code: '0x6001', nonce: 1, storage: { [word(0)]: word(3) } },
        [C]: { balance: '0x7' },
      },
    })
    expect(diff).toEqual({
      [B]: {
        balance: { '+': '0x5' },
        code: { '+': '0x6001' },
        nonce: { '+': '0x1' },
        storage: { [word(0)]: { '+': word(3) } },
      },
      [C]: { balance: { '+': '0x7' }, code: { '+': '0x' }, nonce: { '+': '0x0' }, storage: {} },
    })
  })

  it('shows a destroyed account with "-" and leaves out one created and destroyed in the same transaction', () => {
    const diff = parityStateDiff({
      pre: { [A]: { balance: '0x9', code: '0x00', nonce: 1 }, [B]: { balance: '0x0' } },
      post: {},
    })
    expect(diff).toEqual({
      [A]: { balance: { '-': '0x9' }, code: { '-': '0x00' }, nonce: { '-': '0x1' }, storage: {} },
    })
  })

  it('lists accounts in address order', () => {
    const diff = parityStateDiff({
      pre: { [C]: { balance: '0x2' }, [A]: { balance: '0x2' } },
      post: { [C]: { balance: '0x1' }, [A]: { balance: '0x3' } },
    })
    expect(Object.keys(diff)).toEqual([A, C])
  })
})

/**
 * The call ring's codec: what crosses as bytes comes out as it went in; what it does not carry is
 * refused (it crosses on the port).
 */
import { describe, expect, it } from 'vitest'
import { RING_ANSWER_BYTES, RING_TASK_BYTES, readAnswer, readTask, RingLayout, writeAnswer, writeTask } from './ring.js'
import type { CallLaneTask, CallTask } from './tasks.js'

const bytes = (n: number, fill: number) => new Uint8Array(n).fill(fill)

function callTask(request: CallTask['request'], kind: CallTask['kind'] = 'call'): CallTask {
  return {
    kind,
    head: 123_456n,
    budgetMs: 5000,
    startBy: 1_764_300_000_123.5,
    blockHash: bytes(32, 0xab),
    request,
    limits: { gasCap: 50_000_000n, timeoutMs: 5000 },
  }
}

describe('call ring codec', () => {
  it('carries every plain field of a call or estimate, from zero to 2^256-1, in any slot', () => {
    const ring = RingLayout.create(4)
    const full = callTask({
      from: bytes(20, 1),
      to: bytes(20, 2),
      gas: 0n,
      gasPrice: 1n,
      maxFeePerGas: 255n,
      maxPriorityFeePerGas: 256n,
      value: (1n << 256n) - 1n,
      nonce: 7n,
      chainId: 786n,
      maxFeePerBlobGas: 1n << 64n,
      data: bytes(RING_TASK_BYTES - 400, 9),
    })
    const cases: CallTask[] = [
      full,
      callTask({ to: bytes(20, 3) }, 'estimateGas'),
      callTask({}),
      callTask({ data: new Uint8Array(0) }),
    ]
    for (const [slot, task] of cases.entries()) expect(writeTask(ring, slot, task)).toBe(true)
    for (const [slot, task] of cases.entries()) expect(readTask(ring, slot)).toEqual(task)
  })

  it('refuses what it does not carry: overrides, access lists, blobs, authorizations, other kinds, too long', () => {
    const ring = RingLayout.create(1)
    const refused: CallLaneTask[] = [
      { ...callTask({ to: bytes(20, 1) }), overrides: { state: {} } },
      callTask({ accessList: [] }),
      callTask({ blobVersionedHashes: [] }),
      callTask({ authorizationList: [] }),
      callTask({ data: bytes(RING_TASK_BYTES, 1) }),
      callTask({ value: -1n }),
      callTask({ value: 1n << 256n }),
      callTask({ from: bytes(19, 1) }),
      { ...callTask({}), head: 1n << 64n },
      { ...callTask({}), kind: 'createAccessList', suggestedTip: 0n } as unknown as CallLaneTask,
    ]
    for (const task of refused)
      expect(
        writeTask(ring, 0, task),
        JSON.stringify(task, (_, v) => String(v)),
      ).toBe(false)
  })

  it('carries answers that are bytes, a number or revert data; refuses the rest', () => {
    const ring = RingLayout.create(3)
    const answers = [
      { ok: true, value: bytes(32, 5) },
      { ok: true, value: 21_000n },
      { ok: false, failure: { kind: 'revert', data: bytes(68, 8) } },
    ] as const
    for (const [slot, a] of answers.entries()) expect(writeAnswer(ring, slot, a)).toBe(true)
    for (const [slot, a] of answers.entries()) expect(readAnswer(ring, slot)).toEqual(a)
    expect(writeAnswer(ring, 0, { ok: true, value: bytes(RING_ANSWER_BYTES, 1) })).toBe(false)
    expect(writeAnswer(ring, 0, { ok: true, value: { accessList: [], gasUsed: 1n } })).toBe(false)
    expect(writeAnswer(ring, 0, { ok: false, failure: { kind: 'execution', message: 'out of gas' } })).toBe(false)
    expect(writeAnswer(ring, 0, { ok: false, failure: { kind: 'notStarted' } })).toBe(false)
  })
})

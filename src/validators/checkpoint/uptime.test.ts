import { describe, expect, it } from 'vitest'

import { computeUptime, UPTIME_SCALE } from './uptime.js'

const a = (byte: number) => Uint8Array.from({ length: 20 }, () => byte)
const [A, B, C, D, E] = [a(1), a(2), a(3), a(4), a(5)] as Uint8Array[]
const id = (k: number) => BigInt(k) * 10_000n

/** k checkpoints, each signed by `signers(k)`. */
function history(count: number, signers: (k: number) => Uint8Array[]) {
  return Array.from({ length: count }, (_, i) => ({ id: id(i + 1), signers: signers(i + 1) }))
}

describe('uptime', () => {
  const sets = [{ id: 0n, signers: [A, B, C, D], powers: [1n, 1n, 1n, 1n] }]

  it('counts signed checkpoints over the window; a validator that missed some falls below the benchmark', () => {
    const checkpoints = history(10, (k) => (k > 6 ? [A, B, C] : [A, B, C, D]))
    const r = computeUptime({ checkpoints, sets, setsComplete: true, current: [A, B, C, D], window: 10 })
    expect(r.checkpoints).toBe(10)
    const d = r.validators.find((v) => v.signer === D)
    expect([d?.signed, d?.of, d?.uptimePpm]).toEqual([6, 10, 600_000n])
    expect(d?.health).toBe('grace period')
    expect(r.medianPpm).toBe(UPTIME_SCALE)
    expect(r.validators.filter((v) => v.health === 'healthy')).toHaveLength(3)
    // a window later, all signing again: healthy
    const later = history(20, (k) => (k > 6 && k <= 10 ? [A, B, C] : [A, B, C, D]))
    const r2 = computeUptime({ checkpoints: later.slice(-10), sets, setsComplete: true, current: [A, B, C, D], window: 10 })
    expect(r2.validators.find((v) => v.signer === D)?.health).toBe('healthy')
  })

  it('escalates over consecutive windows below the benchmark: notice of deficiency, final notice', () => {
    const checkpoints = history(30, (k) => (k % 2 === 0 ? [A, B, C] : [A, B, C, D]))
    const r = computeUptime({ checkpoints, sets, setsComplete: true, current: [A, B, C, D], window: 10 })
    expect(r.validators.find((v) => v.signer === D)?.health).toBe('final notice')
    const two = computeUptime({ checkpoints: checkpoints.slice(10), sets, setsComplete: true, current: [A, B, C, D], window: 10 })
    expect(two.validators.find((v) => v.signer === D)?.health).toBe('notice of deficiency')
  })

  it('counts a validator only from the checkpoint after the one that carried it into the set', () => {
    const joined = [...sets, { id: id(4), signers: [A, B, C, D, E], powers: [1n, 1n, 1n, 1n, 1n] }]
    const checkpoints = history(8, (k) => (k > 4 ? [A, B, C, D, E] : [A, B, C, D]))
    const r = computeUptime({ checkpoints, sets: joined, setsComplete: true, current: [A, B, C, D, E], window: 8 })
    const e = r.validators.find((v) => v.signer === E)
    expect([e?.signed, e?.of, e?.uptimePpm, e?.health]).toEqual([4, 4, UPTIME_SCALE, 'healthy'])
  })

  it('reports 100% for a validator with nothing to sign yet', () => {
    const r = computeUptime({ checkpoints: [], sets, setsComplete: true, current: [A], window: 700 })
    expect(r.validators[0]).toMatchObject({ signed: 0, of: 0, uptimePpm: UPTIME_SCALE, health: 'healthy' })
  })
})

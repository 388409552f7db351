import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { describe, expect, it } from 'vitest'

import { formatCoins, formatWait } from './index.js'
import { FaucetState, msToUtcMidnight, utcDay } from './state.js'

const HOUR = 3_600_000
const COIN = 10n ** 18n
const T0 = Date.UTC(2026, 10, 2, 10, 0, 0)

function fresh(): string {
  return join(mkdtempSync(join(tmpdir(), 'ibex-faucet-state-')), 'state.json')
}

describe('FaucetState', () => {
  it('refuses an address and an IP within the cooldown, across a reload', () => {
    const path = fresh()
    const s = FaucetState.load(path, 24 * HOUR, T0)
    expect(s.check('0xa', '1.1.1.1', COIN, 10n * COIN, T0)).toBeUndefined()
    s.reserve('0xa', '1.1.1.1', COIN, T0)
    expect(s.check('0xa', '2.2.2.2', COIN, 10n * COIN, T0 + HOUR)).toEqual({
      kind: 'address-cooldown',
      waitMs: 23 * HOUR,
      lastMs: T0,
    })
    expect(s.check('0xb', '1.1.1.1', COIN, 10n * COIN, T0 + HOUR)?.kind).toBe('ip-cooldown')
    const reloaded = FaucetState.load(path, 24 * HOUR, T0 + 2 * HOUR)
    expect(reloaded.check('0xa', '3.3.3.3', COIN, 10n * COIN, T0 + 2 * HOUR)?.kind).toBe('address-cooldown')
    expect(reloaded.spentToday(T0 + 2 * HOUR)).toBe(COIN)
    // after the cooldown both pass again, and the entries are pruned from the file
    expect(reloaded.check('0xa', '1.1.1.1', COIN, 10n * COIN, T0 + 25 * HOUR)).toBeUndefined()
  })

  it('keeps a daily budget that resets at midnight UTC; release undoes a grant', () => {
    const s = FaucetState.load(fresh(), HOUR, T0)
    const r = s.reserve('0xa', '1', 3n * COIN, T0)
    expect(s.check('0xb', '2', 3n * COIN, 5n * COIN, T0)).toEqual({ kind: 'daily-budget', waitMs: 14 * HOUR })
    s.release(r, T0)
    expect(s.check('0xa', '1', 3n * COIN, 5n * COIN, T0)).toBeUndefined()
    s.reserve('0xa', '1', 3n * COIN, T0)
    expect(s.check('0xc', '3', 3n * COIN, 5n * COIN, T0 + 15 * HOUR)).toBeUndefined()
  })

  it('refuses to start on a corrupt file rather than forget cooldowns', () => {
    const path = fresh()
    writeFileSync(path, '{not json')
    expect(() => FaucetState.load(path, HOUR)).toThrow(/faucet state unreadable/)
  })

  it('writes the file atomically as JSON', () => {
    const path = fresh()
    FaucetState.load(path, HOUR, T0).reserve('0xa', '1', COIN, T0)
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({
      version: 1,
      day: '2026-11-02',
      spentWei: COIN.toString(),
      addresses: { '0xa': T0 },
      ips: { '1': T0 },
    })
  })
})

describe('formatting', () => {
  it('renders coins, waits and days', () => {
    expect(formatCoins(1_500_000_000_000_000_000n)).toBe('1.5')
    expect(formatCoins(2n * COIN)).toBe('2')
    expect(formatWait(12_000)).toBe('12 s')
    expect(formatWait(23 * HOUR + 59 * 60_000)).toBe('23 h 59 min')
    expect(formatWait(HOUR)).toBe('1 h')
    expect(utcDay(T0)).toBe('2026-11-02')
    expect(msToUtcMidnight(T0)).toBe(14 * HOUR)
  })
})

/**
 * The "must show", on `ibex start --network dev` with the genesis DAO at its documented
 * addresses: scripts/dao/demo.js (also `node scripts/dao-demo.js`) applies for seats in every tier
 * at the production minimums with test-mnemonic keys, gets them approved, shows the limits reverting
 * with their reasons, decides a tied vote by holdings and executes it through the Timelock,
 * deposits revenue, finalizes epochs and claims (50/40/10 to the wei), and resells a seat with the
 * first-refusal window enforced.
 */
import { keccak256, toUtf8Bytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { Chain } from '../../scripts/dao/client.js'
import { type DemoResult, runDemo } from '../../scripts/dao/demo.js'
import { devWallet } from '../../scripts/dao/plan.js'
import { cleanupNodes, startNode } from '../helpers/node.js'

const SHARE_BPS = [5000n, 4000n, 1000n]
const tierIndex = (seat: bigint) => (seat <= 10n ? 0 : seat <= 50n ? 1 : 2)

let r: DemoResult
const lines: string[] = []

beforeAll(async () => {
  const node = await startNode()
  r = await runDemo({ chain: new Chain(node.url), log: (l) => lines.push(l) })
}, 240_000)

afterAll(async () => {
  if (process.env.DAO_DEMO_LOG) console.log(lines.join('\n'))
  await cleanupNodes()
})

describe('the dev chain DAO, end to end', () => {
  it('seats applicants in every tier; 10 Tier I seats carry 500 of the votes', () => {
    expect(Object.keys(r.seats)).toHaveLength(14)
    expect(r.seats['1']).toBe(devWallet(10).address)
    expect(r.seats['12']).toBe(devWallet(16).address)
    expect(r.seats['52']).toBe(devWallet(17).address)
    expect(r.totalVotes).toBe(500n + 20n + 2n)
  })

  it('reverts an 11th Tier I seat, a third seat, seat 151, and a transfer before the lock, with reasons', () => {
    expect(r.reverts['11th Tier I seat']).toMatchObject({ status: '0x0', name: 'TierFull', args: ['1'] })
    expect(r.reverts['third seat for one holder']).toMatchObject({
      status: '0x0',
      name: 'SeatLimitReached',
      // the demo gives each applicant an identity of its own (demo.js: 'dev KYC identity <address>')
      args: [devWallet(10).address, keccak256(toUtf8Bytes(`dev KYC identity ${devWallet(10).address.toLowerCase()}`))],
    })
    expect(r.reverts['seat 151']).toEqual({ name: 'InvalidSeat', args: ['151'] })
    expect(r.reverts['listing before the lock']).toMatchObject({ status: '0x0', name: 'SeatLocked' })
    expect(r.reverts['transfer before the lock']).toMatchObject({ status: '0x0', name: 'TransfersOnlyThroughDao' })
  })

  it('decides a tie by the holdings of For and Against voters and executes it through the Timelock', () => {
    const win = r.proposals.tieForWins
    expect([win.for, win.against, win.abstain]).toEqual([100n, 100n, 300n])
    expect(win.forHoldings).toBeGreaterThan(win.againstHoldings)
    expect(win.state).toBe('Executed')
    const lose = r.proposals.tieAgainstWins
    expect([lose.for, lose.against]).toEqual([100n, 100n])
    expect(lose.forHoldings).toBeLessThan(lose.againstHoldings)
    expect(lose.state).toBe('Defeated')
    expect(r.documentsAfter).not.toBe(`0x${'00'.repeat(32)}`)
  })

  it('finalizes epochs and splits revenue 50 / 40 / 10, pro rata within tiers, exactly to the wei', () => {
    const [e0, e1] = r.epochs
    expect(e0.credits).toHaveLength(0) // every seat was seated during epoch 0
    expect(e0.carries).toEqual(e0.pools)
    expect(e1.revenue).toBeGreaterThan(1_000_000n * 10n ** 18n) // the deposit plus the block fees
    const tierStake = [0n, 0n, 0n]
    for (const [seat, rs] of e1.rewardStakes) tierStake[tierIndex(seat)] += rs
    for (let t = 0; t < 3; t++) expect(e1.pools[t]).toBe((e1.revenue * SHARE_BPS[t]) / 10_000n + e1.carriesBefore[t])
    expect(e1.credits).toHaveLength(14)
    const credited = [0n, 0n, 0n]
    for (const { seat, amount } of e1.credits) {
      const t = tierIndex(seat)
      expect(amount).toBe((e1.pools[t] * (e1.rewardStakes.get(seat) as bigint)) / tierStake[t])
      credited[t] += amount
    }
    for (let t = 0; t < 3; t++) expect(e1.carries[t]).toBe(e1.pools[t] - credited[t])
    // seat 1 (account 10, topped up) earns more than seat 3 (account 11) within Tier I
    const amountOf = (seat: bigint) => e1.credits.find((c) => c.seat === seat)?.amount as bigint
    expect(amountOf(1n)).toBeGreaterThan(amountOf(3n))
    for (const { owed, paid } of Object.values(r.claims)) expect(paid).toBe(owed)
  })

  it('refuses a newcomer during the first-refusal window and lets a validator buy, moving the votes', () => {
    expect(r.reverts['non-validator purchase during first refusal']).toMatchObject({
      status: '0x0',
      name: 'FirstRefusalWindow',
    })
    expect(r.resale.buyer).toBe(devWallet(17).address)
    expect(r.resale.firstRefusal).toBe(true)
    expect(r.resale.votesBefore).toEqual([10n, 1n])
    expect(r.resale.votesAfter).toEqual([0n, 11n])
  })
})

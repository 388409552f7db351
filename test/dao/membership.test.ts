/**
 * Seats and votes (spec "Validator DAO", "Limits", "DAO tiers"): applications need KYC, the four
 * documents and the tier minimum; the tier is fixed at approval; 150 seats, 10/40/100 per tier,
 * 50/10/1 votes, total 1000; at most two seats per holder by any route; no delegation.
 * Fresh suites on a real dev node with scaled-down minimums (TEST_PARAMS).
 */
import { keccak256, toUtf8Bytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, formHash, identityOf, KYC } from './helpers.js'

/** Gas limits for the pipelined full-house transactions (each measured well below). */
const APPLY_GAS = 500_000n
const APPROVE_GAS = 800_000n
const BLOCK_GAS_LIMIT = 30_000_000n
const FINALIZE_GAS = 15_000_000n
/** FULL_HOUSE_TIMEOUT_MS: ~375 transactions and ~75M gas through the EVM (about 30 s on an idle 2-core box). */
const FULL_HOUSE_TIMEOUT_MS = 240_000

let f: DaoFixture

beforeAll(async () => {
  f = await DaoFixture.start()
})

afterAll(async () => {
  await cleanupNodes()
})

describe('applications', () => {
  let alice: Signer
  let bob: Signer
  let carol: Signer

  beforeAll(async () => {
    ;[alice, bob, carol] = await f.users(3, 100n)
  })

  it('need a valid KYC attestation: missing, expired and revoked all revert KycNotValid', async () => {
    const min = f.params.minStake[2]
    expect(
      await f.revert(alice, 'ValidatorDAO', 'applyForSeat', await f.applyArgs(alice, 3), 'KycNotValid', min),
    ).toEqual([alice.address])
    // expired: valid for 3 s, then the clock moves past it
    const expires = (await f.timestamp()) + 3
    await f.tx(f.a.kyc, 'KycRegistry', 'attest', [
      alice.address,
      identityOf(alice.address),
      KYC.Individual,
      expires,
      keccak256('0x01'),
    ])
    expect(await f.c.KycRegistry.read('isValid', [alice.address])).toBe(true)
    await f.warpTo(expires)
    expect(await f.c.KycRegistry.read('isValid', [alice.address])).toBe(false)
    await f.revert(alice, 'ValidatorDAO', 'applyForSeat', await f.applyArgs(alice, 3), 'KycNotValid', min)
    // revoked
    await f.attest([alice])
    await f.tx(f.a.kyc, 'KycRegistry', 'revoke', [alice.address, keccak256('0x02')])
    await f.revert(alice, 'ValidatorDAO', 'applyForSeat', await f.applyArgs(alice, 3), 'KycNotValid', min)
    // only the attestor attests
    await f.revert(
      alice,
      'KycRegistry',
      'attest',
      [alice.address, identityOf(alice.address), 1, expires + 999, keccak256('0x03')],
      'AccessControlUnauthorizedAccount',
    )
    await f.attest([alice, bob, carol])
  })

  it('need the three current document hashes and an application form hash', async () => {
    const min = f.params.minStake[2]
    const [d, r, m] = await f.documents()
    const form = formHash(alice.address)
    await f.revert(
      alice,
      'ValidatorDAO',
      'applyForSeat',
      [3, d, r, m, `0x${'00'.repeat(32)}`],
      'MissingApplicationForm',
      min,
    )
    await f.revert(alice, 'ValidatorDAO', 'applyForSeat', [3, r, d, m, form], 'StaleDocuments', min)
    // a new risk warning makes the old acknowledgement stale
    const newRisk = keccak256(toUtf8Bytes('risk warning v2'))
    await f.tx(f.a.deployer, 'ValidatorDAO', 'setDocuments', [d, newRisk, m])
    await f.revert(alice, 'ValidatorDAO', 'applyForSeat', [3, d, r, m, form], 'StaleDocuments', min)
    f.forgetDocuments()
    expect(await f.documents()).toEqual([d, newRisk, m])
    await f.revert(alice, 'ValidatorDAO', 'setDocuments', [d, r, m], 'AccessControlUnauthorizedAccount')
  })

  it('need a deposit of at least the tier minimum', async () => {
    for (const tier of [1, 2, 3]) {
      const min = f.params.minStake[tier - 1]
      const args = await f.revert(
        alice,
        'ValidatorDAO',
        'applyForSeat',
        await f.applyArgs(alice, tier),
        'DepositBelowMinimum',
        min - 1n,
      )
      expect(args).toEqual([String(tier), String(min - 1n), String(min)])
    }
    await f.revert(alice, 'ValidatorDAO', 'applyForSeat', await f.applyArgs(alice, 4), 'InvalidTier', COIN)
  })

  it('are refunded in full on rejection and on withdrawal, through withdraw()', async () => {
    const deposit = f.params.minStake[1] + 123_456_789n
    const id = await f.apply(bob, 2, deposit)
    expect((await f.c.ValidatorDAO.read('applicationOf', [id])).status).toBe(1n) // Pending
    await f.revert(bob, 'ValidatorDAO', 'approveApplication', [id], 'AccessControlUnauthorizedAccount')
    await f.tx(f.a.ops, 'ValidatorDAO', 'rejectApplication', [id, keccak256('0xaa')])
    expect(await f.c.ValidatorDAO.read('withdrawable', [bob.address])).toBe(deposit)
    await f.revert(f.a.ops, 'ValidatorDAO', 'approveApplication', [id], 'ApplicationNotPending')

    const id2 = await f.apply(bob, 3, f.params.minStake[2])
    await f.revert(alice, 'ValidatorDAO', 'withdrawApplication', [id2], 'NotApplicant')
    await f.tx(bob, 'ValidatorDAO', 'withdrawApplication', [id2])
    const owed = deposit + f.params.minStake[2]
    expect(await f.c.ValidatorDAO.read('withdrawable', [bob.address])).toBe(owed)
    const before = await f.chain.balance(bob.address)
    const receipt = await f.tx(bob, 'ValidatorDAO', 'withdraw')
    const gas = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
    expect(await f.chain.balance(bob.address)).toBe(before + owed - gas)
    await f.revert(bob, 'ValidatorDAO', 'withdraw', [], 'NothingToWithdraw')
    expect(await f.c.ValidatorDAO.read('pendingApplications', [bob.address])).toBe(0n)
  })

  it('fix the tier at approval: lowest free id, and a Tier III seat with a huge stake keeps 1 vote', async () => {
    const huge = 50n * COIN // 225x the Tier III minimum, 3.5x Tier I's
    const seat = await f.seat(alice, 3, huge)
    expect(seat).toBe(51n)
    expect(await f.c.ValidatorNFT.read('ownerOf', [seat])).toBe(alice.address)
    expect(await f.c.ValidatorNFT.read('tierOf', [seat])).toBe(3n)
    expect(await f.c.ValidatorNFT.read('getVotes', [alice.address])).toBe(1n)
    await f.tx(alice, 'ValidatorDAO', 'topUp', [seat], 20n * COIN)
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(70n * COIN)
    expect(await f.c.ValidatorNFT.read('getVotes', [alice.address])).toBe(1n)
    expect(await f.c.ValidatorNFT.read('tierOf', [seat])).toBe(3n)
    // only the holder tops up
    await f.revert(bob, 'ValidatorDAO', 'topUp', [seat], 'NotSeatHolder', COIN)
  })

  it('an I + III holder has 51 votes; votes cannot be delegated', async () => {
    const seat = await f.seat(alice, 1)
    expect(seat).toBe(1n)
    expect(await f.c.ValidatorNFT.read('getVotes', [alice.address])).toBe(51n)
    expect(await f.c.ValidatorNFT.read('totalVotes')).toBe(51n)
    expect(await f.c.ValidatorNFT.read('delegates', [alice.address])).toBe(alice.address)
    await f.revert(alice, 'ValidatorNFT', 'delegate', [bob.address], 'DelegationDisabled')
    await f.revert(
      alice,
      'ValidatorNFT',
      'delegateBySig',
      [bob.address, 0, 2n ** 40n, 27, `0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`],
      'DelegationDisabled',
    )
    expect(await f.c.ValidatorNFT.read('CLOCK_MODE')).toBe('mode=timestamp')
  })

  it('never give anyone a third seat: application, pending applications, direct mint or transfer', async () => {
    // alice holds 2 seats
    await f.revert(
      alice,
      'ValidatorDAO',
      'applyForSeat',
      await f.applyArgs(alice, 2),
      'SeatLimitReached',
      f.params.minStake[1],
    )
    // carol: one seat and one pending application
    await f.seat(carol, 3)
    await f.apply(carol, 2, f.params.minStake[1])
    await f.revert(
      carol,
      'ValidatorDAO',
      'applyForSeat',
      await f.applyArgs(carol, 3),
      'SeatLimitReached',
      f.params.minStake[2],
    )
    // the NFT itself: only the DAO mints and moves seats
    await f.revert(alice, 'ValidatorNFT', 'mint', [alice.address, 12], 'NotDao')
    await f.revert(alice, 'ValidatorNFT', 'transferFrom', [alice.address, bob.address, 1], 'TransfersOnlyThroughDao')
    await f.revert(
      alice,
      'ValidatorNFT',
      'safeTransferFrom(address,address,uint256)',
      [alice.address, bob.address, 1],
      'TransfersOnlyThroughDao',
    )
    await f.revert(alice, 'ValidatorNFT', 'approve', [bob.address, 1], 'ApprovalsDisabled')
    await f.revert(alice, 'ValidatorNFT', 'setApprovalForAll', [bob.address, true], 'ApprovalsDisabled')
  })

  it('rank institutions first, then stake, then seniority, then id; rank changes no votes', async () => {
    // tier III now: 51 alice (70 coins), 52 carol (minimum). A religious institution at the minimum goes first.
    const [temple] = await f.users(1, 10n)
    await f.attest([temple], KYC.Religious)
    const seat = await f.seat(temple, 3)
    expect(seat).toBe(53n)
    expect((await f.c.DaoLens.read('ranking', [3])).map(Number)).toEqual([53, 51, 52])
    expect((await f.c.ValidatorDAO.read('rankedSeats', [1])).map(Number)).toEqual([1])
    expect(await f.c.ValidatorNFT.read('getVotes', [temple.address])).toBe(1n)
  })
})

describe('a full house', () => {
  let g: DaoFixture
  let holders: Signer[]

  beforeAll(async () => {
    g = await DaoFixture.start({ node: f.node, params: { epochDuration: 5 } })
  })

  it(
    '150 seats (10 / 40 / 100) carry exactly 1000 votes',
    async () => {
      // 75 holders, two seats each: 10 hold I + III, 40 hold II + III, 25 hold III + III
      holders = await g.users(75, 20n)
      await g.attest(holders)
      const docs = await g.documents()
      const plan: [Signer, number][] = []
      holders.forEach((h, i) => {
        const first = i < 10 ? 1 : i < 50 ? 2 : 3
        plan.push([h, first], [h, 3])
      })
      const dao = g.c.ValidatorDAO
      const applies = await g.batch(
        plan.map(([h, tier]) => ({
          signer: h,
          to: dao.address,
          data: dao.encode('applyForSeat', [tier, ...docs, formHash(h.address)]),
          value: g.params.minStake[tier - 1],
          gas: APPLY_GAS,
        })),
      )
      const ids = applies.flatMap((r) =>
        dao
          .events(r)
          .filter((e) => e.name === 'ApplicationSubmitted')
          .map((e) => e.args.id as bigint),
      )
      expect(ids).toHaveLength(150)
      // one more Tier III application, pending while the house fills
      const [late] = await g.users(1, 5n)
      await g.attest([late])
      const lateId = await g.apply(late, 3, g.params.minStake[2])

      await g.batch(
        ids.map((id) => ({
          signer: g.a.ops,
          to: dao.address,
          data: dao.encode('approveApplication', [id]),
          gas: APPROVE_GAS,
        })),
      )
      const tiers = await g.c.DaoLens.read('tiers')
      expect(tiers.map((t: bigint[]) => t[1])).toEqual([10n, 40n, 100n])
      expect(await g.c.ValidatorNFT.read('totalVotes')).toBe(1000n)
      expect(await g.c.ValidatorNFT.read('totalSupply')).toBe(150n)
      let sum = 0n
      for (const h of holders) sum += await g.c.ValidatorNFT.read('getVotes', [h.address])
      expect(sum).toBe(1000n)
      expect((await g.c.DaoLens.read('overview')).totalVotes).toBe(1000n)

      // the late application cannot be seated
      expect(await g.revert(g.a.ops, 'ValidatorDAO', 'approveApplication', [lateId], 'TierFull')).toEqual(['3'])
      await g.tx(g.a.ops, 'ValidatorDAO', 'rejectApplication', [lateId, keccak256('0x')])
    },
    FULL_HOUSE_TIMEOUT_MS,
  )

  it('the 11th Tier I, 41st Tier II, 101st Tier III and any 151st seat revert', async () => {
    const [newcomer] = await g.users(1, 30n)
    await g.attest([newcomer])
    for (const tier of [1, 2, 3]) {
      const args = await g.revert(
        newcomer,
        'ValidatorDAO',
        'applyForSeat',
        await g.applyArgs(newcomer, tier),
        'TierFull',
        g.params.minStake[tier - 1],
      )
      expect(args).toEqual([String(tier)])
    }
    // there is no seat 151 (nor 0)
    await expectInvalidSeat(151)
    await expectInvalidSeat(0)
    expect(await g.c.ValidatorNFT.read('exists', [151])).toBe(false)
  })

  async function expectInvalidSeat(seat: number): Promise<void> {
    const err = await g.c.ValidatorNFT.revertOf(g.a.deployer, 'tierOf', [seat])
    expect(err).toEqual({ name: 'InvalidSeat', args: [String(seat)] })
  }

  it('finalizing an epoch that credits all 150 seats fits in a block', async () => {
    const pool = g.c.RevenuePool
    // epoch 0: every seat was seated during it, so nothing is credited
    await g.warpTo(Number(await pool.read('currentEpochEndsAt')))
    await g.tx(g.a.clock, 'RevenuePool', 'finalize', [0])
    await g.tx(g.a.funder, 'RevenuePool', 'deposit', [keccak256(toUtf8Bytes('ecosystem'))], 1000n * COIN)
    await g.warpTo(Number(await pool.read('currentEpochEndsAt')))
    // sent without eth_estimateGas: ~7 M gas through the node's EVM can pass its 5 s eth_call budget on a busy box
    const receipt = await g.send(g.a.clock, 'RevenuePool', 'finalize', [1], 0n, FINALIZE_GAS)
    const credited = pool.events(receipt).filter((e) => e.name === 'SeatCredited')
    expect(credited).toHaveLength(150)
    const gasUsed = BigInt(receipt.gasUsed)
    expect(gasUsed).toBeLessThan(BLOCK_GAS_LIMIT / 2n)
    console.log(`finalize with 150 credited seats: ${gasUsed} gas`)
    // all of Tier I's 50% went to the ten equal Tier I seats, exactly
    const tierI = credited.filter((e) => e.args.seat <= 10n).map((e) => e.args.amount as bigint)
    expect(new Set(tierI).size).toBe(1)
    expect(tierI[0]).toBe((1000n * COIN * 5000n) / 10_000n / 10n)
  })
})

/**
 * Disputes, access and the public record (spec: "Smart contracts handle ... dispute resolution";
 * "Security measures planned: multi-signature wallets, independent audits, dispute resolution, and
 * a public record of DAO activity on chain"). One suite, one story:
 *
 *   H holds a Tier II seat; F (a KYC-approved member) files cases about it; three arbitrators
 *   decide 2 of 3; H appeals to the Shariah board; remedies suspend votes, hold rewards, freeze
 *   the seat, cancel a listing, and are lifted. Locked coins never move. Then: no role can move
 *   anyone's stake, and every state-changing function of the DAO contracts emits an event.
 */
import { keccak256, toUtf8Bytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, identityOf, KYC, REMEDY, writeFunctions } from './helpers.js'

const CASE = { None: 0n, Filed: 1n, Panel: 2n, Decided: 3n, Appealed: 4n, Closed: 5n }
const CONDUCT = 0
const EVIDENCE = keccak256(toUtf8Bytes('evidence bundle'))

let f: DaoFixture
let H: Signer
let F: Signer
let N: Signer
let X: Signer
let seat: bigint
let arb: Signer[]
let stake: bigint

const caseOf = async (id: number) => f.c.DisputeResolution.read('caseOf', [id])
const votesOfH = async () => f.c.ValidatorNFT.read('getVotes', [H.address])

beforeAll(async () => {
  f = await DaoFixture.start({
    params: {
      lockPeriod: 5,
      firstRefusalWindow: 2,
      epochDuration: 10,
      appealWindow: 10,
      // fee revenue starts long after this story (all its revenue is deposited: ecosystem revenue)
      transactionalRevenueDelay: 1_000,
      minTransactionalRevenueDelay: 1_000,
      maxTransactionalRevenueDelay: 2_000,
    },
  })
  arb = f.a.arbiters
  ;[H, F, N, X] = await f.users(4, 100n)
  await f.attest([H, F, N])
  stake = 5n * COIN
  seat = await f.seat(H, 2, stake)
  await f.seat(F, 3)
  // epoch 0 ends; H's seat earns from epoch 1, which gets 100 coins of revenue
  await f.warpTo(Number(await f.c.RevenuePool.read('currentEpochEndsAt')))
  await f.tx(f.a.clock, 'RevenuePool', 'finalize', [0])
  await f.tx(f.a.funder, 'RevenuePool', 'deposit', [keccak256(toUtf8Bytes('fees'))], 100n * COIN)
})

afterAll(async () => {
  await cleanupNodes()
})

describe('a dispute', () => {
  it('is filed by a KYC-approved account about an existing seat, one open case per seat', async () => {
    await f.revert(X, 'DisputeResolution', 'fileCase', [CONDUCT, seat, EVIDENCE], 'KycNotValid')
    await f.revert(F, 'DisputeResolution', 'fileCase', [CONDUCT, 151, EVIDENCE], 'ERC721NonexistentToken')
    await f.tx(F, 'DisputeResolution', 'fileCase', [CONDUCT, seat, EVIDENCE])
    expect((await caseOf(1)).status).toBe(CASE.Filed)
    expect(await f.revert(N, 'DisputeResolution', 'fileCase', [CONDUCT, seat, EVIDENCE], 'CaseAlreadyOpen')).toEqual([
      String(seat),
      '1',
    ])
  })

  it('gets a panel of three distinct arbitrators, none of them a party', async () => {
    const panel = arb.map((a) => a.address)
    await f.revert(F, 'DisputeResolution', 'assignPanel', [1, panel], 'AccessControlUnauthorizedAccount')
    await f.revert(f.a.ops, 'DisputeResolution', 'assignPanel', [1, [panel[0], panel[0], panel[1]]], 'InvalidPanel')
    await f.revert(f.a.ops, 'DisputeResolution', 'assignPanel', [1, [panel[0], panel[1], F.address]], 'InvalidPanel')
    await f.tx(f.a.ops, 'DisputeResolution', 'assignPanel', [1, panel])
    expect((await caseOf(1)).status).toBe(CASE.Panel)
  })

  it('is decided by two agreeing arbitrators: votes suspended, rewards held, stake untouched', async () => {
    const remedies = REMEDY.SUSPEND | REMEDY.HOLD
    await f.revert(F, 'DisputeResolution', 'castDecision', [1, true, remedies], 'NotOnPanel')
    await f.revert(arb[0], 'DisputeResolution', 'castDecision', [1, true, 0], 'InvalidRemedies')
    await f.tx(arb[0], 'DisputeResolution', 'castDecision', [1, true, remedies])
    await f.revert(arb[0], 'DisputeResolution', 'castDecision', [1, false, 0], 'AlreadyDecided')
    await f.tx(arb[1], 'DisputeResolution', 'castDecision', [1, true, REMEDY.FREEZE]) // disagrees
    expect((await caseOf(1)).status).toBe(CASE.Panel)
    const totalBefore = await f.c.ValidatorNFT.read('totalVotes')
    expect(await votesOfH()).toBe(10n)
    const receipt = await f.tx(arb[2], 'DisputeResolution', 'castDecision', [1, true, remedies])
    expect(f.c.DisputeResolution.events(receipt).map((e) => e.name)).toContain('CaseDecided')
    expect((await caseOf(1)).status).toBe(CASE.Decided)
    expect(await f.c.ValidatorDAO.read('remediesOf', [seat])).toBe(BigInt(remedies))
    // suspended: the votes move to nobody, the seat stays H's
    expect(await votesOfH()).toBe(0n)
    expect(await f.c.ValidatorNFT.read('totalVotes')).toBe(totalBefore - 10n)
    expect(await f.c.ValidatorNFT.read('ownerOf', [seat])).toBe(H.address)
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(stake)
    // held: the epoch's credit for the seat is kept aside
    await f.warpTo(Number(await f.c.RevenuePool.read('currentEpochEndsAt')))
    const fin = await f.tx(f.a.clock, 'RevenuePool', 'finalize', [1])
    const credit = f.c.RevenuePool.events(fin).find((e) => e.name === 'SeatCredited' && e.args.seat === seat)
    expect(credit?.args.held).toBe(true)
    expect(await f.c.RevenuePool.read('heldRewards', [seat])).toBe(credit?.args.amount)
    expect(await f.c.RevenuePool.read('claimable', [H.address])).toBe(0n)
  })

  it('is appealed by a party to the Shariah board, whose ruling replaces the remedies', async () => {
    await f.revert(N, 'DisputeResolution', 'appeal', [1, EVIDENCE], 'NotParty')
    await f.tx(H, 'DisputeResolution', 'appeal', [1, keccak256(toUtf8Bytes('grounds'))])
    expect((await caseOf(1)).status).toBe(CASE.Appealed)
    await f.revert(arb[0], 'DisputeResolution', 'resolveAppeal', [1, true, REMEDY.FREEZE], 'NotFinalAuthority')
    await f.revert(H, 'DisputeResolution', 'closeCase', [1], 'WrongStatus')
    const totalBefore = await f.c.ValidatorNFT.read('totalVotes')
    await f.tx(f.a.shariah, 'DisputeResolution', 'resolveAppeal', [1, true, REMEDY.FREEZE | REMEDY.HOLD])
    expect((await caseOf(1)).status).toBe(CASE.Closed)
    // the suspension is lifted: votes back (the round trip), the seat frozen instead
    expect(await votesOfH()).toBe(10n)
    expect(await f.c.ValidatorNFT.read('totalVotes')).toBe(totalBefore + 10n)
    await f.warpTo(Number(await f.c.ValidatorNFT.read('unlocksAt', [seat])))
    expect(await f.revert(H, 'ValidatorDAO', 'list', [seat, COIN], 'SeatUnderRemedy')).toEqual([String(seat), '5'])
    await f.revert(H, 'ValidatorDAO', 'reduceStake', [seat, 1n], 'SeatUnderRemedy')
    await f.revert(N, 'ValidatorDAO', 'buy', [seat, COIN], 'NotListed', 10n * COIN)
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(stake)
  })

  it('ends when the remedies are lifted: held rewards go to the holder, locked coins never moved', async () => {
    const held = await f.c.RevenuePool.read('heldRewards', [seat])
    await f.revert(arb[0], 'DisputeResolution', 'liftRemedies', [1, true], 'NotFinalAuthority')
    // the admin (the Timelock, through a Governor proposal, on the presets) may lift as well
    await f.tx(f.a.deployer, 'DisputeResolution', 'liftRemedies', [1, true])
    expect(await f.c.ValidatorDAO.read('remediesOf', [seat])).toBe(0n)
    expect(await f.c.RevenuePool.read('heldRewards', [seat])).toBe(0n)
    expect(await f.c.RevenuePool.read('claimable', [H.address])).toBe(held)
    expect(await f.c.DisputeResolution.read('activeCaseOf', [seat])).toBe(0n)
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(stake)
    await f.tx(H, 'RevenuePool', 'claim')
  })

  it('goes back to a new panel after three different rulings; a listing can be cancelled; windows close', async () => {
    await f.send(H, 'ValidatorDAO', 'list', [seat, COIN])
    await f.tx(F, 'DisputeResolution', 'fileCase', [CONDUCT, seat, EVIDENCE])
    const panel = arb.map((a) => a.address)
    await f.tx(f.a.ops, 'DisputeResolution', 'assignPanel', [2, panel])
    await f.tx(arb[0], 'DisputeResolution', 'castDecision', [2, true, REMEDY.CANCEL_LISTING])
    await f.tx(arb[1], 'DisputeResolution', 'castDecision', [2, false, 0])
    const r = await f.tx(arb[2], 'DisputeResolution', 'castDecision', [2, true, REMEDY.FREEZE])
    expect(f.c.DisputeResolution.events(r).map((e) => e.name)).toContain('NoMajority')
    expect((await caseOf(2)).status).toBe(CASE.Filed)
    await f.tx(f.a.ops, 'DisputeResolution', 'assignPanel', [2, panel])
    await f.tx(arb[1], 'DisputeResolution', 'castDecision', [2, true, REMEDY.CANCEL_LISTING])
    await f.tx(arb[2], 'DisputeResolution', 'castDecision', [2, true, REMEDY.CANCEL_LISTING])
    expect((await f.c.ValidatorDAO.read('listingOf', [seat]))[1]).toBe(0n) // not listed any more
    const deadline = Number((await caseOf(2)).appealDeadline)
    await f.revert(F, 'DisputeResolution', 'closeCase', [2], 'AppealWindowOpen')
    await f.warpTo(deadline)
    await f.revert(H, 'DisputeResolution', 'appeal', [2, EVIDENCE], 'AppealWindowClosed')
    await f.tx(F, 'DisputeResolution', 'closeCase', [2])
    expect(await f.c.DisputeResolution.read('activeCaseOf', [seat])).toBe(0n)
  })

  it('may forfeit held rewards back into the revenue pool, never locked coins', async () => {
    await f.tx(F, 'DisputeResolution', 'fileCase', [CONDUCT, seat, EVIDENCE])
    await f.tx(f.a.ops, 'DisputeResolution', 'assignPanel', [3, arb.map((a) => a.address)])
    await f.tx(arb[0], 'DisputeResolution', 'castDecision', [3, true, REMEDY.HOLD])
    await f.tx(arb[1], 'DisputeResolution', 'castDecision', [3, true, REMEDY.HOLD])
    await f.tx(f.a.funder, 'RevenuePool', 'deposit', [keccak256(toUtf8Bytes('fees'))], 50n * COIN)
    await f.warpTo(Number(await f.c.RevenuePool.read('currentEpochEndsAt')))
    await f.tx(f.a.clock, 'RevenuePool', 'finalize', [2])
    const held = await f.c.RevenuePool.read('heldRewards', [seat])
    expect(held).toBeGreaterThan(0n)
    await f.warpTo(Number((await caseOf(3)).appealDeadline))
    await f.tx(N, 'DisputeResolution', 'closeCase', [3])
    const pending = await f.c.RevenuePool.read('pendingRevenue')
    const daoBalance = await f.chain.balance(f.suite.addresses.ValidatorDAO)
    await f.tx(f.a.shariah, 'DisputeResolution', 'liftRemedies', [3, false])
    expect(await f.c.RevenuePool.read('pendingRevenue')).toBe(pending + held)
    expect(await f.c.RevenuePool.read('claimable', [H.address])).toBe(0n)
    expect(await f.chain.balance(f.suite.addresses.ValidatorDAO)).toBe(daoBalance)
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(stake)
  })
})

describe('access', () => {
  it('no role can move anyone else’s stake or seat', async () => {
    for (const role of [f.a.deployer, f.a.ops, f.a.kyc, f.a.shariah, arb[0]]) {
      await f.revert(role, 'ValidatorDAO', 'reduceStake', [seat, 1n], 'NotSeatHolder')
      await f.revert(role, 'ValidatorDAO', 'list', [seat, 1n], 'NotSeatHolder')
      await f.revert(role, 'ValidatorDAO', 'moveSeat', [seat, role.address], 'NotSeatHolder')
      await f.revert(role, 'ValidatorNFT', 'daoTransfer', [H.address, role.address, seat], 'NotDao')
      await f.revert(role, 'ValidatorNFT', 'daoMoveKeepingLock', [H.address, role.address, seat], 'NotDao')
      await f.revert(role, 'ValidatorNFT', 'setSuspended', [seat, true], 'NotDao')
      await f.revert(role, 'RevenuePool', 'noteStake', [seat, 0, true], 'NotDao')
      await f.revert(role, 'RevenuePool', 'setRewardHold', [seat, true, false], 'NotDao')
      await f.revert(
        role,
        'ValidatorDAO',
        'setRemedies',
        [seat, REMEDY.FREEZE, false],
        'AccessControlUnauthorizedAccount',
      )
    }
    // the whole write surface of the DAO: coins leave it only through the caller's own withdraw()
    const writes = writeFunctions(f.c.ValidatorDAO).sort()
    expect(writes).toEqual(
      [
        'applyForSeat',
        'approveApplication',
        'buy',
        'cancelListing',
        'grantRole',
        'list',
        'moveSeat',
        'pause',
        'reduceStake',
        'rejectApplication',
        'renounceRole',
        'revokeRole',
        'setDocuments',
        'setRemedies',
        'topUp',
        'unpause',
        'withdraw',
        'withdrawApplication',
      ].sort(),
    )
  })
})

describe('the public record', () => {
  it('every state-changing function of the DAO contracts emits an event', async () => {
    // what this story has not called yet
    await f.tx(f.a.kyc, 'KycRegistry', 'attest', [
      X.address,
      identityOf(X.address),
      1,
      (await f.timestamp()) + 999,
      EVIDENCE,
    ])
    await f.tx(f.a.kyc, 'KycRegistry', 'revoke', [X.address, EVIDENCE])
    await f.tx(f.a.deployer, 'ValidatorDAO', 'setDocuments', await f.documents())
    await f.tx(f.a.deployer, 'RevenuePool', 'setEpochDuration', [12])
    await f.tx(f.a.deployer, 'RevenuePool', 'setTransactionalRevenueDelay', [1_500])
    // F moves its seat to a second wallet of its KYC identity and back
    const [F2] = await f.users(1, 1n)
    await f.attest([F2], KYC.Individual, identityOf(F.address))
    await f.tx(F, 'ValidatorDAO', 'moveSeat', [51, F2.address])
    await f.tx(F2, 'ValidatorDAO', 'moveSeat', [51, F.address])
    const id = await f.apply(N, 3, f.params.minStake[2])
    await f.tx(N, 'ValidatorDAO', 'withdrawApplication', [id])
    await f.tx(N, 'ValidatorDAO', 'withdraw')
    await f.tx(f.a.ops, 'ValidatorDAO', 'pause')
    await f.tx(f.a.ops, 'ValidatorDAO', 'unpause')
    await f.tx(F, 'ValidatorDAO', 'topUp', [51], COIN)
    await f.warpTo(Number(await f.c.ValidatorNFT.read('unlocksAt', [51])))
    await f.send(F, 'ValidatorDAO', 'reduceStake', [51, COIN])
    await f.send(F, 'ValidatorDAO', 'list', [51, COIN])
    await f.tx(F, 'ValidatorDAO', 'cancelListing', [51])
    await f.send(F, 'ValidatorDAO', 'list', [51, COIN])
    await f.warp(2)
    await f.send(N, 'ValidatorDAO', 'buy', [51, COIN], COIN + f.params.minStake[2])
    const late = await f.apply(X, 3, f.params.minStake[2]).catch(() => undefined) // X lost its KYC
    expect(late).toBeUndefined()
    await f.attest([X])
    await f.tx(f.a.ops, 'ValidatorDAO', 'rejectApplication', [await f.apply(X, 3, f.params.minStake[2]), EVIDENCE])

    // direct calls (this file), and functions only other DAO contracts call, seen by their events
    const direct: Record<string, string[]> = {
      KycRegistry: ['attest', 'attestBatch', 'revoke'],
      ValidatorDAO: [
        'applyForSeat',
        'approveApplication',
        'rejectApplication',
        'withdrawApplication',
        'topUp',
        'reduceStake',
        'list',
        'cancelListing',
        'buy',
        'moveSeat',
        'withdraw',
        'setDocuments',
        'pause',
        'unpause',
      ],
      RevenuePool: ['deposit', 'finalize', 'claim', 'setEpochDuration', 'setTransactionalRevenueDelay'],
      DisputeResolution: [
        'fileCase',
        'assignPanel',
        'castDecision',
        'appeal',
        'resolveAppeal',
        'closeCase',
        'liftRemedies',
      ],
    }
    const indirect: Record<string, [string, string][]> = {
      ValidatorNFT: [
        ['mint', 'Transfer'],
        ['daoTransfer', 'Transfer'],
        ['daoMoveKeepingLock', 'Transfer'],
        ['setSuspended', 'SeatSuspended'],
      ],
      ValidatorDAO: [['setRemedies', 'RemediesChanged']],
      RevenuePool: [
        ['noteStake', 'StakeNoted'],
        ['setRewardHold', 'RewardHoldChanged'],
      ],
    }
    const inherited = new Set([
      'grantRole',
      'revokeRole',
      'renounceRole',
      'transferFrom',
      'safeTransferFrom',
      'approve',
      'setApprovalForAll',
      'delegate',
      'delegateBySig',
    ])
    for (const name of ['KycRegistry', 'ValidatorNFT', 'ValidatorDAO', 'RevenuePool', 'DisputeResolution']) {
      const writes = writeFunctions(f.c[name])
      const covered = new Set([...(direct[name] ?? []), ...(indirect[name] ?? []).map(([fn]) => fn)])
      for (const fn of writes) {
        if (inherited.has(fn)) continue // OpenZeppelin's, with their own events (or reverting always)
        expect(covered.has(fn), `${name}.${fn} is covered`).toBe(true)
      }
      for (const fn of direct[name] ?? []) expect(f.called.has(`${name}.${fn}`), `${name}.${fn} was called`).toBe(true)
      for (const [fn, event] of indirect[name] ?? []) {
        expect(f.seen.has(`${name}.${event}`), `${name}.${fn} emitted ${event}`).toBe(true)
      }
    }
  })
})

/**
 * Proposals and votes (spec: "total voting weight is 1000; a tied proposal is decided by the
 * proportional coin holdings of voters for and against"): DaoGovernor + DaoTimelock on a fresh
 * suite whose admin is the Timelock. All proposals share one snapshot; every vote is cast in one
 * block, so an 8-second voting period is plenty on a chain whose clock we move.
 *
 * The last case moves a governed parameter, the start of transactional revenue, by a proposal.
 *
 *   seats: A Tier I 20 coins · B Tier I 15 coins · E Tier I 20 coins · C Tier II 100 coins
 *   votes: 50 + 50 + 50 + 10 = 160, quorum 40% = 64 (for + against + abstain)
 */
import { keccak256, toUtf8Bytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, VOTE } from './helpers.js'

/** Governor.ProposalState */
const STATE = {
  Pending: 0n,
  Active: 1n,
  Canceled: 2n,
  Defeated: 3n,
  Succeeded: 4n,
  Queued: 5n,
  Expired: 6n,
  Executed: 7n,
}
const PROPOSE_GAS = 1_000_000n
const VOTE_GAS = 500_000n
/** Bounds of the transactional revenue delay in this suite (scaled 12 and 18 months). */
const REVENUE_DELAY_MIN_S = 10_000
const REVENUE_DELAY_MAX_S = 15_000

let f: DaoFixture
let A: Signer
let B: Signer
let E: Signer
let C: Signer
/** proposal key → id */
const P: Record<string, bigint> = {}
let snapshot: bigint
let newDocs: string[]

function docsCall(label: string): { target: string; data: string; docs: string[] } {
  const docs = ['disclaimer', 'risk', 'memo'].map((d) => keccak256(toUtf8Bytes(`${d} ${label}`)))
  return { target: f.suite.addresses.ValidatorDAO, data: f.c.ValidatorDAO.encode('setDocuments', docs), docs }
}

beforeAll(async () => {
  f = await DaoFixture.start({
    admin: 'timelock',
    params: {
      votingPeriod: 8,
      // "months" of ~14 minutes: fee revenue 12-18 of them after launch, far beyond this file's clock
      transactionalRevenueDelay: REVENUE_DELAY_MIN_S,
      minTransactionalRevenueDelay: REVENUE_DELAY_MIN_S,
      maxTransactionalRevenueDelay: REVENUE_DELAY_MAX_S,
    },
  })
  ;[A, B, E, C] = await f.users(4, 200n)
  await f.attest([A, B, E, C])
  await f.seat(A, 1, 20n * COIN)
  await f.seat(B, 1, 15n * COIN)
  await f.seat(E, 1, 20n * COIN)
  await f.seat(C, 2, 100n * COIN)
  await f.warp(1) // proposal threshold: votes one second back
})

afterAll(async () => {
  await cleanupNodes()
})

describe('the Governor', () => {
  it('takes proposals from validators only, with tier-weighted votes at the snapshot', async () => {
    expect(await f.c.ValidatorNFT.read('totalVotes')).toBe(160n)
    expect(await f.c.DaoGovernor.read('COUNTING_MODE')).toBe(
      'support=bravo&quorum=for,against,abstain&tiebreak=holdings',
    )
    const { target, data } = docsCall('by an outsider')
    await f.revert(
      f.a.funder,
      'DaoGovernor',
      'propose',
      [[target], [0], [data], 'outsider'],
      'GovernorInsufficientProposerVotes',
    )

    const gov = f.c.DaoGovernor
    const keys = ['holdingsFor', 'holdingsAgainst', 'holdingsEqual', 'abstainers', 'zeroZero', 'noVotes', 'executed']
    const calls = Object.fromEntries(keys.map((k) => [k, docsCall(k)]))
    newDocs = calls.executed.docs
    const receipts = await f.batch(
      keys.map((k) => ({
        signer: A,
        to: gov.address,
        data: gov.encode('propose', [[calls[k].target], [0], [calls[k].data], `proposal ${k}`]),
        gas: PROPOSE_GAS,
      })),
    )
    for (const [i, r] of receipts.entries()) {
      const ev = gov.events(r).find((e) => e.name === 'ProposalCreated')
      P[keys[i]] = ev?.args.proposalId as bigint
    }
    snapshot = await gov.read('proposalSnapshot', [P.executed])
    for (const k of keys) {
      expect(await gov.read('state', [P[k]])).toBe(STATE.Pending)
      expect(await gov.read('proposalSnapshot', [P[k]])).toBe(snapshot)
    }
  })

  it('counts every vote once, with the holdings of For and Against voters at the snapshot', async () => {
    const gov = f.c.DaoGovernor
    await f.warpTo(Number(snapshot) + 1)
    expect(await gov.read('state', [P.executed])).toBe(STATE.Active)
    const vote = (who: Signer, key: string, support: number) => ({
      signer: who,
      to: gov.address,
      data: gov.encode('castVote', [P[key], support]),
      gas: VOTE_GAS,
    })
    await f.batch([
      // B adds stake after the snapshot: it must not count
      {
        signer: B,
        to: f.c.ValidatorDAO.address,
        data: f.c.ValidatorDAO.encode('topUp', [2]),
        value: 10n * COIN,
        gas: VOTE_GAS,
      },
      vote(A, 'holdingsFor', VOTE.For),
      vote(B, 'holdingsFor', VOTE.Against),
      vote(B, 'holdingsAgainst', VOTE.For),
      vote(A, 'holdingsAgainst', VOTE.Against),
      vote(A, 'holdingsEqual', VOTE.For),
      vote(E, 'holdingsEqual', VOTE.Against),
      vote(A, 'abstainers', VOTE.For),
      vote(B, 'abstainers', VOTE.Against),
      vote(C, 'abstainers', VOTE.Abstain),
      vote(A, 'zeroZero', VOTE.Abstain),
      vote(E, 'zeroZero', VOTE.Abstain),
      vote(A, 'executed', VOTE.For),
      vote(E, 'executed', VOTE.For),
    ])
    // a second vote by the same validator reverts
    expect(
      await f.revert(A, 'DaoGovernor', 'castVote', [P.holdingsFor, VOTE.Against], 'GovernorAlreadyCastVote'),
    ).toEqual([A.address])
    expect(await gov.read('hasVoted', [P.holdingsFor, A.address])).toBe(true)
    expect(await f.c.ValidatorDAO.read('getPastStake', [B.address, snapshot])).toBe(15n * COIN)
    expect(await f.c.ValidatorDAO.read('stakeOfHolder', [B.address])).toBe(25n * COIN)

    const tally = async (k: string) => [...(await gov.read('proposalVotes', [P[k]]))]
    const holdings = async (k: string) => [...(await gov.read('proposalHoldings', [P[k]]))]
    expect(await tally('holdingsFor')).toEqual([50n, 50n, 0n]) // against, for, abstain
    expect(await holdings('holdingsFor')).toEqual([15n * COIN, 20n * COIN]) // HA, HF
    expect(await holdings('holdingsAgainst')).toEqual([20n * COIN, 15n * COIN]) // B's top-up ignored
    expect(await holdings('holdingsEqual')).toEqual([20n * COIN, 20n * COIN])
    expect(await tally('abstainers')).toEqual([50n, 50n, 10n])
    expect(await holdings('abstainers')).toEqual([15n * COIN, 20n * COIN]) // C's 100 coins not counted
    expect(await tally('zeroZero')).toEqual([0n, 0n, 100n])
  })

  it('decides ties by holdings: HF > HA succeeds; HF < HA, HF = HA and 0-0 are defeated', async () => {
    const gov = f.c.DaoGovernor
    const deadline = await gov.read('proposalDeadline', [P.executed])
    await f.warpTo(Number(deadline) + 1)
    const state = async (k: string) => gov.read('state', [P[k]])
    expect(await state('holdingsFor')).toBe(STATE.Succeeded)
    expect(await state('holdingsAgainst')).toBe(STATE.Defeated) // also: B's later top-up (25 > 20) ignored
    expect(await state('holdingsEqual')).toBe(STATE.Defeated)
    expect(await state('abstainers')).toBe(STATE.Succeeded) // abstainers' holdings ignored
    expect(await state('zeroZero')).toBe(STATE.Defeated) // quorum met by abstentions, 0 = 0 and HF = HA = 0
    expect(await state('noVotes')).toBe(STATE.Defeated)
    expect(await state('executed')).toBe(STATE.Succeeded)
    const view = await f.c.DaoLens.read('proposal', [P.holdingsFor])
    expect(view.quorum).toBe(64n)
    expect(view.forHoldings).toBe(20n * COIN)
  })

  it('executes only through the Timelock, after its delay', async () => {
    const gov = f.c.DaoGovernor
    const { target, data } = docsCall('executed')
    const descHash = keccak256(toUtf8Bytes('proposal executed'))
    const args = [[target], [0], [data], descHash]
    // nobody but the Timelock administers the DAO
    await f.revert(A, 'ValidatorDAO', 'setDocuments', newDocs, 'AccessControlUnauthorizedAccount')
    await f.revert(
      A,
      'DaoTimelock',
      'schedule',
      [target, 0, data, `0x${'00'.repeat(32)}`, `0x${'00'.repeat(32)}`, 2],
      'AccessControlUnauthorizedAccount',
    )
    // not queued yet
    await f.revert(A, 'DaoGovernor', 'execute', args, 'GovernorUnexpectedProposalState')
    // a defeated proposal cannot be queued
    const defeated = docsCall('holdingsAgainst')
    await f.revert(
      A,
      'DaoGovernor',
      'queue',
      [[defeated.target], [0], [defeated.data], keccak256(toUtf8Bytes('proposal holdingsAgainst'))],
      'GovernorUnexpectedProposalState',
    )
    await f.tx(E, 'DaoGovernor', 'queue', args)
    expect(await gov.read('state', [P.executed])).toBe(STATE.Queued)
    await f.revert(A, 'DaoGovernor', 'execute', args, 'TimelockUnexpectedOperationState')
    await f.warpTo(Number(await gov.read('proposalEta', [P.executed])))
    const receipt = await f.tx(f.a.clock, 'DaoGovernor', 'execute', args)
    expect(f.c.ValidatorDAO.events(receipt).map((e) => e.name)).toContain('DocumentsUpdated')
    expect(await gov.read('state', [P.executed])).toBe(STATE.Executed)
    expect(await f.c.ValidatorDAO.read('disclaimerHash')).toBe(newDocs[0])
    expect(await f.c.ValidatorDAO.read('riskWarningHash')).toBe(newDocs[1])
    expect(await f.c.ValidatorDAO.read('informationMemorandumHash')).toBe(newDocs[2])
  })

  it('moves the start of transactional revenue only by a passed proposal, within 12-18 months', async () => {
    const gov = f.c.DaoGovernor
    const pool = f.c.RevenuePool
    const launch = Number(await pool.read('launchTime'))
    expect(Number(await pool.read('transactionalRevenueStart'))).toBe(launch + REVENUE_DELAY_MIN_S)
    // no validator, no role sets it directly
    await f.revert(A, 'RevenuePool', 'setTransactionalRevenueDelay', [12_000], 'AccessControlUnauthorizedAccount')
    const data = pool.encode('setTransactionalRevenueDelay', [12_000])
    const description = 'transactional revenue 14.4 scaled months after launch'
    const proposed = await f.tx(A, 'DaoGovernor', 'propose', [[pool.address], [0], [data], description])
    const id = gov.events(proposed).find((e) => e.name === 'ProposalCreated')?.args.proposalId as bigint
    await f.warpTo(Number(await gov.read('proposalSnapshot', [id])) + 1)
    await f.tx(A, 'DaoGovernor', 'castVote', [id, VOTE.For])
    await f.tx(E, 'DaoGovernor', 'castVote', [id, VOTE.For])
    await f.warpTo(Number(await gov.read('proposalDeadline', [id])) + 1)
    const args = [[pool.address], [0], [data], keccak256(toUtf8Bytes(description))]
    await f.tx(E, 'DaoGovernor', 'queue', args)
    await f.warpTo(Number(await gov.read('proposalEta', [id])))
    const receipt = await f.tx(f.a.clock, 'DaoGovernor', 'execute', args)
    const changed = pool.events(receipt).find((e) => e.name === 'TransactionalRevenueDelayChanged')
    expect([changed?.args.oldDelay, changed?.args.newDelay]).toEqual([10_000n, 12_000n])
    expect(Number(await pool.read('transactionalRevenueStart'))).toBe(launch + 12_000)
    // outside the bounds even a passed proposal fails (the Timelock's call reverts)
    const tooLate = await f.c.RevenuePool.revertOf(f.suite.addresses.DaoTimelock, 'setTransactionalRevenueDelay', [
      REVENUE_DELAY_MAX_S + 1,
    ])
    expect(tooLate).toEqual({
      name: 'RevenueDelayOutOfRange',
      args: [String(REVENUE_DELAY_MAX_S + 1), String(REVENUE_DELAY_MIN_S), String(REVENUE_DELAY_MAX_S)],
    })
  })
})

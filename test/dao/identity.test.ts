/**
 * The rules of a validator, not of a wallet (issue 23): a validator is a KYC identity — the
 * attestor's salted commitment (KycRegistry.identityOf), shared by every wallet it verified as one
 * person or entity — and the 2-seat cap, the first-refusal right and the 5-year lock hold per
 * identity over all its wallets. Lock 40 s and first-refusal window 10 s instead of 1827 and 30
 * days; everything through the node's JSON-RPC with signed transactions.
 *
 *   P1 P2 P3  three wallets of one person P      Q1 Q2  two wallets of one company Q
 *   V  a validator of its own                    N  a KYC-approved newcomer
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, identityOf, KYC } from './helpers.js'

const LOCK = 40
const ROFR = 10
const PRICE = 2n * COIN
const P = identityOf('person P')
const Q = identityOf('company Q')

let f: DaoFixture
let P1: Signer
let P2: Signer
let P3: Signer
let Q1: Signer
let Q2: Signer
let V: Signer
let N: Signer
let pSeat: bigint
let vSeat: bigint

const min3 = () => f.params.minStake[2]

beforeAll(async () => {
  f = await DaoFixture.start({ params: { lockPeriod: LOCK, firstRefusalWindow: ROFR } })
  ;[P1, P2, P3, Q1, Q2, V, N] = await f.users(7, 50n)
  await f.attest([P1, P2, P3], KYC.Individual, P)
  await f.attest([Q1, Q2], KYC.Company, Q)
  await f.attest([V, N])
})

afterAll(async () => {
  await cleanupNodes()
})

describe('the attestation binds a wallet to one KYC identity', () => {
  it('records the commitment, never personal data, and refuses to move a wallet to another identity', async () => {
    expect(await f.c.KycRegistry.read('identityOf', [P2.address])).toBe(P)
    expect((await f.c.KycRegistry.read('attestationOf', [Q1.address])).identity).toBe(Q)
    const expires = (await f.timestamp()) + 86_400
    const evidence = identityOf('evidence')
    const args = await f.revert(
      f.a.kyc,
      'KycRegistry',
      'attest',
      [P3.address, Q, KYC.Individual, expires, evidence],
      'IdentityMismatch',
    )
    expect(args).toEqual([P3.address, P, Q])
    await f.revert(
      f.a.kyc,
      'KycRegistry',
      'attest',
      [N.address, `0x${'00'.repeat(32)}`, 1, expires, evidence],
      'InvalidAttestation',
    )
    await f.revert(f.a.kyc, 'KycRegistry', 'attestBatch', [[N.address], [], 1, expires, evidence], 'LengthMismatch')
    // a renewal with the same identity is fine
    await f.tx(f.a.kyc, 'KycRegistry', 'attest', [P3.address, P, KYC.Individual, expires + 365 * 86_400, evidence])
  })
})

describe('at most 2 seats per identity, over all its wallets', () => {
  it('a third seat through a second (or third) wallet of the same identity is refused', async () => {
    pSeat = await f.seat(P1, 3)
    await f.apply(P2, 3, min3()) // P: one seat (P1) + one pending application (P2)
    const pending = await f.revert(
      P3,
      'ValidatorDAO',
      'applyForSeat',
      await f.applyArgs(P3, 3),
      'SeatLimitReached',
      min3(),
    )
    expect(pending).toEqual([P3.address, P])
    await f.approve(await f.c.ValidatorDAO.read('applicationCount'))
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [P])).toBe(2n)
    expect(await f.c.ValidatorDAO.read('pendingOfIdentity', [P])).toBe(0n)
    // each wallet holds one seat, well below the per-address limit, and still P gets no third
    expect(await f.c.ValidatorNFT.read('balanceOf', [P1.address])).toBe(1n)
    expect(await f.c.ValidatorNFT.read('balanceOf', [P2.address])).toBe(1n)
    expect(await f.c.ValidatorNFT.read('balanceOf', [P3.address])).toBe(0n)
    const held = await f.revert(
      P3,
      'ValidatorDAO',
      'applyForSeat',
      await f.applyArgs(P3, 2),
      'SeatLimitReached',
      f.params.minStake[1],
    )
    expect(held).toEqual([P3.address, P])
    // another identity is not affected
    vSeat = await f.seat(V, 3)
    await f.seat(Q1, 3)
    expect(await f.c.ValidatorDAO.read('identityOfSeat', [vSeat])).toBe(identityOf(V.address))
    // what an explorer sees of P3, which holds nothing itself
    const m = await f.c.DaoLens.read('member', [P3.address])
    expect([m.seats.length, m.identity, m.identitySeats, m.identityPending]).toEqual([0, P, 2n, 0n])
  })
})

describe('a seat moved between one identity’s wallets', () => {
  it('keeps its lock: unlocksAt does not move, listing at LOCK - 1 reverts, at LOCK succeeds', async () => {
    const unlock = Number(await f.c.ValidatorNFT.read('unlocksAt', [pSeat]))
    const heldSince = await f.c.ValidatorNFT.read('heldSince', [pSeat])
    const stake = await f.c.ValidatorDAO.read('stakeOf', [pSeat])
    // only to a KYC-valid wallet of the same identity, only by the holder
    await f.revert(P1, 'ValidatorDAO', 'moveSeat', [pSeat, V.address], 'NotSameIdentity')
    await f.revert(P1, 'ValidatorDAO', 'moveSeat', [pSeat, f.a.funder.address], 'KycNotValid')
    await f.revert(P1, 'ValidatorDAO', 'moveSeat', [pSeat, P1.address], 'MoveToSameWallet')
    await f.revert(P3, 'ValidatorDAO', 'moveSeat', [pSeat, P3.address], 'NotSeatHolder')

    const moved = await f.tx(P1, 'ValidatorDAO', 'moveSeat', [pSeat, P3.address])
    expect(await f.blockTime(moved)).toBeLessThan(unlock) // during the lock
    const ev = f.c.ValidatorDAO.events(moved).find((e) => e.name === 'SeatMoved')
    expect([ev?.args.from, ev?.args.to, ev?.args.identity, Number(ev?.args.unlocksAt)]).toEqual([
      P1.address,
      P3.address,
      P,
      unlock,
    ])
    expect(await f.c.ValidatorNFT.read('ownerOf', [pSeat])).toBe(P3.address)
    expect(Number(await f.c.ValidatorNFT.read('unlocksAt', [pSeat]))).toBe(unlock)
    expect(await f.c.ValidatorNFT.read('heldSince', [pSeat])).toBe(heldSince)
    // stake, votes and the identity's count go with it; nothing is sold
    expect(await f.c.ValidatorDAO.read('stakeOf', [pSeat])).toBe(stake)
    expect(await f.c.ValidatorDAO.read('stakeOfHolder', [P1.address])).toBe(0n)
    expect(await f.c.ValidatorDAO.read('stakeOfHolder', [P3.address])).toBe(stake)
    expect(await f.c.ValidatorNFT.read('getVotes', [P1.address])).toBe(0n)
    expect(await f.c.ValidatorNFT.read('getVotes', [P3.address])).toBe(1n)
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [P])).toBe(2n)
    // not reseated: the seat keeps earning in the open epoch
    expect((await f.c.RevenuePool.read('seatStake', [pSeat])).seatedEpochPlusOne).toBe(1n)
    // P1 holds nothing now, and still cannot apply: P holds two seats
    await f.revert(P1, 'ValidatorDAO', 'applyForSeat', await f.applyArgs(P1, 3), 'SeatLimitReached', min3())

    // the lock runs from when P got the seat, not from the move
    const head = await f.warpTo(unlock - 2)
    expect(head).toBe(unlock - 2)
    const failed = await f.sendExpectFailure(P3, 'ValidatorDAO', 'list', [pSeat, PRICE])
    expect(await f.blockTime(failed)).toBe(unlock - 1)
    const reason = await f.c.ValidatorDAO.revertOf(P3, 'list', [pSeat, PRICE], { block: failed.blockNumber })
    expect(reason).toEqual({ name: 'SeatLocked', args: [String(pSeat), String(unlock)] })
    const listed = await f.send(P3, 'ValidatorDAO', 'list', [pSeat, PRICE])
    expect(await f.blockTime(listed)).toBe(unlock)
    // a listed seat is not moved
    await f.revert(P3, 'ValidatorDAO', 'moveSeat', [pSeat, P1.address], 'SeatIsListed')
  })

  it('cannot be bought by its own identity (no sale to oneself to restart anything)', async () => {
    const args = await f.revert(P2, 'ValidatorDAO', 'buy', [pSeat, PRICE], 'SameIdentity', PRICE + min3())
    expect(args).toEqual([String(pSeat), P])
    await f.revert(P1, 'ValidatorDAO', 'buy', [pSeat, PRICE], 'SameIdentity', PRICE + min3())
  })
})

describe('first refusal and resale per identity', () => {
  it('during the window a wallet of a validator identity may buy, a newcomer may not; a full identity may not', async () => {
    const rofrEnds = Number((await f.c.ValidatorDAO.read('listingOf', [pSeat]))[2])
    expect(await f.timestamp()).toBeLessThan(rofrEnds - 1)
    // N: KYC-approved, no seat in any wallet
    await f.revert(N, 'ValidatorDAO', 'buy', [pSeat, PRICE], 'FirstRefusalWindow', PRICE + min3())
    // V's identity is at 1 seat, so V could; Q2 holds nothing itself but Q (through Q1) is a validator
    expect(await f.c.ValidatorNFT.read('balanceOf', [Q2.address])).toBe(0n)
    const receipt = await f.send(Q2, 'ValidatorDAO', 'buy', [pSeat, PRICE], PRICE + min3())
    const sold = f.c.ValidatorDAO.events(receipt).find((e) => e.name === 'SeatSold')
    expect(sold?.args.firstRefusal).toBe(true)
    expect(await f.c.ValidatorDAO.read('identityOfSeat', [pSeat])).toBe(Q)
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [P])).toBe(1n)
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [Q])).toBe(2n)
    // a sale to another identity restarts the lock for the buyer
    expect(Number(await f.c.ValidatorNFT.read('unlocksAt', [pSeat]))).toBe((await f.blockTime(receipt)) + LOCK)
  })

  it('a full identity cannot buy through a wallet holding nothing', async () => {
    // V lists after its lock; Q (2 seats, one in each wallet) cannot take a third
    await f.warpTo(Number(await f.c.ValidatorNFT.read('unlocksAt', [vSeat])))
    await f.send(V, 'ValidatorDAO', 'list', [vSeat, PRICE])
    const args = await f.revert(Q1, 'ValidatorDAO', 'buy', [vSeat, PRICE], 'SeatLimitReached', PRICE + min3())
    expect(args).toEqual([Q1.address, Q])
    // P (one seat left, in P2) may: P1, which holds nothing, buys for P
    const receipt = await f.send(P1, 'ValidatorDAO', 'buy', [vSeat, PRICE], PRICE + min3())
    expect(f.c.ValidatorDAO.events(receipt).find((e) => e.name === 'SeatSold')?.args.firstRefusal).toBe(true)
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [P])).toBe(2n)
    expect(await f.c.ValidatorDAO.read('seatsOfIdentity', [identityOf(V.address)])).toBe(0n)
  })
})

/**
 * Seat transfers (spec "Limits": "eligible only after a 5-year period; resale first offered to
 * existing validators; a non-validator buyer needs KYC approval before transfer"; "at most 2
 * validator NFTs held at one time"). Lock 40 s and first-refusal window 10 s instead of 1827 and
 * 30 days; the chain's clock is moved ahead of the wall clock so the boundary blocks land on
 * exact timestamps.
 *
 *   S seller (Tier II)   V validator (Tier III)   W validator with two seats   Q validator with
 *   one seat and a pending application   N KYC-approved newcomer   X no KYC
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture } from './helpers.js'

const LOCK = 40
const ROFR = 10
const PRICE = 3n * COIN

let f: DaoFixture
let S: Signer
let V: Signer
let W: Signer
let Q: Signer
let N: Signer
let X: Signer
let sSeat: bigint
let wSeats: bigint[]
let unlock: number

beforeAll(async () => {
  f = await DaoFixture.start({ params: { lockPeriod: LOCK, firstRefusalWindow: ROFR } })
  ;[S, V, W, Q, N, X] = await f.users(6, 100n)
  await f.attest([S, V, W, Q, N])
  sSeat = await f.seat(S, 2, 5n * COIN)
  await f.seat(V, 3)
  wSeats = [await f.seat(W, 3), await f.seat(W, 3)]
  await f.seat(Q, 3)
  await f.apply(Q, 3, f.params.minStake[2])
  unlock = Number(await f.c.ValidatorNFT.read('unlocksAt', [sSeat]))
})

afterAll(async () => {
  await cleanupNodes()
})

describe('before the lock', () => {
  it('a holder cannot transfer a seat directly', async () => {
    await f.revert(S, 'ValidatorNFT', 'transferFrom', [S.address, V.address, sSeat], 'TransfersOnlyThroughDao')
    expect(await f.c.ValidatorNFT.read('lockPeriod')).toBe(BigInt(LOCK))
  })

  it('listing at LOCK - 1 reverts SeatLocked; at LOCK it succeeds', async () => {
    const head = await f.warpTo(unlock - 2)
    expect(head).toBe(unlock - 2)
    const failed = await f.sendExpectFailure(S, 'ValidatorDAO', 'list', [sSeat, PRICE])
    expect(await f.blockTime(failed)).toBe(unlock - 1)
    const reason = await f.c.ValidatorDAO.revertOf(S, 'list', [sSeat, PRICE], { block: failed.blockNumber })
    expect(reason).toEqual({ name: 'SeatLocked', args: [String(sSeat), String(unlock)] })

    const listed = await f.send(S, 'ValidatorDAO', 'list', [sSeat, PRICE])
    expect(await f.blockTime(listed)).toBe(unlock)
    const [price, listedAt, rofrEnds] = await f.c.ValidatorDAO.read('listingOf', [sSeat])
    expect([price, Number(listedAt), Number(rofrEnds)]).toEqual([PRICE, unlock, unlock + ROFR])
    await f.revert(S, 'ValidatorDAO', 'list', [sSeat, PRICE], 'AlreadyListed')
  })
})

describe('during the first-refusal window', () => {
  const stake = () => f.params.minStake[1]

  it('a non-validator cannot buy, even with KYC; without KYC nobody can', async () => {
    const args = await f.revert(N, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'FirstRefusalWindow', PRICE + stake())
    expect(args).toEqual([String(sSeat), String(unlock + ROFR)])
    await f.revert(X, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'KycNotValid', PRICE + stake())
  })

  it('below the listed price, below the tier minimum, a third seat or the own seat revert', async () => {
    await f.revert(V, 'ValidatorDAO', 'buy', [sSeat, PRICE - 1n], 'PriceBelowListing', PRICE + stake())
    const low = await f.revert(V, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'DepositBelowMinimum', PRICE + stake() - 1n)
    expect(low).toEqual(['2', String(stake() - 1n), String(stake())])
    await f.revert(W, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'SeatLimitReached', PRICE + stake())
    await f.revert(Q, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'SeatLimitReached', PRICE + stake())
    await f.revert(S, 'ValidatorDAO', 'buy', [sSeat, PRICE], 'CannotBuyOwnSeat', PRICE + stake())
  })

  it('an existing validator buys: the seat, its votes and the stake history move atomically', async () => {
    const before = await f.timestamp()
    const newStake = 4n * COIN
    expect(await f.c.ValidatorNFT.read('getVotes', [S.address])).toBe(10n)
    expect(await f.c.ValidatorNFT.read('getVotes', [V.address])).toBe(1n)
    const receipt = await f.send(V, 'ValidatorDAO', 'buy', [sSeat, PRICE], PRICE + newStake)
    const sold = f.c.ValidatorDAO.events(receipt).find((e) => e.name === 'SeatSold')
    expect(sold?.args.firstRefusal).toBe(true)
    expect(sold?.args.buyer).toBe(V.address)
    const at = await f.blockTime(receipt)
    expect(at).toBeLessThan(unlock + ROFR)

    expect(await f.c.ValidatorNFT.read('ownerOf', [sSeat])).toBe(V.address)
    expect(await f.c.ValidatorNFT.read('getVotes', [S.address])).toBe(0n)
    expect(await f.c.ValidatorNFT.read('getVotes', [V.address])).toBe(11n)
    expect(await f.c.ValidatorNFT.read('totalVotes')).toBe(10n + 4n) // 1 Tier II + 4 Tier III seats
    expect(await f.c.ValidatorNFT.read('tierOf', [sSeat])).toBe(2n)
    expect(await f.c.ValidatorDAO.read('stakeOf', [sSeat])).toBe(newStake)
    // stake history: the seller's 5 coins until the sale, the buyer's from then on
    expect(await f.c.ValidatorDAO.read('getPastStake', [S.address, before])).toBe(5n * COIN)
    expect(await f.c.ValidatorDAO.read('stakeOfHolder', [S.address])).toBe(0n)
    const vMin = f.params.minStake[2]
    expect(await f.c.ValidatorDAO.read('getPastStake', [V.address, before])).toBe(vMin)
    expect(await f.c.ValidatorDAO.read('stakeOfHolder', [V.address])).toBe(vMin + newStake)
    // the buyer's own lock starts now
    const reason = await f.c.ValidatorDAO.revertOf(V, 'list', [sSeat, PRICE])
    expect(reason?.name).toBe('SeatLocked')
    expect(Number(await f.c.ValidatorNFT.read('unlocksAt', [sSeat]))).toBe(at + LOCK)
    // the seller is paid the price and gets its stake back (pull)
    expect(await f.c.ValidatorDAO.read('withdrawable', [S.address])).toBe(PRICE + 5n * COIN)
    const balance = await f.chain.balance(S.address)
    const w = await f.tx(S, 'ValidatorDAO', 'withdraw')
    expect(await f.chain.balance(S.address)).toBe(
      balance + PRICE + 5n * COIN - BigInt(w.gasUsed) * BigInt(w.effectiveGasPrice),
    )
  })
})

describe('after the first-refusal window', () => {
  it('a KYC-approved newcomer buys at or above the listed price; one without KYC cannot', async () => {
    const seat = wSeats[0]
    await f.warpTo(Number(await f.c.ValidatorNFT.read('unlocksAt', [wSeats[1]])))
    const listed = await f.send(W, 'ValidatorDAO', 'list', [seat, PRICE])
    const listedAt = await f.blockTime(listed)
    await f.warpTo(listedAt + ROFR)
    const stake = f.params.minStake[2]
    await f.revert(X, 'ValidatorDAO', 'buy', [seat, PRICE], 'KycNotValid', PRICE + stake)
    await f.revert(N, 'ValidatorDAO', 'buy', [seat, PRICE - 1n], 'PriceBelowListing', PRICE + stake)
    // X passes KYC: it may buy now (above the listed price)
    await f.attest([X])
    const receipt = await f.send(X, 'ValidatorDAO', 'buy', [seat, PRICE + 7n], PRICE + 7n + stake)
    const sold = f.c.ValidatorDAO.events(receipt).find((e) => e.name === 'SeatSold')
    expect(sold?.args.firstRefusal).toBe(false)
    expect(sold?.args.price).toBe(PRICE + 7n)
    expect(await f.c.ValidatorNFT.read('ownerOf', [seat])).toBe(X.address)
    expect(await f.c.ValidatorNFT.read('getVotes', [W.address])).toBe(1n)
    expect(await f.c.ValidatorDAO.read('withdrawable', [W.address])).toBe(PRICE + 7n + stake)
  })

  it('a holder may cancel its listing; nobody else can', async () => {
    const seat = wSeats[1]
    await f.send(W, 'ValidatorDAO', 'list', [seat, PRICE])
    await f.revert(N, 'ValidatorDAO', 'cancelListing', [seat], 'NotSeatHolder')
    await f.tx(W, 'ValidatorDAO', 'cancelListing', [seat])
    await f.revert(N, 'ValidatorDAO', 'buy', [seat, PRICE], 'NotListed', PRICE + COIN)
    // stake above the minimum may be taken back after the lock, never below it
    await f.revert(W, 'ValidatorDAO', 'reduceStake', [seat, 1n], 'StakeBelowMinimum')
    await f.tx(W, 'ValidatorDAO', 'topUp', [seat], COIN)
    await f.tx(W, 'ValidatorDAO', 'reduceStake', [seat, COIN])
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat])).toBe(f.params.minStake[2])
  })
})

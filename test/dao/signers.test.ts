/**
 * ValidatorSigners (issue 19, VALIDATORS.md "Who the validators are"): each seat names the key its
 * node seals with; the holder or the DAO's Timelock sets and rotates it; one key per seat;
 * `validatorSet()` is every minted, unsuspended seat with a signer and stake > 0, power = stake,
 * in ascending signer order. A fresh suite on a real dev node, Tier III minimum 0 so a zero-stake
 * seat exists; the Timelock's call is a real proposal voted through the Governor.
 *
 *   A, B, C, D Tier III seats with 1, 2, 3 and 4 coins     Z Tier III seat with 0 coins
 */
import { keccak256, toUtf8Bytes, Wallet, ZeroAddress } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Signer } from '../../scripts/dao/client.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, REMEDY, SCALED_MIN_STAKE, VOTE } from './helpers.js'

const LOCK = 20
const ROFR = 30
/** Governor.ProposalState.Executed */
const EXECUTED = 7n
const PROPOSE_GAS = 1_000_000n
const VOTE_GAS = 500_000n

let f: DaoFixture
let A: Signer
let B: Signer
let C: Signer
let D: Signer
let Z: Signer
const seat: Record<string, bigint> = {}
/**
 * Fresh signer keys (never funded: a signer only signs seals), in descending address order, so the
 * set's signer order is the reverse of the seats' order and a set left in seat order fails.
 */
const keys = Array.from({ length: 8 }, () => Wallet.createRandom().address).sort((x, y) =>
  BigInt(x) > BigInt(y) ? -1 : 1,
)

interface SetView {
  seats: bigint[]
  signers: string[]
  powers: bigint[]
}

async function validatorSet(block?: string): Promise<SetView> {
  const [seats, signers, powers] = await f.c.ValidatorSigners.read('validatorSet', [], block ? { block } : {})
  return { seats: [...seats], signers: [...signers], powers: [...powers] }
}

/** expected: the set the contract must return for `entries` (seat → signer, power), sorted by signer. */
function expected(entries: [bigint, string, bigint][]): SetView {
  const sorted = [...entries].sort((x, y) => (BigInt(x[1]) < BigInt(y[1]) ? -1 : 1))
  return { seats: sorted.map((e) => e[0]), signers: sorted.map((e) => e[1]), powers: sorted.map((e) => e[2]) }
}

beforeAll(async () => {
  f = await DaoFixture.start({
    params: { lockPeriod: LOCK, firstRefusalWindow: ROFR, minStake: [SCALED_MIN_STAKE[0], SCALED_MIN_STAKE[1], 0n] },
  })
  ;[A, B, C, D, Z] = await f.users(5, 100n)
  await f.attest([A, B, C, D, Z])
  seat.A = await f.seat(A, 3, 1n * COIN)
  seat.B = await f.seat(B, 3, 2n * COIN)
  seat.C = await f.seat(C, 3, 3n * COIN)
  seat.D = await f.seat(D, 3, 4n * COIN)
  seat.Z = await f.seat(Z, 3, 0n)
  // the deployer is the suite's admin: it stands in for DisputeResolution to suspend a seat
  await f.tx(f.a.deployer, 'ValidatorDAO', 'grantRole', [keccak256(toUtf8Bytes('DISPUTE_ROLE')), f.a.deployer.address])
})

afterAll(async () => {
  await cleanupNodes()
})

describe('setSigner', () => {
  it('the holder names a signer; signerOf and seatOf answer; the set lists it with its stake', async () => {
    const s = f.c.ValidatorSigners
    expect(await validatorSet()).toEqual({ seats: [], signers: [], powers: [] })
    expect(await s.read('signerOf', [seat.A])).toBe(ZeroAddress)
    const receipt = await f.tx(A, 'ValidatorSigners', 'setSigner', [seat.A, keys[0]])
    const ev = s.events(receipt).find((e) => e.name === 'SignerSet')
    expect([ev?.args.seat, ev?.args.previous, ev?.args.signer]).toEqual([seat.A, ZeroAddress, keys[0]])
    expect(await s.read('signerOf', [seat.A])).toBe(keys[0])
    expect(await s.read('seatOf', [keys[0]])).toBe(seat.A)
    expect(await validatorSet()).toEqual(expected([[seat.A, keys[0], 1n * COIN]]))
  })

  it('the holder rotates it: the old signer is freed and may be named by another seat', async () => {
    const s = f.c.ValidatorSigners
    const before = await f.chain.rpc('eth_blockNumber')
    const receipt = await f.tx(A, 'ValidatorSigners', 'setSigner', [seat.A, keys[1]])
    const ev = s.events(receipt).find((e) => e.name === 'SignerSet')
    expect([ev?.args.previous, ev?.args.signer]).toEqual([keys[0], keys[1]])
    expect(await s.read('seatOf', [keys[0]])).toBe(0n)
    expect(await s.read('seatOf', [keys[1]])).toBe(seat.A)
    // read at a block: the set before the rotation is still the old one
    expect((await validatorSet(before)).signers).toEqual([keys[0]])
    expect((await validatorSet()).signers).toEqual([keys[1]])
    await f.tx(B, 'ValidatorSigners', 'setSigner', [seat.B, keys[0]])
    expect(await s.read('seatOf', [keys[0]])).toBe(seat.B)
    // naming the same signer again is a no-op that still records itself
    await f.tx(B, 'ValidatorSigners', 'setSigner', [seat.B, keys[0]])
    expect(await s.read('signerOf', [seat.B])).toBe(keys[0])
  })

  it('refuses a non-holder, a signer named by another seat, the zero address and an unminted seat', async () => {
    expect(await f.revert(B, 'ValidatorSigners', 'setSigner', [seat.A, keys[2]], 'NotHolderOrTimelock')).toEqual([
      String(seat.A),
      B.address,
    ])
    // the Ops role holder is no exception: only the holder and the Timelock
    await f.revert(f.a.ops, 'ValidatorSigners', 'setSigner', [seat.A, keys[2]], 'NotHolderOrTimelock')
    expect(await f.revert(C, 'ValidatorSigners', 'setSigner', [seat.C, keys[1]], 'SignerInUse')).toEqual([
      keys[1],
      String(seat.A),
    ])
    await f.revert(C, 'ValidatorSigners', 'setSigner', [seat.C, ZeroAddress], 'ZeroAddress')
    expect(await f.revert(C, 'ValidatorSigners', 'setSigner', [150n, keys[2]], 'NoSuchSeat')).toEqual(['150'])
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.C])).toBe(ZeroAddress)
  })

  it('the Timelock sets any seat’s signer through a passed proposal', async () => {
    const gov = f.c.DaoGovernor
    const target = f.c.ValidatorSigners.address
    const data = f.c.ValidatorSigners.encode('setSigner', [seat.C, keys[2]])
    const description = 'name the signer of seat C'
    await f.warp(1) // proposal threshold: votes one second back
    const proposed = await f.tx(A, 'DaoGovernor', 'propose', [[target], [0], [data], description])
    const id = gov.events(proposed).find((e) => e.name === 'ProposalCreated')?.args.proposalId as bigint
    await f.warpTo(Number(await gov.read('proposalSnapshot', [id])) + 1)
    await f.batch(
      [A, B, C, D].map((who) => ({
        signer: who,
        to: gov.address,
        data: gov.encode('castVote', [id, VOTE.For]),
        gas: VOTE_GAS,
      })),
    )
    await f.warpTo(Number(await gov.read('proposalDeadline', [id])) + 1)
    const args = [[target], [0], [data], keccak256(toUtf8Bytes(description))]
    await f.tx(A, 'DaoGovernor', 'queue', args)
    await f.warpTo(Number(await gov.read('proposalEta', [id])))
    const receipt = await f.send(f.a.clock, 'DaoGovernor', 'execute', args, 0n, PROPOSE_GAS)
    expect(await gov.read('state', [id])).toBe(EXECUTED)
    const ev = f.c.ValidatorSigners.events(receipt).find((e) => e.name === 'SignerSet')
    expect([ev?.args.seat, ev?.args.signer]).toEqual([seat.C, keys[2]])
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.C])).toBe(keys[2])
  })
})

describe('validatorSet', () => {
  it('leaves out seats without a signer and zero-stake seats; orders by signer, power = stake', async () => {
    expect(await f.c.ValidatorDAO.read('stakeOf', [seat.Z])).toBe(0n)
    await f.tx(Z, 'ValidatorSigners', 'setSigner', [seat.Z, keys[3]])
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.Z])).toBe(keys[3])
    // D has no signer yet, Z has no stake: A, B, C only, sorted by signer
    const three = expected([
      [seat.A, keys[1], 1n * COIN],
      [seat.B, keys[0], 2n * COIN],
      [seat.C, keys[2], 3n * COIN],
    ])
    expect(await validatorSet()).toEqual(three)
    // a top-up changes the power at once; a seat that names a signer joins
    await f.tx(D, 'ValidatorSigners', 'setSigner', [seat.D, keys[4]])
    await f.tx(A, 'ValidatorDAO', 'topUp', [seat.A], 5n * COIN)
    expect(await validatorSet()).toEqual(
      expected([
        [seat.A, keys[1], 6n * COIN],
        [seat.B, keys[0], 2n * COIN],
        [seat.C, keys[2], 3n * COIN],
        [seat.D, keys[4], 4n * COIN],
      ]),
    )
    const { signers } = await validatorSet()
    for (let i = 1; i < signers.length; i++) expect(BigInt(signers[i - 1]) < BigInt(signers[i])).toBe(true)
    // a zero-stake seat that tops up joins too
    await f.tx(Z, 'ValidatorDAO', 'topUp', [seat.Z], 1n)
    expect((await validatorSet()).seats).toContain(seat.Z)
  })

  it('a suspended seat leaves the set and returns when the suspension is lifted', async () => {
    await f.tx(f.a.deployer, 'ValidatorDAO', 'setRemedies', [seat.B, REMEDY.SUSPEND, false])
    expect(await f.c.ValidatorNFT.read('isSuspended', [seat.B])).toBe(true)
    const { seats, signers } = await validatorSet()
    expect(seats).not.toContain(seat.B)
    expect(signers).not.toContain(keys[0])
    expect(seats).toHaveLength(4)
    // the suspended seat keeps its signer, and its holder may still rotate it
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.B])).toBe(keys[0])
    await f.tx(f.a.deployer, 'ValidatorDAO', 'setRemedies', [seat.B, 0, false])
    expect((await validatorSet()).seats).toContain(seat.B)
  })
})

describe('a resold seat', () => {
  it('keeps its signer; the seller may no longer set it, the buyer may', async () => {
    const unlock = Number(await f.c.ValidatorNFT.read('unlocksAt', [seat.D]))
    await f.warpTo(unlock)
    await f.tx(D, 'ValidatorDAO', 'list', [seat.D, 1n * COIN])
    // A holds one seat: an existing validator may buy during first refusal
    await f.tx(A, 'ValidatorDAO', 'buy', [seat.D, 1n * COIN], 1n * COIN + 7n * COIN)
    expect(await f.c.ValidatorNFT.read('ownerOf', [seat.D])).toBe(A.address)
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.D])).toBe(keys[4])
    const row = (await validatorSet()).seats.indexOf(seat.D)
    expect((await validatorSet()).powers[row]).toBe(7n * COIN)
    await f.revert(D, 'ValidatorSigners', 'setSigner', [seat.D, keys[5]], 'NotHolderOrTimelock')
    await f.tx(A, 'ValidatorSigners', 'setSigner', [seat.D, keys[5]])
    expect(await f.c.ValidatorSigners.read('seatOf', [keys[4]])).toBe(0n)
    expect(await f.c.ValidatorSigners.read('signerOf', [seat.D])).toBe(keys[5])
  })
})

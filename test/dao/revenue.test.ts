/**
 * Revenue (spec: "Rewards are distributed half-yearly in proportion to stake to the wallet holding
 * the validator NFT; the reward balance is tracked in the DAO contract and consulted when
 * claiming"; tier shares 50 / 40 / 10 %). A fresh RevenuePool with 10-second epochs; every
 * finalization is checked to the wei against a model of the rules:
 *
 *   pool_t = floor(R * share_t / 10000) + carry_t;  seat = floor(pool_t * rewardStake / tierStake)
 *   carry_t' = pool_t - credited_t;  leftover = R - sum(floor(R * share_t / 10000)) stays in R
 *
 *   seats: A Tier I 30 coins · B Tier I 15 coins · C Tier II 3 coins · M (a contract that tries
 *   to reenter claim) Tier II 3 coins · D Tier III, seated later (Tier III is empty until then)
 */
import { Interface, keccak256, toUtf8Bytes } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { BoundContract, Json, Signer } from '../../scripts/dao/client.js'
import { compileContract } from '../helpers/compile.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, formHash, identityOf } from './helpers.js'

const EPOCH = 10
const SHARE_BPS = [5000n, 4000n, 1000n]
const ATTACKERS = '../test/dao/contracts/Attackers.sol'

let f: DaoFixture
let A: Signer
let B: Signer
let C: Signer
let D: Signer
const seats: Record<string, bigint> = {}
let attacker: BoundContract

interface Outcome {
  pools: bigint[]
  credits: Map<bigint, bigint>
  carries: bigint[]
  leftover: bigint
}

/** model: what finalize must do with revenue R, the carries and the seats' reward stakes. */
function model(R: bigint, carries: bigint[], rewardStakes: Map<bigint, bigint>): Outcome {
  const tierOf = (seat: bigint) => (seat <= 10n ? 0 : seat <= 50n ? 1 : 2)
  const tierStake = [0n, 0n, 0n]
  for (const [seat, rs] of rewardStakes) tierStake[tierOf(seat)] += rs
  const base = SHARE_BPS.map((bps) => (R * bps) / 10_000n)
  const pools = base.map((b, t) => b + carries[t])
  const credits = new Map<bigint, bigint>()
  const credited = [0n, 0n, 0n]
  for (const [seat, rs] of rewardStakes) {
    const t = tierOf(seat)
    if (rs === 0n) continue
    const amount = (pools[t] * rs) / tierStake[t]
    if (amount === 0n) continue
    credits.set(seat, amount)
    credited[t] += amount
  }
  return {
    pools,
    credits,
    carries: pools.map((p, t) => p - credited[t]),
    leftover: R - base.reduce((x, y) => x + y, 0n),
  }
}

async function poolState(): Promise<{
  balance: bigint
  claimable: bigint
  held: bigint
  carries: bigint[]
  pending: bigint
}> {
  const pool = f.c.RevenuePool
  return {
    balance: await f.chain.balance(pool.address),
    claimable: await pool.read('totalClaimable'),
    held: await pool.read('totalHeld'),
    carries: [await pool.read('carry', [1]), await pool.read('carry', [2]), await pool.read('carry', [3])],
    pending: await pool.read('pendingRevenue'),
  }
}

/** finalizeChecked: warps to the epoch's end, finalizes, and checks every wei against the model. */
async function finalizeChecked(epoch: number): Promise<{ outcome: Outcome; receipt: Json; R: bigint }> {
  const pool = f.c.RevenuePool
  await f.warpTo(Number(await pool.read('currentEpochEndsAt')))
  const before = await poolState()
  const rewardStakes = new Map<bigint, bigint>()
  for (const seat of Object.values(seats)) rewardStakes.set(seat, await pool.read('rewardStakeOf', [seat]))
  const receipt = await f.tx(f.a.clock, 'RevenuePool', 'finalize', [epoch])
  const events = pool.events(receipt)
  const fin = events.find((e) => e.name === 'EpochFinalized')?.args
  const R = fin.revenue as bigint
  expect(R).toBe(before.pending)
  const outcome = model(R, before.carries, rewardStakes)
  expect([...fin.pools]).toEqual(outcome.pools)
  expect([...fin.carries]).toEqual(outcome.carries)
  const credited = new Map(
    events.filter((e) => e.name === 'SeatCredited').map((e) => [e.args.seat as bigint, e.args.amount as bigint]),
  )
  expect(credited).toEqual(outcome.credits)
  // conservation: R + old carries = credits + new carries + leftover, and the balance is all accounted for
  const sumCredits = [...credited.values()].reduce((x, y) => x + y, 0n)
  const sum = (xs: bigint[]) => xs.reduce((x, y) => x + y, 0n)
  expect(sumCredits + sum(outcome.carries) + outcome.leftover).toBe(R + sum(before.carries))
  const after = await poolState()
  expect(after.balance).toBe(after.claimable + after.held + sum(after.carries) + after.pending)
  expect(after.pending).toBe(outcome.leftover)
  expect(after.claimable).toBe(before.claimable + sumCredits)
  return { outcome, receipt, R }
}

async function deposit(wei: bigint): Promise<void> {
  if (wei > 0n) await f.tx(f.a.funder, 'RevenuePool', 'deposit', [keccak256(toUtf8Bytes('ecosystem revenue'))], wei)
}

beforeAll(async () => {
  f = await DaoFixture.start({ params: { epochDuration: EPOCH } })
  ;[A, B, C, D] = await f.users(4, 100n)
  await f.attest([A, B, C, D])
  seats.A = await f.seat(A, 1, 30n * COIN)
  seats.B = await f.seat(B, 1, 15n * COIN)
  seats.C = await f.seat(C, 2, 3n * COIN)
  // M: a contract validator whose receive() tries to claim again
  const code = compileContract('ReentrantClaimer', ATTACKERS)
  const { address } = await f.chain.deployRaw(
    f.a.deployer,
    'ReentrantClaimer',
    code.bytecode +
      new Interface(code.abi).encodeDeploy([f.suite.addresses.RevenuePool, f.suite.addresses.ValidatorDAO]).slice(2),
  )
  attacker = f.chain.contract('ReentrantClaimer', address, code.abi)
  await f.tx(f.a.kyc, 'KycRegistry', 'attest', [
    address,
    identityOf(address),
    2,
    (await f.timestamp()) + 86_400,
    keccak256('0x01'),
  ])
  await attacker.write(f.a.deployer, 'applyForSeat', [2, ...(await f.documents()), formHash(address)], {
    value: 3n * COIN,
  })
  seats.M = await f.approve(await f.c.ValidatorDAO.read('applicationCount'))
})

afterAll(async () => {
  await cleanupNodes()
})

describe('epochs', () => {
  it('a zero-revenue epoch finalizes cleanly; finalize early, out of order or twice reverts', async () => {
    // epoch 0: every seat was seated during it, nothing to share: R = 0
    const { R, outcome, receipt } = await finalizeChecked(0)
    expect(R).toBe(0n)
    expect(outcome.credits.size).toBe(0)
    expect(await f.c.RevenuePool.read('currentEpoch')).toBe(1n)
    const endsAt = (await f.blockTime(receipt)) + EPOCH
    expect(Number(await f.c.RevenuePool.read('currentEpochEndsAt'))).toBe(endsAt)
    expect(await f.revert(f.a.clock, 'RevenuePool', 'finalize', [1], 'EpochNotOver')).toEqual(['1', String(endsAt)])
    expect(await f.revert(f.a.clock, 'RevenuePool', 'finalize', [2], 'EpochNotCurrent')).toEqual(['2', '1'])
    expect(await f.revert(f.a.clock, 'RevenuePool', 'finalize', [0], 'EpochAlreadyFinalized')).toEqual(['0'])
  })

  it('R = 1 wei and R = 7 wei conserve every wei', async () => {
    await deposit(1n)
    const one = await finalizeChecked(1)
    expect(one.R).toBe(1n)
    expect(one.outcome.credits.size).toBe(0) // 0.5 / 0.4 / 0.1 wei floor to 0: the wei stays unallocated
    await deposit(6n)
    const seven = await finalizeChecked(2)
    expect(seven.R).toBe(7n) // 6 new + the 1 left over
    expect(seven.outcome.pools).toEqual([3n, 2n, 0n])
    expect(seven.outcome.credits.get(seats.A)).toBe(2n) // floor(3 * 30 / 45)
    expect(seven.outcome.credits.get(seats.B)).toBe(1n)
  })

  it('an empty tier carries its share; R = 0 with carries conserves', async () => {
    await deposit(8n) // R = 10 with the 2 wei left over
    const ten = await finalizeChecked(3)
    expect(ten.R).toBe(10n)
    expect(ten.outcome.pools).toEqual([5n, 4n, 1n])
    expect(ten.outcome.carries).toEqual([1n, 0n, 1n]) // Tier I dust, Tier III has no seat
    // D joins Tier III during epoch 4: it earns from epoch 5 on
    seats.D = await f.seat(D, 3)
    expect(await f.c.RevenuePool.read('rewardStakeOf', [seats.D])).toBe(0n)
    const zero = await finalizeChecked(4)
    expect(zero.R).toBe(0n)
    expect(zero.outcome.carries).toEqual([1n, 0n, 1n])
  })

  it('splits 50 / 40 / 10 exactly, pro rata to stake in a tier; a mid-epoch top-up earns from the next epoch', async () => {
    const R = 1000n * COIN
    await deposit(R)
    await f.tx(A, 'ValidatorDAO', 'topUp', [seats.A], 15n * COIN) // 30 -> 45 coins during epoch 5
    expect(await f.c.RevenuePool.read('rewardStakeOf', [seats.A])).toBe(30n * COIN)
    const five = await finalizeChecked(5)
    expect(five.R).toBe(R)
    expect(five.outcome.pools).toEqual([500n * COIN + 1n, 400n * COIN, 100n * COIN + 1n])
    expect(five.outcome.credits.get(seats.A)).toBe(((500n * COIN + 1n) * 30n) / 45n)
    expect(five.outcome.credits.get(seats.B)).toBe(((500n * COIN + 1n) * 15n) / 45n)
    expect(five.outcome.credits.get(seats.C)).toBe(200n * COIN)
    expect(five.outcome.credits.get(seats.M)).toBe(200n * COIN)
    expect(five.outcome.credits.get(seats.D)).toBe(100n * COIN + 1n) // its 10 % plus the carried wei
    // epoch 6: A's 45 coins count now
    expect(await f.c.RevenuePool.read('rewardStakeOf', [seats.A])).toBe(45n * COIN)
    await deposit(400n * COIN)
    const six = await finalizeChecked(6)
    const p1 = six.outcome.pools[0]
    expect(six.outcome.credits.get(seats.A)).toBe((p1 * 45n) / 60n)
    expect(six.outcome.credits.get(seats.B)).toBe((p1 * 15n) / 60n)
  })

  it('coins forced in without a call count as revenue', async () => {
    const force = compileContract('ForceSend', ATTACKERS)
    const iface = new Interface(force.abi)
    const before = await f.c.RevenuePool.read('pendingRevenue')
    const { receipt } = await f.chain.deployRaw(
      f.a.funder,
      'ForceSend',
      force.bytecode + iface.encodeDeploy([f.suite.addresses.RevenuePool]).slice(2),
      { value: 5n * COIN },
    )
    expect(f.c.RevenuePool.events(receipt)).toEqual([]) // no RevenueReceived: nothing was called
    expect(await f.c.RevenuePool.read('pendingRevenue')).toBe(before + 5n * COIN)
    const seven = await finalizeChecked(7)
    expect(seven.R).toBe(before + 5n * COIN)
  })
})

describe('claims', () => {
  it('pay the holder exactly what was credited; a second claim reverts', async () => {
    const owed = await f.c.RevenuePool.read('claimable', [A.address])
    expect(owed).toBeGreaterThan(0n)
    const balance = await f.chain.balance(A.address)
    const receipt = await f.tx(A, 'RevenuePool', 'claim')
    const gas = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
    expect(await f.chain.balance(A.address)).toBe(balance + owed - gas)
    expect(await f.c.RevenuePool.read('claimable', [A.address])).toBe(0n)
    expect(await f.revert(A, 'RevenuePool', 'claim', [], 'NothingToClaim')).toEqual([A.address])
    expect(await f.c.RevenuePool.read('seatEarned', [seats.A])).toBe(owed)
  })

  it('a reentrant claim from the receiver fails and pays nothing twice', async () => {
    const owed = await f.c.RevenuePool.read('claimable', [attacker.address])
    expect(owed).toBeGreaterThan(0n)
    const poolBefore = await f.chain.balance(f.suite.addresses.RevenuePool)
    await attacker.write(f.a.deployer, 'claim')
    expect(await attacker.read('reentered')).toBe(true)
    expect(await attacker.read('received')).toBe(owed)
    const inner = await attacker.read('innerError')
    expect(f.c.RevenuePool.iface.parseError(inner)?.name).toBe('ReentrancyGuardReentrantCall')
    expect(await f.chain.balance(f.suite.addresses.RevenuePool)).toBe(poolBefore - owed)
    expect((await attacker.revertOf(f.a.deployer, 'claim'))?.name).toBe('NothingToClaim')
  })

  it('pausing the DAO stops applications, never claims or withdrawals', async () => {
    const [late] = await f.users(1, 10n)
    await f.attest([late])
    const id = await f.apply(late, 3, f.params.minStake[2])
    await f.tx(f.a.ops, 'ValidatorDAO', 'rejectApplication', [id, keccak256('0x')])
    await f.revert(A, 'ValidatorDAO', 'pause', [], 'AccessControlUnauthorizedAccount')
    await f.tx(f.a.ops, 'ValidatorDAO', 'pause')
    await f.revert(
      late,
      'ValidatorDAO',
      'applyForSeat',
      await f.applyArgs(late, 3),
      'EnforcedPause',
      f.params.minStake[2],
    )
    await f.revert(B, 'ValidatorDAO', 'topUp', [seats.B], 'EnforcedPause', COIN)
    await f.tx(B, 'RevenuePool', 'claim')
    await f.tx(late, 'ValidatorDAO', 'withdraw')
    await f.tx(f.a.ops, 'ValidatorDAO', 'unpause')
  })
})

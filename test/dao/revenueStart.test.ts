/**
 * "Transactional revenue starts 12 to 18 months after ecosystem launch" (issue 23), with real block
 * fees: a dev chain whose genesis routes every fee (base fee and tip) to the RevenuePool of a fresh
 * suite (deployed by dev 0, its address known before the chain starts), with "months" of a few
 * seconds — the delay bounded to [60, 180] s after launch (= the pool's deployment), epochs of 20 s.
 *
 *   epoch 0    seats seated during it: nothing to distribute
 *   epoch 1    before the start: R = the ecosystem revenue deposited, to the wei; the fees of
 *              every block so far stay in the pool (heldTransactionalRevenue), not distributed
 *   epoch 2    finalized after the start: R = ecosystem revenue + every fee held since block 1,
 *              split 50 / 40 / 10 to the wei; only the finalizing transaction's own fee is left
 *
 * The delay is governed: the admin (the Timelock on the presets; here the deployer) moves it
 * within the bounds, and not once the start has passed.
 */
import { getCreateAddress } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Json, Signer } from '../../scripts/dao/client.js'
import { DAO_CONTRACTS, devWallet } from '../../scripts/dao/plan.js'
import { cleanupNodes } from '../helpers/node.js'
import { COIN, DaoFixture, identityOf } from './helpers.js'
import { startPresetNode } from './presetNode.js'

const MIN_DELAY = 60
const MAX_DELAY = 180
const EPOCH = 20
/** Ecosystem revenue of epochs 1 and 2 (odd wei, so the split has a remainder). */
const E1 = 3n * COIN + 7n
const E2 = 2n * COIN + 5n
const SHARE_BPS = [5000n, 4000n, 1000n]
const source = identityOf('treasury: ecosystem revenue')

let f: DaoFixture
let seats: bigint[]
let holders: Signer[]
let launch: number

/** The pool's view `fn` at block `n` (the state a transaction of block n + 1 starts from). */
const poolAt = (fn: string, n: bigint) => f.c.RevenuePool.read(fn, [], { block: `0x${n.toString(16)}` })

function finalized(receipt: Json) {
  return f.c.RevenuePool.events(receipt).find((e) => e.name === 'EpochFinalized')?.args as unknown as {
    revenue: bigint
    transactionalRevenue: bigint
    pools: bigint[]
    credited: bigint[]
    carries: bigint[]
  }
}

function credits(receipt: Json): bigint[] {
  const bySeat = new Map<bigint, bigint>()
  for (const e of f.c.RevenuePool.events(receipt))
    if (e.name === 'SeatCredited') bySeat.set(e.args.seat as bigint, e.args.amount as bigint)
  return seats.map((s) => bySeat.get(s) ?? 0n)
}

beforeAll(async () => {
  // dev 0 deploys the suite first thing on the new chain: the RevenuePool is its 4th creation
  const deployer = devWallet(0).address
  const pool = getCreateAddress({ from: deployer, nonce: DAO_CONTRACTS.indexOf('RevenuePool') })
  const { node } = await startPresetNode('dev', {
    edit: (genesis) => {
      genesis.config.baseFeeRecipient = pool
      genesis.config.ibft.feeRecipient = pool
    },
  })
  f = await DaoFixture.start({
    node,
    params: {
      epochDuration: EPOCH,
      transactionalRevenueDelay: MIN_DELAY,
      minTransactionalRevenueDelay: MIN_DELAY,
      maxTransactionalRevenueDelay: MAX_DELAY,
    },
  })
  expect(f.suite.addresses.RevenuePool).toBe(pool)
  launch = Number(await f.c.RevenuePool.read('launchTime'))
  holders = await f.users(3, 40n)
  await f.attest(holders)
  seats = [await f.seat(holders[0], 1), await f.seat(holders[1], 2), await f.seat(holders[2], 3)]
})

afterAll(async () => {
  await cleanupNodes()
})

describe('the start of transactional revenue', () => {
  it('is launch + a delay the admin sets within the bounds, before the start only', async () => {
    const pool = f.c.RevenuePool
    expect(Number(await pool.read('transactionalRevenueStart'))).toBe(launch + MIN_DELAY)
    await f.revert(holders[0], 'RevenuePool', 'setTransactionalRevenueDelay', [120], 'AccessControlUnauthorizedAccount')
    const low = await f.revert(
      f.a.deployer,
      'RevenuePool',
      'setTransactionalRevenueDelay',
      [59],
      'RevenueDelayOutOfRange',
    )
    expect(low).toEqual(['59', String(MIN_DELAY), String(MAX_DELAY)])
    await f.revert(f.a.deployer, 'RevenuePool', 'setTransactionalRevenueDelay', [181], 'RevenueDelayOutOfRange')
    const r = await f.tx(f.a.deployer, 'RevenuePool', 'setTransactionalRevenueDelay', [120])
    const ev = pool.events(r).find((e) => e.name === 'TransactionalRevenueDelayChanged')
    expect([ev?.args.oldDelay, ev?.args.newDelay, Number(ev?.args.startsAt)]).toEqual([60n, 120n, launch + 120])
    expect(Number(await pool.read('transactionalRevenueStart'))).toBe(launch + 120)
    expect(await pool.read('transactionalRevenueStarted')).toBe(false)
  })

  it('before it, block fees are held in the pool and only ecosystem revenue is distributed, to the wei', async () => {
    const pool = f.c.RevenuePool
    // every block so far paid its fees to the pool, none of them is revenue to distribute yet
    const fees = await pool.read('heldTransactionalRevenue')
    expect(fees).toBeGreaterThan(0n)
    expect(fees).toBe(await f.chain.balance(pool.address))
    expect(await pool.read('pendingRevenue')).toBe(0n)

    await f.warpTo(Number(await pool.read('currentEpochEndsAt')))
    const e0 = finalized(await f.send(f.a.clock, 'RevenuePool', 'finalize', [0]))
    expect([e0.revenue, e0.transactionalRevenue]).toEqual([0n, 0n])

    // ecosystem revenue from the treasury (here dev 7): a labelled deposit and a plain transfer
    await f.tx(f.a.funder, 'RevenuePool', 'deposit', [source], E1 - 7n)
    await f.batch([{ signer: f.a.funder, to: pool.address, value: 7n, gas: 60_000n }])
    expect(await pool.read('pendingEcosystemRevenue')).toBe(E1)
    expect(await pool.read('pendingRevenue')).toBe(E1)

    await f.warpTo(Number(await pool.read('currentEpochEndsAt')))
    const receipt = await f.send(f.a.clock, 'RevenuePool', 'finalize', [1])
    expect(await f.blockTime(receipt)).toBeLessThan(Number(await pool.read('transactionalRevenueStart')))
    const e1 = finalized(receipt)
    expect(e1.revenue).toBe(E1)
    expect(e1.transactionalRevenue).toBe(0n)
    const expected = SHARE_BPS.map((bps) => (E1 * bps) / 10_000n)
    expect(credits(receipt)).toEqual(expected)
    expect(await pool.read('pendingEcosystemRevenue')).toBe(E1 - expected.reduce((a, b) => a + b, 0n))
    // the fees stay, and grew with every block since
    const held = await pool.read('heldTransactionalRevenue')
    expect(held).toBeGreaterThan(fees)
    expect((await pool.read('epochInfo', [1])).transactionalRevenue).toBe(0n)
  })

  it('the first epoch finalized after it distributes every fee held since block 1 with the ecosystem revenue, 50/40/10 to the wei', async () => {
    const pool = f.c.RevenuePool
    await f.tx(f.a.funder, 'RevenuePool', 'deposit', [source], E2)
    const start = Number(await pool.read('transactionalRevenueStart'))
    await f.warpTo(Math.max(start, Number(await pool.read('currentEpochEndsAt'))))
    const receipt = await f.send(f.a.clock, 'RevenuePool', 'finalize', [2])
    const block = BigInt(receipt.blockNumber)
    const parent = block - 1n
    const inBlock = await f.chain.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(inBlock.transactions).toHaveLength(1) // the pool's state at the parent is what finalize saw

    const e2 = finalized(receipt)
    const fees = await poolAt('heldTransactionalRevenue', parent)
    const ecosystem = await poolAt('pendingEcosystemRevenue', parent)
    expect(fees).toBeGreaterThan(0n)
    expect(e2.transactionalRevenue).toBe(fees)
    expect(e2.revenue).toBe(ecosystem + fees)
    expect(ecosystem).toBeGreaterThanOrEqual(E2)
    // one seat per tier, each seated before the epoch: each gets its tier's whole share
    const expected = SHARE_BPS.map((bps) => (e2.revenue * bps) / 10_000n)
    expect(credits(receipt)).toEqual(expected)
    expect([...e2.carries]).toEqual([0n, 0n, 0n])
    const remainder = e2.revenue - expected.reduce((a, b) => a + b, 0n)
    expect(await poolAt('pendingEcosystemRevenue', block)).toBe(remainder)
    // left held: only the fee of the finalizing transaction itself (tip and base fee, paid after it ran)
    const ownFee = BigInt(receipt.gasUsed) * BigInt(receipt.effectiveGasPrice)
    expect(await poolAt('heldTransactionalRevenue', block)).toBe(ownFee)
    // every wei accounted for
    const balance = await f.chain.balance(pool.address, receipt.blockNumber)
    const claimable = await poolAt('totalClaimable', block)
    expect(balance).toBe(claimable + remainder + ownFee)
    for (const [i, h] of holders.entries())
      expect(await pool.read('claimable', [h.address])).toBe(
        (E1 * SHARE_BPS[i]) / 10_000n + (e2.revenue * SHARE_BPS[i]) / 10_000n,
      )

    // once started, the start no longer moves
    const args = await f.revert(
      f.a.deployer,
      'RevenuePool',
      'setTransactionalRevenueDelay',
      [MAX_DELAY],
      'TransactionalRevenueStarted',
    )
    expect(args).toEqual([String(start)])
    expect(await pool.read('transactionalRevenueStarted')).toBe(true)
  })
})

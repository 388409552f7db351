/**
 * The DAO tests' fixture: a real `ibex start --network dev` node, a fresh DAO suite deployed on it
 * with short periods and scaled-down minimums (constructor arguments), and the people who use it:
 *
 *   dev 0 deployer (and admin unless the Timelock is)   dev 1 KYC attestor    dev 2 Ops (membership,
 *   pauser, case manager)   dev 3-5 arbitrators   dev 6 Shariah board   dev 9 moves the clock
 *   validators: fresh random wallets funded by dev 7 (and dev 8)
 *
 * Every successful write through `tx()` must emit at least one event (spec: "a public record of
 * DAO activity on chain"); reverts are checked by their decoded custom error.
 */
import { keccak256, toUtf8Bytes, Wallet } from 'ethers'
import { expect } from 'vitest'
import {
  type BoundContract,
  Chain,
  DaoRevertError,
  type DecodedError,
  type Json,
  type Signer,
  type TxFields,
} from '../../scripts/dao/client.js'
import { deploySuite, type Suite } from '../../scripts/dao/deploy.js'
import { type DaoParams, type DaoRoles, devWallet, PRODUCTION } from '../../scripts/dao/plan.js'
import { type IbexNode, startNode } from '../helpers/node.js'

export const COIN = 10n ** 18n
/** SCALED_MIN_STAKE: the spec's tier minimums / 10^6 (14.285714 / 2.5 / 0.222222 coins), so dev coins fill 150 seats. */
export const SCALED_MIN_STAKE = PRODUCTION.minStake.map((m) => m / 1_000_000n)
export const KYC = { Individual: 1, Company: 2, Government: 3, Religious: 4 } as const
export const VOTE = { Against: 0, For: 1, Abstain: 2 } as const
export const REMEDY = { FREEZE: 1, SUSPEND: 2, HOLD: 4, CANCEL_LISTING: 8 } as const
/** FIXED_GAS for transactions sent without an estimate. */
const FIXED_GAS = 2_000_000n
/** KYC_VALIDITY_S: attestations in the tests last a year. */
const KYC_VALIDITY_S = 365 * 86_400

/** TEST_PARAMS: short periods (seconds) and scaled minimums; tests override what they exercise. */
export const TEST_PARAMS: DaoParams = {
  ...PRODUCTION,
  lockPeriod: 30,
  firstRefusalWindow: 10,
  epochDuration: 10,
  votingDelay: 1,
  votingPeriod: 8,
  timelockDelay: 2,
  appealWindow: 10,
  minStake: SCALED_MIN_STAKE,
  // transactional revenue from the deployment on; the revenue-start tests set their own delay
  transactionalRevenueDelay: 0,
  minTransactionalRevenueDelay: 0,
  maxTransactionalRevenueDelay: 0,
}

/**
 * identityOf: the KYC identity commitment the tests' attestor gives a person (what a real attestor
 * computes as keccak256(salt || its record key); here a label stands for the person).
 */
export function identityOf(person: string): string {
  return keccak256(toUtf8Bytes(`kyc identity of ${person.toLowerCase()}`))
}

export function formHash(label: string): string {
  return keccak256(toUtf8Bytes(`application form of ${label}`))
}

export interface Actors {
  deployer: Signer
  kyc: Signer
  ops: Signer
  arbiters: Signer[]
  shariah: Signer
  clock: Signer
  funder: Signer
}

export interface FixtureOptions {
  params?: Partial<DaoParams>
  /** Admin of the DAO contracts: the deployer (default, for direct admin calls) or the Timelock. */
  admin?: 'deployer' | 'timelock'
  /** An already running node (several fixtures on one chain). */
  node?: IbexNode
}

/** DaoFixture: one node, one deployed suite, the actors. */
export class DaoFixture {
  readonly node: IbexNode
  readonly chain: Chain
  readonly suite: Suite
  readonly a: Actors
  readonly params: DaoParams
  private docs: string[] | undefined

  private constructor(node: IbexNode, chain: Chain, suite: Suite, actors: Actors, params: DaoParams) {
    this.node = node
    this.chain = chain
    this.suite = suite
    this.a = actors
    this.params = params
  }

  static async start(opts: FixtureOptions = {}): Promise<DaoFixture> {
    const node = opts.node ?? (await startNode())
    const chain = new Chain(node.url)
    const dev = (i: number) => chain.signer(devWallet(i).privateKey)
    const a: Actors = {
      deployer: dev(0),
      kyc: dev(1),
      ops: dev(2),
      arbiters: [dev(3), dev(4), dev(5)],
      shariah: dev(6),
      funder: dev(7),
      clock: dev(9),
    }
    const params: DaoParams = { ...TEST_PARAMS, ...opts.params }
    const roles: DaoRoles = {
      kycAttestors: [a.kyc.address],
      membership: [a.ops.address],
      pausers: [a.ops.address],
      caseManagers: [a.ops.address],
      arbitrators: a.arbiters.map((s) => s.address),
      shariahBoard: [a.shariah.address],
      guardian: a.ops.address,
    }
    const suite = await deploySuite(chain, a.deployer, {
      params,
      roles,
      admin: opts.admin === 'timelock' ? undefined : a.deployer.address,
    })
    return new DaoFixture(node, chain, suite, a, params)
  }

  get c(): Record<string, BoundContract> {
    return this.suite.contracts
  }

  /** tx: a successful write that must emit at least one event. */
  async tx(signer: Signer, contract: string, fn: string, args: unknown[] = [], value = 0n): Promise<Json> {
    const receipt = await this.c[contract].write(signer, fn, args, { value })
    this.record(contract, fn, receipt)
    return receipt
  }

  /** Successful direct calls (`Contract.fn`) and the events seen (`Contract.Event`), for coverage checks. */
  readonly called = new Set<string>()
  readonly seen = new Set<string>()

  private record(contract: string, fn: string, receipt: Json): void {
    expect(receipt.logs.length, `${contract}.${fn} emits an event`).toBeGreaterThan(0)
    this.called.add(`${contract}.${fn}`)
    for (const [name, c] of Object.entries(this.c))
      for (const e of c.events(receipt)) this.seen.add(`${name}.${e.name}`)
  }

  /** revert: asserts `fn` reverts with custom error `name` (decoded) and returns its arguments. */
  async revert(
    signer: Signer,
    contract: string,
    fn: string,
    args: unknown[],
    name: string,
    value = 0n,
  ): Promise<string[]> {
    const err = await this.c[contract].revertOf(signer, fn, args, { value })
    expect(err?.name, `${contract}.${fn} reverts with ${name}`).toBe(name)
    return (err as DecodedError).args
  }

  /** users: `n` fresh wallets funded with `coins` each (transfers pipelined from dev 7). */
  async users(n: number, coins: bigint, funder = this.a.funder): Promise<Signer[]> {
    const users = Array.from({ length: n }, () => this.chain.signer(Wallet.createRandom().privateKey))
    await this.batch(users.map((u) => ({ signer: funder, to: u.address, value: coins * COIN, gas: 21_000n })))
    return users
  }

  /** batch: sends `txs` in one JSON-RPC batch and waits for all receipts (all must succeed). */
  async batch(txs: (TxFields & { signer: Signer; gas: bigint })[]): Promise<Json[]> {
    const receipts: Json[] = []
    for (const hash of await this.chain.sendBatch(txs)) receipts.push(await this.chain.receipt(hash))
    for (const r of receipts) expect(r.status, `batched transaction ${r.transactionHash}`).toBe('0x1')
    return receipts
  }

  /**
   * attest: KYC for `users`, each its own identity (identityOf(address)) unless `identity` names
   * the one person or entity all of them are wallets of.
   */
  async attest(users: Signer[], category: number = KYC.Individual, identity?: string): Promise<void> {
    const expires = Math.max(await this.chain.timestamp(), Math.floor(Date.now() / 1000)) + KYC_VALIDITY_S
    await this.tx(this.a.kyc, 'KycRegistry', 'attestBatch', [
      users.map((u) => u.address),
      users.map((u) => identity ?? identityOf(u.address)),
      category,
      expires,
      keccak256(toUtf8Bytes(`kyc evidence bundle ${expires}`)),
    ])
  }

  async documents(): Promise<string[]> {
    if (this.docs === undefined) {
      const dao = this.c.ValidatorDAO
      this.docs = [
        await dao.read('disclaimerHash'),
        await dao.read('riskWarningHash'),
        await dao.read('informationMemorandumHash'),
      ]
    }
    return this.docs
  }

  forgetDocuments(): void {
    this.docs = undefined
  }

  /** applyArgs: the arguments of applyForSeat with the current documents. */
  async applyArgs(user: Signer, tier: number): Promise<unknown[]> {
    return [tier, ...(await this.documents()), formHash(user.address)]
  }

  /** apply: an application with `stake` wei; returns its id. */
  async apply(user: Signer, tier: number, stake: bigint): Promise<bigint> {
    const receipt = await this.tx(user, 'ValidatorDAO', 'applyForSeat', await this.applyArgs(user, tier), stake)
    const ev = this.c.ValidatorDAO.events(receipt).find((e) => e.name === 'ApplicationSubmitted')
    return ev?.args.id as bigint
  }

  async approve(id: bigint): Promise<bigint> {
    const receipt = await this.tx(this.a.ops, 'ValidatorDAO', 'approveApplication', [id])
    const ev = this.c.ValidatorDAO.events(receipt).find((e) => e.name === 'ApplicationApproved')
    return ev?.args.seat as bigint
  }

  /** seat: apply + approve; returns the seat id. */
  async seat(user: Signer, tier: number, stake: bigint = this.params.minStake[tier - 1]): Promise<bigint> {
    return this.approve(await this.apply(user, tier, stake))
  }

  async timestamp(): Promise<number> {
    return this.chain.timestamp()
  }

  /** warpTo: make blocks until the head's timestamp is >= `ts` (the next block lands at head + 1). */
  warpTo(ts: number): Promise<number> {
    return this.chain.warpTo(this.a.clock, ts)
  }

  async warp(seconds: number): Promise<number> {
    return this.warpTo((await this.timestamp()) + seconds)
  }

  /** blockTimestamp of a receipt's block. */
  async blockTime(receipt: Json): Promise<number> {
    const block = await this.chain.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])
    return Number(BigInt(block.timestamp))
  }

  /**
   * send: submit `fn` for real with fixed gas (no estimate: eth_estimateGas runs at the head's
   * timestamp, one second before the transaction's block) and assert success and an event.
   */
  async send(
    signer: Signer,
    contract: string,
    fn: string,
    args: unknown[],
    value = 0n,
    gas = FIXED_GAS,
  ): Promise<Json> {
    const hash = await this.c[contract].send(signer, fn, args, { value, gas })
    const receipt = await this.chain.receipt(hash)
    expect(receipt.status, `${contract}.${fn} succeeds`).toBe('0x1')
    this.record(contract, fn, receipt)
    return receipt
  }

  /** sendExpectFailure: submit `fn` for real with fixed gas and assert the receipt has status 0. */
  async sendExpectFailure(signer: Signer, contract: string, fn: string, args: unknown[], value = 0n): Promise<Json> {
    const hash = await this.c[contract].send(signer, fn, args, { value, gas: FIXED_GAS })
    const receipt = await this.chain.receipt(hash)
    expect(receipt.status, `${contract}.${fn} fails on chain`).toBe('0x0')
    return receipt
  }
}

/** writeFunctions: the names of `contract`'s functions that change state (neither view nor pure). */
export function writeFunctions(contract: BoundContract): string[] {
  const names: string[] = []
  contract.iface.forEachFunction((fn) => {
    if (fn.stateMutability !== 'view' && fn.stateMutability !== 'pure') names.push(fn.name)
  })
  return names
}

/** expectRevert: the promise rejects with DaoRevertError `name`. */
export async function expectRevert(promise: Promise<unknown>, name: string): Promise<DaoRevertError> {
  try {
    await promise
  } catch (err) {
    expect(err).toBeInstanceOf(DaoRevertError)
    expect((err as DaoRevertError).reason).toBe(name)
    return err as DaoRevertError
  }
  throw new Error(`expected a revert with ${name}`)
}

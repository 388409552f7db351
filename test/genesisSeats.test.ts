/**
 * `ibex genesis --validators N` seats its validators in the Validator DAO (issue 19): the README's
 * local-network recipe (`ibex genesis --validators 4 --full-nodes 1 --chain-id 7860 --block-time 1s
 * --prefund …`, then `ibex start --config net/node<i>/config.toml` per node) run through the binary;
 * over JSON-RPC, from block 0, ValidatorSigners.validatorSet() is the four node keys with the Tier III
 * minimum stake each, and the DAO's books agree (seats, votes, KYC, escrowed coin). The seated state
 * is live: a validator's key (the seat's holder) tops up and rotates its signer with ordinary
 * transactions and the set follows, while the network keeps sealing. Plus the refusal of more
 * validators than the DAO has seats, through the binary.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { getAddress, Wallet } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { Chain, type Signer } from '../scripts/dao/client.js'
import { DAO_ADDRESSES, TIER_MIN_STAKE_WEI } from '../scripts/dao/plan.js'
import { REPO_ROOT } from './helpers/compile.js'
import { DEV_ACCOUNTS } from './helpers/dev.js'
import { IBEX_BIN, waitFor } from './helpers/node.js'
import { Cluster, headOf } from './ibft-network/cluster.js'

const CHAIN_ID = 7860
const VALIDATORS = 4
const FULL_NODE = 5
const FUNDED = DEV_ACCOUNTS[0]
/** Tier III: the seats a genesis fills first (ids 51…), at its minimum stake (222,222 coins). */
const FIRST_SEAT = 51n
const MIN_STAKE = TIER_MIN_STAKE_WEI[2] as bigint
const COIN = 10n ** 18n
/** BLOCKS_TIMEOUT_MS: a few 1 s blocks on five processes sharing a loaded 2-core box. */
const BLOCKS_TIMEOUT_MS = 60_000

let net: Cluster
let chain: Chain
/** Validator i's key (holder and signer of seat 51 + i). */
let keys: string[]

interface SetView {
  seats: bigint[]
  signers: string[]
  powers: bigint[]
}

async function validatorSet(block = 'latest'): Promise<SetView> {
  const c = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
  const [seats, signers, powers] = await c.read('validatorSet', [], { block })
  return { seats: [...seats], signers: [...signers], powers: [...powers] }
}

function sortedBySigner(entries: [bigint, string, bigint][]): SetView {
  const s = [...entries].sort((x, y) => (BigInt(x[1]) < BigInt(y[1]) ? -1 : 1))
  return { seats: s.map((e) => e[0]), signers: s.map((e) => e[1]), powers: s.map((e) => e[2]) }
}

beforeAll(async () => {
  net = await Cluster.create({
    validators: VALIDATORS,
    fullNodes: 1,
    chainId: CHAIN_ID,
    blockTime: '1s',
    roundTimeout: '1s',
    prefund: [`${FUNDED.address}=1000ether`],
  })
  keys = Array.from(
    { length: VALIDATORS },
    (_, i) =>
      `0x${readFileSync(join(net.dir, `validator-${i}.key`), 'utf8')
        .trim()
        .replace(/^0x/, '')}`,
  )
  await Promise.all(net.nodes.map((n) => net.start(n.index)))
  chain = new Chain(net.node(FULL_NODE).url)
}, 180_000)

afterAll(async () => {
  await net?.cleanup()
}, 60_000)

describe('a network from ibex genesis --validators 4', () => {
  it('has the four node keys as its validator set from block 0, Tier III minimum stake each', async () => {
    const addresses = keys.map((k) => new Wallet(k).address)
    expect(addresses.map((a) => a.toLowerCase())).toEqual(net.validators)
    const expected = sortedBySigner(addresses.map((a, i) => [FIRST_SEAT + BigInt(i), a, MIN_STAKE]))
    expect(await validatorSet('0x0')).toEqual(expected)
    // the chain runs on it: blocks are sealed and the set is unchanged
    await waitFor(async () => (await headOf(net.node(FULL_NODE).url)) >= 2, {
      timeoutMs: BLOCKS_TIMEOUT_MS,
      what: 'block 2 on the full node',
    })
    expect(await validatorSet()).toEqual(expected)
  })

  it('seats them in the DAO as its own transactions would: holders, votes, KYC, stake escrowed', async () => {
    const nft = chain.contract('ValidatorNFT', DAO_ADDRESSES.ValidatorNFT)
    const dao = chain.contract('ValidatorDAO', DAO_ADDRESSES.ValidatorDAO)
    const kyc = chain.contract('KycRegistry', DAO_ADDRESSES.KycRegistry)
    const signers = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
    for (const [i, key] of keys.entries()) {
      const address = new Wallet(key).address
      const seat = FIRST_SEAT + BigInt(i)
      expect(await nft.read('ownerOf', [seat])).toBe(address)
      expect(await nft.read('getVotes', [address])).toBe(1n)
      expect(await kyc.read('isValid', [address])).toBe(true)
      expect(await dao.read('stakeOf', [seat])).toBe(MIN_STAKE)
      expect(await signers.read('signerOf', [seat])).toBe(address)
      expect(await signers.read('seatOf', [address])).toBe(seat)
      expect(await dao.read('pendingApplications', [address])).toBe(0n)
      // the stake was created for the genesis: the holder's own balance is untouched (0 here)
      expect(await chain.balance(address, '0x0')).toBe(0n)
    }
    expect(await nft.read('totalVotes')).toBe(BigInt(VALIDATORS))
    expect(await dao.read('seatedCount', [3])).toBe(BigInt(VALIDATORS))
    expect(await dao.read('totalStake')).toBe(MIN_STAKE * BigInt(VALIDATORS))
    expect(await chain.balance(DAO_ADDRESSES.ValidatorDAO, '0x0')).toBe(MIN_STAKE * BigInt(VALIDATORS))
    expect(await dao.read('applicationCount')).toBe(BigInt(VALIDATORS))
  })

  it('is live state: a validator key tops up its seat and rotates its signer; the set follows', async () => {
    const funder = chain.signer(FUNDED.privateKey)
    const v0: Signer = chain.signer(keys[0] as string)
    const v1: Signer = chain.signer(keys[1] as string)
    for (const v of [v0, v1])
      await chain.receipt(await chain.sendTx(funder, { to: v.address, value: 20n * COIN, gas: 21_000n }))
    const dao = chain.contract('ValidatorDAO', DAO_ADDRESSES.ValidatorDAO)
    const signers = chain.contract('ValidatorSigners', DAO_ADDRESSES.ValidatorSigners)
    await dao.write(v1, 'topUp', [FIRST_SEAT + 1n], { value: 5n * COIN })
    const rotated = getAddress(Wallet.createRandom().address)
    await signers.write(v0, 'setSigner', [FIRST_SEAT, rotated])
    const set = await validatorSet()
    const row = (seat: bigint) => set.seats.indexOf(seat)
    expect(set.signers[row(FIRST_SEAT)]).toBe(rotated)
    expect(set.powers[row(FIRST_SEAT + 1n)]).toBe(MIN_STAKE + 5n * COIN)
    expect(set.signers.map((s) => BigInt(s))).toEqual(
      set.signers.map((s) => BigInt(s)).sort((x, y) => (x < y ? -1 : 1)),
    )
    expect(await signers.read('seatOf', [v0.address])).toBe(0n)
    // and the network keeps sealing
    const head = await headOf(net.node(FULL_NODE).url)
    await waitFor(async () => (await headOf(net.node(FULL_NODE).url)) >= head + 2, {
      timeoutMs: BLOCKS_TIMEOUT_MS,
      what: 'two more blocks',
    })
  })
})

describe('ibex genesis', () => {
  it('refuses more validators than the DAO has seats, writing nothing', () => {
    const out = join(mkdtempSync(join(tmpdir(), 'ibex-seats-')), 'net')
    try {
      let status = 0
      let stderr = ''
      try {
        execFileSync(process.execPath, [IBEX_BIN, 'genesis', '--validators', '151', '--out', out], {
          cwd: REPO_ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
        })
      } catch (err) {
        status = (err as { status: number }).status
        stderr = String((err as { stderr: string }).stderr)
      }
      expect(status).toBe(2)
      expect(stderr).toContain('151 validators cannot all be seated: the Validator DAO has 150 free seats of 150')
      expect(existsSync(out)).toBe(false)
    } finally {
      rmSync(join(out, '..'), { recursive: true, force: true })
    }
  })
})

/**
 * The DAO as the presets carry it: at its fixed addresses from block 0 on `ibex start --network
 * dev`, with the Timelock as admin, dev accounts holding the KYC and Ops roles, the Safes set up,
 * the base fee and tip of every block paid to the RevenuePool; the mainnet preset with the
 * production values (read over JSON-RPC from the contracts of a node started on the mainnet
 * genesis); and the committed artifacts reproducible from source.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { concat, getBytes, keccak256, SigningKey, toBeHex, toUtf8Bytes, ZeroAddress } from 'ethers'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { buildAll } from '../../scripts/compile-contracts.js'
import { artifact, Chain, type Signer } from '../../scripts/dao/client.js'
import { genesisSuite, type Suite } from '../../scripts/dao/deploy.js'
import { DAO_ADDRESSES, devWallet, PRODUCTION, TIER_MIN_STAKE_WEI } from '../../scripts/dao/plan.js'
import { loadPresetGenesis } from '../../src/config/genesis.js'
import { REPO_ROOT } from '../helpers/compile.js'
import { cleanupNodes, type IbexNode, startNode } from '../helpers/node.js'

const DAY = 86_400
/** BUILD_TIMEOUT_MS: solc-js compiles 90 sources (about 10 s idle, several times that on a busy box). */
const BUILD_TIMEOUT_MS = 240_000
const role = (name: string) => keccak256(toUtf8Bytes(name))
const ADMIN_ROLE = `0x${'00'.repeat(32)}`

let node: IbexNode
let chain: Chain
let dao: Suite
const dev = (i: number): Signer => chain.signer(devWallet(i).privateKey)

beforeAll(async () => {
  node = await startNode()
  chain = new Chain(node.url)
  dao = genesisSuite(chain)
})

afterAll(async () => {
  await cleanupNodes()
})

describe('the dev preset', () => {
  it('carries every DAO contract at its documented address from block 0', async () => {
    const documented = JSON.parse(readFileSync(join(REPO_ROOT, 'deploy', 'dao-addresses.json'), 'utf8'))
    expect(documented.dev).toEqual(DAO_ADDRESSES)
    expect(documented.mainnet).toEqual(DAO_ADDRESSES)
    const genesis = JSON.parse(readFileSync(join(REPO_ROOT, 'contracts', 'genesis', 'dev.json'), 'utf8'))
    for (const [name, address] of Object.entries(DAO_ADDRESSES)) {
      const code = await chain.rpc('eth_getCode', [address, '0x0'])
      expect(code, name).toBe(genesis.alloc[address].code)
      const artifactName = name.endsWith('Safe') ? 'SafeProxy' : name
      expect((code.length - 2) / 2, name).toBe((artifact(artifactName).deployedBytecode.length - 2) / 2)
    }
    const o = await dao.contracts.DaoLens.read('overview', [], { block: '0x0' })
    expect(o.totalVotes).toBe(0n)
    expect(o.currentEpoch).toBe(0n)
  })

  it('makes the Timelock the admin of everything and gives dev accounts the KYC and Ops roles', async () => {
    const c = dao.contracts
    const tl = DAO_ADDRESSES.DaoTimelock
    for (const name of ['KycRegistry', 'ValidatorDAO', 'RevenuePool', 'DisputeResolution']) {
      expect(await c[name].read('hasRole', [ADMIN_ROLE, tl]), `${name} admin`).toBe(true)
      expect(await c[name].read('hasRole', [ADMIN_ROLE, dev(0).address]), `${name} admin`).toBe(false)
    }
    expect(await c.DaoTimelock.read('hasRole', [role('PROPOSER_ROLE'), DAO_ADDRESSES.DaoGovernor])).toBe(true)
    expect(await c.DaoTimelock.read('hasRole', [role('EXECUTOR_ROLE'), ZeroAddress])).toBe(true)
    expect(await c.DaoTimelock.read('hasRole', [role('CANCELLER_ROLE'), DAO_ADDRESSES.OpsSafe])).toBe(true)
    expect(await c.DaoGovernor.read('timelock')).toBe(tl)
    expect(await c.KycRegistry.read('hasRole', [role('KYC_ATTESTOR_ROLE'), dev(1).address])).toBe(true)
    expect(await c.ValidatorDAO.read('hasRole', [role('MEMBERSHIP_ROLE'), dev(2).address])).toBe(true)
    expect(await c.ValidatorDAO.read('hasRole', [role('MEMBERSHIP_ROLE'), DAO_ADDRESSES.OpsSafe])).toBe(true)
    expect(await c.ValidatorDAO.read('hasRole', [role('DISPUTE_ROLE'), DAO_ADDRESSES.DisputeResolution])).toBe(true)
    expect(await c.DisputeResolution.read('hasRole', [role('ARBITRATOR_ROLE'), dev(3).address])).toBe(true)
    expect(
      await c.DisputeResolution.read('hasRole', [role('SHARIAH_BOARD_ROLE'), DAO_ADDRESSES.ShariahBoardSafe]),
    ).toBe(true)
    expect([...(await c.OpsSafe.read('getOwners'))]).toEqual([dev(0).address, dev(1).address, dev(2).address])
    expect(await c.OpsSafe.read('getThreshold')).toBe(2n)
    expect(await c.OpsSafe.read('VERSION')).toBe('1.4.1')
    // production amounts on dev too; the applicant accounts 10-19 of the test mnemonic can afford them
    for (const tier of [1, 2, 3])
      expect(await c.ValidatorDAO.read('minStake', [tier])).toBe(TIER_MIN_STAKE_WEI[tier - 1])
    expect(await chain.balance(devWallet(10).address)).toBe(30_000_000n * 10n ** 18n)
  })

  it('pays the base fee and the tip of every block to the RevenuePool, its miner', async () => {
    const pool = DAO_ADDRESSES.RevenuePool
    const hash = await chain.sendTx(dev(8), { to: dev(8).address, gas: 21_000n })
    const receipt = await chain.receipt(hash)
    const block = await chain.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])
    expect(block.miner).toBe(pool.toLowerCase())
    const parent = `0x${(BigInt(receipt.blockNumber) - 1n).toString(16)}`
    const gained = (await chain.balance(pool, receipt.blockNumber)) - (await chain.balance(pool, parent))
    const tip = BigInt(receipt.effectiveGasPrice) - BigInt(block.baseFeePerGas)
    expect(tip).toBeGreaterThan(0n)
    expect(gained).toBe((BigInt(block.baseFeePerGas) + tip) * BigInt(block.gasUsed))
    // the dev chain's transactional start (genesis time 0 + 120 s) is long past: all of it is R
    expect(await dao.contracts.RevenuePool.read('transactionalRevenueStarted')).toBe(true)
    expect(await dao.contracts.RevenuePool.read('pendingRevenue')).toBe(await chain.balance(pool))
  })

  it('runs the Ops Safe 2 of 3: an attestation through execTransaction, recorded by SafeMultiSigTransaction', async () => {
    const safe = dao.contracts.OpsSafe
    const applicant = devWallet(11).address
    const data = dao.contracts.KycRegistry.encode('attest', [
      applicant,
      keccak256(toUtf8Bytes('identity of dev 11')),
      2,
      4_000_000_000,
      keccak256('0x5afe'),
    ])
    const nonce = await safe.read('nonce')
    const txArgs = [DAO_ADDRESSES.KycRegistry, 0, data, 0, 0, 0, 0, ZeroAddress, ZeroAddress]
    const safeTxHash = await safe.read('getTransactionHash', [...txArgs, nonce])
    const owners = [devWallet(0), devWallet(2)].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1))
    const sign = (key: string) => {
      const s = new SigningKey(key).sign(getBytes(safeTxHash))
      return concat([s.r, s.s, toBeHex(s.v, 1)])
    }
    const single = sign(owners[0].privateKey)
    expect((await safe.revertOf(dev(5), 'execTransaction', [...txArgs, single]))?.args).toEqual(['GS020'])
    const signatures = concat(owners.map((o) => sign(o.privateKey)))
    const receipt = await safe.write(dev(5), 'execTransaction', [...txArgs, signatures])
    const names = safe.events(receipt).map((e) => e.name)
    expect(names).toContain('SafeMultiSigTransaction')
    expect(names).toContain('ExecutionSuccess')
    expect(await dao.contracts.KycRegistry.read('isValid', [applicant])).toBe(true)
    expect((await dao.contracts.KycRegistry.read('attestationOf', [applicant])).attestor).toBe(DAO_ADDRESSES.OpsSafe)
  })
})

describe('the mainnet preset', () => {
  let main: Chain

  beforeAll(async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-dao-mainnet-'))
    const file = join(dir, 'genesis.json')
    writeFileSync(file, JSON.stringify(loadPresetGenesis('mainnet')))
    const mainNode = await startNode({ args: ['--genesis', file] })
    main = new Chain(mainNode.url)
  })

  it('carries the DAO with the production values, read from the contracts themselves', async () => {
    expect(await main.chainId()).toBe(786n)
    const c = genesisSuite(main).contracts
    const genesisTime = BigInt((await main.rpc('eth_getBlockByNumber', ['0x0', false])).timestamp)
    expect(await c.ValidatorNFT.read('lockPeriod')).toBe(BigInt(1827 * DAY)) // 5 years, two leap days
    expect(await c.ValidatorNFT.read('MAX_SEATS_PER_HOLDER')).toBe(2n)
    expect(await c.ValidatorDAO.read('MAX_SEATS_PER_IDENTITY')).toBe(2n)
    expect(await c.ValidatorDAO.read('firstRefusalWindow')).toBe(BigInt(30 * DAY))
    expect(await c.RevenuePool.read('epochDuration')).toBe(15_778_800n) // 182.625 days: half a Julian year
    expect(2n * (await c.RevenuePool.read('epochDuration'))).toBe(BigInt(365.25 * DAY))
    // transactional revenue: 12 months (of 30.4375 days) after the launch = the genesis, governed within 12-18
    expect(await c.RevenuePool.read('launchTime')).toBe(genesisTime)
    expect(await c.RevenuePool.read('transactionalRevenueDelay')).toBe(BigInt(365.25 * DAY))
    expect(await c.RevenuePool.read('minTransactionalRevenueDelay')).toBe(BigInt(365.25 * DAY))
    expect(await c.RevenuePool.read('maxTransactionalRevenueDelay')).toBe(BigInt(1.5 * 365.25 * DAY))
    expect(await c.RevenuePool.read('transactionalRevenueStart')).toBe(genesisTime + BigInt(365.25 * DAY))
    expect(await c.RevenuePool.read('hasRole', [ADMIN_ROLE, DAO_ADDRESSES.DaoTimelock])).toBe(true)
    expect(await c.DaoGovernor.read('votingDelay')).toBe(BigInt(DAY))
    expect(await c.DaoGovernor.read('votingPeriod')).toBe(BigInt(7 * DAY))
    expect(await c.DaoGovernor.read('quorumNumerator()')).toBe(40n)
    expect(await c.DaoGovernor.read('proposalThreshold')).toBe(1n)
    expect(await c.DaoTimelock.read('getMinDelay')).toBe(BigInt(2 * DAY))
    expect(await c.DisputeResolution.read('appealWindow')).toBe(BigInt(14 * DAY))
    const tiers = await c.DaoLens.read('tiers')
    expect(tiers.map((t: bigint[]) => [t[2], t[3], t[4], t[5]])).toEqual([
      [10n, 50n, 14_285_714n * 10n ** 18n, 5000n],
      [40n, 10n, 2_500_000n * 10n ** 18n, 4000n],
      [100n, 1n, 222_222n * 10n ** 18n, 1000n],
    ])
    expect(PRODUCTION.minStake).toEqual(TIER_MIN_STAKE_WEI)
    // no dev account has any role on mainnet; the Ops Safe holds them (3 of 4 placeholder owners)
    expect(await c.KycRegistry.read('hasRole', [role('KYC_ATTESTOR_ROLE'), devWallet(1).address])).toBe(false)
    expect(await c.KycRegistry.read('hasRole', [role('KYC_ATTESTOR_ROLE'), DAO_ADDRESSES.OpsSafe])).toBe(true)
    expect(await c.OpsSafe.read('getThreshold')).toBe(3n)
    expect(await c.RevenuePool.read('currentEpochStart')).toBe(
      BigInt((await main.rpc('eth_getBlockByNumber', ['0x0', false])).timestamp),
    )
    expect(loadPresetGenesis('mainnet').config.baseFeeRecipient).toBe(DAO_ADDRESSES.RevenuePool)
    expect(loadPresetGenesis('mainnet').config.ibft?.feeRecipient).toBe(DAO_ADDRESSES.RevenuePool)
    expect(Object.keys(loadPresetGenesis('testnet').alloc)).toEqual(
      expect.arrayContaining(Object.values(DAO_ADDRESSES)),
    )
  })
})

describe('the build', () => {
  it(
    'reproduces every committed artifact, ABI, genesis file and address list from source',
    async () => {
      const files = await buildAll()
      expect(files.size).toBeGreaterThan(30)
      for (const [path, content] of files) {
        expect(readFileSync(path, 'utf8') === content, `${path} is up to date (npm run contracts)`).toBe(true)
      }
      const input = JSON.parse(readFileSync(join(REPO_ROOT, 'contracts', 'build', 'solc-input.json'), 'utf8'))
      expect(input.settings.evmVersion).toBe('prague')
      expect(Object.keys(input.sources)).toContain('contracts/dao/ValidatorDAO.sol')
    },
    BUILD_TIMEOUT_MS,
  )
})

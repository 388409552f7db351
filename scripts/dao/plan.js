/**
 * The Validator DAO deployment plan: fixed addresses, per-network parameters, and the constructor
 * arguments of every contract as a function of (addresses, parameters). Used by the genesis
 * builder (contracts at fixed addresses) and by the tests (fresh deployments at CREATE addresses).
 *
 * Dependencies between constructors: the NFT must have code before the Governor is constructed
 * (its quorum checkpoint reads the token's clock); every other reference is just an address, so
 * the order below with precomputed addresses suffices.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'

import { RLP } from '@ethereumjs/rlp'
import { getAddress, HDNodeWallet, id as keccakText, ZeroAddress } from 'ethers'

import { REPO_ROOT } from './solc.js'

const DAY = 86_400
/** MONTH: a twelfth of the Julian year (30.4375 days), the year of the half-year epochs. */
const MONTH = 2_629_800
const COIN = 10n ** 18n

/** ADDRESSES: where every preset carries the DAO (identical on dev, testnet and mainnet). */
export const DAO_ADDRESSES = Object.freeze(
  Object.fromEntries(
    Object.entries({
      KycRegistry: 'da0001',
      ValidatorNFT: 'da0002',
      ValidatorDAO: 'da0003',
      DaoGovernor: 'da0004',
      DaoTimelock: 'da0005',
      RevenuePool: 'da0006',
      DisputeResolution: 'da0007',
      DaoLens: 'da0008',
      OpsSafe: 'da0009',
      TreasurySafe: 'da000a',
      ShariahBoardSafe: 'da000b',
      SafeL2: 'da0010',
      SafeProxyFactory: 'da0011',
      CompatibilityFallbackHandler: 'da0012',
      MultiSendCallOnly: 'da0013',
      ValidatorSigners: 'da0014',
    }).map(([name, suffix]) => [name, getAddress(`0x${suffix.padStart(40, '0')}`)]),
  ),
)

/** DAO_CONTRACTS: the DAO's own contracts in deployment order (artifact name = key). */
export const DAO_CONTRACTS = [
  'KycRegistry',
  'ValidatorNFT',
  'ValidatorDAO',
  'RevenuePool',
  'DaoTimelock',
  'DaoGovernor',
  'DisputeResolution',
  'DaoLens',
  'ValidatorSigners',
]

/** SAFES: the three multisigs (each a SafeProxy of the SafeL2 singleton). */
export const SAFES = ['OpsSafe', 'TreasurySafe', 'ShariahBoardSafe']

/** TIER_MIN_STAKE_WEI: spec "DAO tiers", minimum coin holding: 14,285,714 / 2,500,000 / 222,222 coins. */
export const TIER_MIN_STAKE_WEI = [14_285_714n * COIN, 2_500_000n * COIN, 222_222n * COIN]

/** Placeholder document hashes until governance publishes the real documents (setDocuments). */
export const PLACEHOLDER_DOCUMENTS = [
  keccakText('ibex Validator DAO - Disclaimer - placeholder v0'),
  keccakText('ibex Validator DAO - Risk Warning - placeholder v0'),
  keccakText('ibex Validator DAO - Information Memorandum - placeholder v0'),
]

/**
 * PRODUCTION: the parameters of mainnet (and what `production values` tests check). Times in
 * seconds; [D] marks a value the specification leaves open (see contracts/README.md).
 */
export const PRODUCTION = Object.freeze({
  /** Spec "eligible only after a 5-year period": 1827 days (5 years incl. two leap days). */
  lockPeriod: 1827 * DAY,
  /** [D] first-refusal window for existing validators. */
  firstRefusalWindow: 30 * DAY,
  /** Spec "semi-annual": half a Julian year, 182.625 days. */
  epochDuration: 15_778_800,
  /** Ecosystem launch (unix seconds) for the revenue start; 0 = the genesis timestamp. */
  launchTime: 0,
  /**
   * Spec "transactional revenue starts 12 to 18 months after ecosystem launch": the bounds the
   * governed delay stays in, and [D] the delay at genesis (12 months; governance may move it up
   * to 18 months before it passes).
   */
  minTransactionalRevenueDelay: 12 * MONTH,
  maxTransactionalRevenueDelay: 18 * MONTH,
  transactionalRevenueDelay: 12 * MONTH,
  /** [D] governance timing. */
  votingDelay: DAY,
  votingPeriod: 7 * DAY,
  timelockDelay: 2 * DAY,
  /** [D] votes needed to propose: any seated validator. */
  proposalThreshold: 1,
  /** [D] quorum: 40% of the total votes at the snapshot (for + abstain). */
  quorumPercent: 40,
  /** [D] appeal window after a panel decision. */
  appealWindow: 14 * DAY,
  minStake: TIER_MIN_STAKE_WEI,
  documents: PLACEHOLDER_DOCUMENTS,
})

/** The public test mnemonic (same as src/config/accounts.ts); never fund it on a real network. */
export const DEV_MNEMONIC = 'test test test test test test test test test test test junk'

/** devWallet: account `i` of the test mnemonic (m/44'/60'/0'/0/i). */
export function devWallet(i) {
  return HDNodeWallet.fromPhrase(DEV_MNEMONIC, undefined, `m/44'/60'/0'/0/${i}`)
}

/** DEV_APPLICANT_INDICES: test-mnemonic accounts 10-19, funded on dev to apply for seats at the real minimums. */
export const DEV_APPLICANT_INDICES = [10, 11, 12, 13, 14, 15, 16, 17, 18, 19]
/** DEV_APPLICANT_BALANCE_WEI: 30,000,000 coins each: two Tier I seats, or any mix of two seats. */
export const DEV_APPLICANT_BALANCE_WEI = 30_000_000n * COIN

/** Validator addresses listed in a shipped preset's extraData (the placeholder launch set). */
function presetValidators(network) {
  const g = JSON.parse(readFileSync(join(REPO_ROOT, 'src', 'config', 'genesis', `${network}.json`), 'utf8'))
  const extra = Buffer.from(g.extraData.slice(2), 'hex').subarray(32)
  const [validators] = RLP.decode(extra)
  return validators.map((v) => getAddress(`0x${Buffer.from(v).toString('hex')}`))
}

function presetTimestamp(network) {
  const g = JSON.parse(readFileSync(join(REPO_ROOT, 'src', 'config', 'genesis', `${network}.json`), 'utf8'))
  return Number(BigInt(g.timestamp))
}

/**
 * networkPlan(network): everything the genesis builder needs for one preset: chain id, genesis
 * timestamp, DAO parameters, role holders and Safe owners.
 */
export function networkPlan(network) {
  const a = DAO_ADDRESSES
  if (network === 'dev') {
    const dev = (i) => devWallet(i).address
    return {
      network,
      chainId: 1337,
      timestamp: 0,
      // amounts as in production; periods in seconds so the whole lifecycle runs in a minute
      params: {
        ...PRODUCTION,
        lockPeriod: 60,
        firstRefusalWindow: 30,
        epochDuration: 60,
        // "months" of 10 s: transactional revenue 120-180 s after the genesis (long past on a dev chain)
        minTransactionalRevenueDelay: 120,
        maxTransactionalRevenueDelay: 180,
        transactionalRevenueDelay: 120,
        votingDelay: 1,
        votingPeriod: 30,
        timelockDelay: 5,
        appealWindow: 30,
      },
      roles: {
        kycAttestors: [a.OpsSafe, dev(1)],
        membership: [a.OpsSafe, dev(2)],
        pausers: [a.OpsSafe, dev(2)],
        caseManagers: [a.OpsSafe, dev(2)],
        arbitrators: [dev(3), dev(4), dev(5)],
        shariahBoard: [a.ShariahBoardSafe, dev(6)],
        guardian: a.OpsSafe,
      },
      safes: {
        OpsSafe: { owners: [dev(0), dev(1), dev(2)], threshold: 2 },
        TreasurySafe: { owners: [dev(0), dev(1), dev(2)], threshold: 2 },
        ShariahBoardSafe: { owners: [dev(6), dev(7), dev(8)], threshold: 2 },
      },
      funded: Object.fromEntries(DEV_APPLICANT_INDICES.map((i) => [dev(i), DEV_APPLICANT_BALANCE_WEI])),
    }
  }
  if (network !== 'testnet' && network !== 'mainnet') throw new Error(`unknown network ${network}`)
  // Placeholder owners until launch: the preset's (placeholder) validator keys, 3 of 4.
  const owners = presetValidators(network)
  const threshold = Math.floor((2 * owners.length) / 3) + 1
  return {
    network,
    chainId: network === 'testnet' ? 7860 : 786,
    timestamp: presetTimestamp(network),
    params:
      network === 'mainnet'
        ? { ...PRODUCTION }
        : {
            // [D] testnet: mainnet amounts, periods shortened so each lifecycle step happens within a month
            ...PRODUCTION,
            lockPeriod: 30 * DAY,
            firstRefusalWindow: 2 * DAY,
            epochDuration: 7 * DAY,
            // "months" of a day: transactional revenue 12-18 days after the genesis
            minTransactionalRevenueDelay: 12 * DAY,
            maxTransactionalRevenueDelay: 18 * DAY,
            transactionalRevenueDelay: 12 * DAY,
            votingDelay: 3600,
            votingPeriod: DAY,
            timelockDelay: 3600,
            appealWindow: 2 * DAY,
          },
    roles: {
      kycAttestors: [a.OpsSafe],
      membership: [a.OpsSafe],
      pausers: [a.OpsSafe],
      caseManagers: [a.OpsSafe],
      arbitrators: [],
      shariahBoard: [a.ShariahBoardSafe],
      guardian: a.OpsSafe,
    },
    safes: {
      OpsSafe: { owners, threshold },
      TreasurySafe: { owners, threshold },
      ShariahBoardSafe: { owners, threshold },
    },
    funded: {},
  }
}

/**
 * daoConstructorArgs: the constructor arguments of every DAO contract, given where each contract
 * is (`addr`: name → address), the parameters and the role holders. `admin` defaults to the
 * Timelock (the admin of everything on every preset); tests may pass an EOA.
 */
export function daoConstructorArgs(addr, params, roles, admin = addr.DaoTimelock) {
  return {
    KycRegistry: [admin, roles.kycAttestors],
    ValidatorNFT: [addr.ValidatorDAO, params.lockPeriod],
    ValidatorDAO: [
      {
        admin,
        kyc: addr.KycRegistry,
        nft: addr.ValidatorNFT,
        revenuePool: addr.RevenuePool,
        disputeResolution: addr.DisputeResolution,
        firstRefusalWindow: params.firstRefusalWindow,
        minStake: params.minStake,
        documents: params.documents,
        membership: roles.membership,
        pausers: roles.pausers,
      },
    ],
    RevenuePool: [
      admin,
      addr.ValidatorNFT,
      addr.ValidatorDAO,
      params.epochDuration,
      params.firstEpochStart ?? 0,
      {
        launchTime: params.launchTime ?? 0,
        delay: params.transactionalRevenueDelay,
        minDelay: params.minTransactionalRevenueDelay,
        maxDelay: params.maxTransactionalRevenueDelay,
      },
    ],
    DaoTimelock: [params.timelockDelay, [addr.DaoGovernor], [ZeroAddress], roles.guardian ?? ZeroAddress],
    DaoGovernor: [
      {
        token: addr.ValidatorNFT,
        timelock: addr.DaoTimelock,
        stakeHistory: addr.ValidatorDAO,
        votingDelay: params.votingDelay,
        votingPeriod: params.votingPeriod,
        proposalThreshold: params.proposalThreshold,
        quorumPercent: params.quorumPercent,
      },
    ],
    DisputeResolution: [
      {
        admin,
        dao: addr.ValidatorDAO,
        nft: addr.ValidatorNFT,
        kyc: addr.KycRegistry,
        appealWindow: params.appealWindow,
        caseManagers: roles.caseManagers,
        arbitrators: roles.arbitrators,
        shariahBoard: roles.shariahBoard,
      },
    ],
    DaoLens: [
      addr.KycRegistry,
      addr.ValidatorNFT,
      addr.ValidatorDAO,
      addr.DaoGovernor,
      addr.RevenuePool,
      addr.DisputeResolution,
    ],
    ValidatorSigners: [addr.ValidatorNFT, addr.ValidatorDAO, addr.DaoTimelock],
  }
}

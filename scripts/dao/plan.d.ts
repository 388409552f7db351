// Types of plan.js for the TypeScript tests (test/dao).
import type { HDNodeWallet } from 'ethers'

export interface DaoParams {
  lockPeriod: number
  firstRefusalWindow: number
  epochDuration: number
  votingDelay: number
  votingPeriod: number
  timelockDelay: number
  proposalThreshold: number
  quorumPercent: number
  appealWindow: number
  minStake: bigint[]
  documents: string[]
  firstEpochStart?: number
  /** Ecosystem launch (unix seconds); 0 = the deployment (genesis) timestamp. */
  launchTime?: number
  transactionalRevenueDelay: number
  minTransactionalRevenueDelay: number
  maxTransactionalRevenueDelay: number
}

export interface DaoRoles {
  kycAttestors: string[]
  membership: string[]
  pausers: string[]
  caseManagers: string[]
  arbitrators: string[]
  shariahBoard: string[]
  guardian?: string
}

export interface NetworkPlan {
  network: string
  chainId: number
  timestamp: number
  params: DaoParams
  roles: DaoRoles
  safes: Record<string, { owners: string[]; threshold: number }>
  funded: Record<string, bigint>
}

export const DAO_ADDRESSES: Readonly<Record<string, string>>
export const DAO_CONTRACTS: string[]
export const SAFES: string[]
export const TIER_MIN_STAKE_WEI: bigint[]
export const PLACEHOLDER_DOCUMENTS: string[]
export const PRODUCTION: Readonly<DaoParams>
export const DEV_MNEMONIC: string
export const DEV_APPLICANT_INDICES: number[]
export const DEV_APPLICANT_BALANCE_WEI: bigint
export function devWallet(i: number): HDNodeWallet
export function networkPlan(network: string): NetworkPlan
export function daoConstructorArgs(
  addr: Record<string, string>,
  params: DaoParams,
  roles: DaoRoles,
  admin?: string,
): Record<string, unknown[]>

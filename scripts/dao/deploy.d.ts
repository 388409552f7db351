// Types of deploy.js for the TypeScript tests (test/dao).
import type { BoundContract, Chain, Signer } from './client.js'
import type { DaoParams, DaoRoles } from './plan.js'

export interface Suite {
  addresses: Record<string, string>
  contracts: Record<string, BoundContract>
}

export function deploySuite(
  chain: Chain,
  deployer: Signer,
  opts: { params: DaoParams; roles: DaoRoles; admin?: string },
): Promise<Suite>
export function genesisSuite(chain: Chain): Suite

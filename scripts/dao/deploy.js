/**
 * Deploying a fresh DAO suite with ordinary transactions (tests, or a chain without the genesis
 * DAO): the eight DAO contracts from one deployer at the CREATE addresses its next nonces give,
 * so constructors can reference each other before they exist.
 */
import { DAO_ADDRESSES, DAO_CONTRACTS, daoConstructorArgs } from './plan.js'

/**
 * deploySuite(chain, deployer, { params, roles, admin }) deploys KycRegistry … DaoLens and returns
 * { addresses, contracts } (contracts: name → BoundContract). `admin` defaults to the Timelock.
 */
export async function deploySuite(chain, deployer, { params, roles, admin }) {
  const predicted = await chain.nextAddresses(deployer, DAO_CONTRACTS.length)
  const addresses = Object.fromEntries(DAO_CONTRACTS.map((name, i) => [name, predicted[i]]))
  const args = daoConstructorArgs(addresses, params, roles, admin ?? addresses.DaoTimelock)
  const contracts = {}
  for (const name of DAO_CONTRACTS) {
    const { address } = await chain.deploy(deployer, name, args[name])
    if (address.toLowerCase() !== addresses[name].toLowerCase()) {
      throw new Error(
        `${name} deployed at ${address}, expected ${addresses[name]} (another transaction from the deployer?)`,
      )
    }
    contracts[name] = chain.contract(name, address)
  }
  return { addresses, contracts }
}

/** genesisSuite(chain): the DAO a preset carries at its fixed addresses, as bound contracts. */
export function genesisSuite(chain) {
  const contracts = {}
  for (const name of DAO_CONTRACTS) contracts[name] = chain.contract(name, DAO_ADDRESSES[name])
  for (const name of ['OpsSafe', 'TreasurySafe', 'ShariahBoardSafe']) {
    contracts[name] = chain.contract('SafeL2', DAO_ADDRESSES[name])
  }
  return { addresses: { ...DAO_ADDRESSES }, contracts }
}

/** The nodes a run can start, by name. */
import { anvil } from './anvil.js'
import { ganache } from './ganache.js'
import { hardhat } from './hardhat.js'
import { ibex } from './ibex.js'
import type { NodeName, Peer } from './types.js'

export { startBare } from './bare.js'
export { freePort, RssSampler, stopAll, treeRssMiB } from './process.js'
export * from './types.js'

export const PEERS: Partial<Record<NodeName, Peer>> = { ibex, anvil, ganache, hardhat }

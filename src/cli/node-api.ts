/**
 * What the CLI needs from the node (src/node.ts) and from the datadir (import, export). Loaded
 * lazily, so `ibex --help`, `ibex version` and `ibex genesis` start without opening a database or
 * loading the EVM; tests pass a fake.
 */
import type { IbexConfig } from '../config/types.js'
import { exportChain, importChain } from './commands/chain-io.js'
import { type ChainRequest, prepareDatadir } from './datadir.js'

export interface RunningNode {
  /** JSON-RPC URL, e.g. http://127.0.0.1:8545 ('' when JSON-RPC is disabled). */
  url: string
  chainId: bigint
  /** This node's validator address, when it validates. */
  validator: string | undefined
  /** Prometheus endpoint, when --metrics is on. */
  metricsUrl?: string
  stop(): Promise<void>
}

export interface InitResult {
  genesisHash: string
  chainId: bigint
}

export interface ImportResult {
  /** Blocks imported by this run. */
  blocks: number
  headNumber: bigint
  headHash: string
}

export interface ExportResult {
  /** Blocks written. */
  blocks: number
  first: bigint
  last: bigint
}

/**
 * `request` says whether --network / --genesis named the chain: the real api then refuses a datadir
 * holding another one (src/cli/datadir.ts); without it the datadir's chain is used as stored.
 */
export interface NodeApi {
  startNode(config: IbexConfig, request?: ChainRequest): Promise<RunningNode>
  initNode(config: IbexConfig, request?: ChainRequest): Promise<InitResult>
  importChain(config: IbexConfig, file: string, request?: ChainRequest): Promise<ImportResult>
  exportChain(config: IbexConfig, file: string, first?: bigint, last?: bigint): Promise<ExportResult>
}

/**
 * loadNodeApi imports src/node.ts on first use; import and export are the chain-io command's own.
 * start and init go through prepareDatadir first: the genesis is written all at once, and a stored
 * chain must be the requested one.
 */
export async function loadNodeApi(): Promise<NodeApi> {
  const node = await import('../node.js')
  const asStored: ChainRequest = { explicit: false }
  return {
    async startNode(config, request = asStored) {
      await prepareDatadir(config, request, node.initNode)
      return node.startNode(config)
    },
    async initNode(config, request = asStored) {
      await prepareDatadir(config, request, node.initNode)
      return node.initNode(config)
    },
    importChain,
    exportChain,
  }
}

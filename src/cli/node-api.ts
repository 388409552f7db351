/**
 * What the CLI needs from the node (src/node.ts) and from the datadir (import, export). Loaded
 * lazily, so `ibex --help`, `ibex version` and `ibex genesis` start without opening a database or
 * loading the EVM; tests pass a fake.
 */
import type { IbexConfig } from '../config/types.js'
import { exportChain, importChain } from './commands/chain-io.js'

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

export interface NodeApi {
  startNode(config: IbexConfig): Promise<RunningNode>
  initNode(config: IbexConfig): Promise<InitResult>
  importChain(config: IbexConfig, file: string): Promise<ImportResult>
  exportChain(config: IbexConfig, file: string, first?: bigint, last?: bigint): Promise<ExportResult>
}

/** loadNodeApi imports src/node.ts on first use; import and export are the chain-io command's own. */
export async function loadNodeApi(): Promise<NodeApi> {
  const { startNode, initNode } = await import('../node.js')
  return { startNode, initNode, importChain, exportChain }
}

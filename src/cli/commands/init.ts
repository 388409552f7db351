/** `ibex init`: create the datadir's database from --network or --genesis and report the genesis. */
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'
import type { NodeApi } from '../node-api.js'

export async function runInit(config: IbexConfig, api: NodeApi, io: CliIo): Promise<number> {
  const { genesisHash, chainId } = await api.initNode(config)
  io.out(`Initialised ${config.datadir}`)
  io.out(`Chain id:     ${chainId}`)
  io.out(`Genesis hash: ${genesisHash}`)
  return 0
}

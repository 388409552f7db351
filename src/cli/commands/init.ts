/** `ibex init`: create the datadir's database from --network or --genesis and report the genesis. */
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'
import type { ChainRequest } from '../datadir.js'
import type { NodeApi } from '../node-api.js'

export async function runInit(config: IbexConfig, api: NodeApi, io: CliIo, request?: ChainRequest): Promise<number> {
  const { genesisHash, chainId } = await api.initNode(config, request)
  io.out(`Initialised ${config.datadir}`)
  io.out(`Chain id:     ${chainId}`)
  io.out(`Genesis hash: ${genesisHash}`)
  return 0
}

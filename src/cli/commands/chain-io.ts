/** `ibex import FILE.rlp` and `ibex export FILE.rlp [FIRST [LAST]]`: blocks in `geth export` format. */
import type { CommandExtra } from '../../config/load.js'
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'
import type { NodeApi } from '../node-api.js'

function blocks(n: number): string {
  return `${n} block${n === 1 ? '' : 's'}`
}

export async function runImport(config: IbexConfig, extra: CommandExtra, api: NodeApi, io: CliIo): Promise<number> {
  const result = await api.importChain(config, extra.file as string)
  io.out(`Imported ${blocks(result.blocks)} from ${extra.file}; head ${result.headNumber} ${result.headHash}`)
  return 0
}

export async function runExport(config: IbexConfig, extra: CommandExtra, api: NodeApi, io: CliIo): Promise<number> {
  const result = await api.exportChain(config, extra.file as string, extra.first, extra.last)
  io.out(`Exported ${blocks(result.blocks)} (${result.first}..${result.last}) to ${extra.file}`)
  return 0
}

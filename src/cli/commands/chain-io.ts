/**
 * `ibex import FILE.rlp` and `ibex export FILE.rlp [FIRST [LAST]]`: blocks in the `geth export`
 * format, consecutive RLP blocks [header, transactions, uncles, withdrawals?]. Both open the
 * datadir's chain as the node does (openChain in src/node.ts), loaded only when the command runs.
 */
import { closeSync, openSync, writeSync } from 'node:fs'

import type { CommandExtra } from '../../config/load.js'
import type { IbexConfig } from '../../config/types.js'
import type { CliIo } from '../io.js'
import type { ExportResult, ImportResult, NodeApi } from '../node-api.js'

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

/** openDatadirChain: the node's openChain with its logger; the EVM and database load here, not at CLI start. */
async function openDatadirChain(config: IbexConfig) {
  const [{ openChain }, { createLogger }] = await Promise.all([import('../../node.js'), import('../../log.js')])
  const log = createLogger(config.logLevel, config.logFormat)
  return { chain: await openChain(config, log), log }
}

/** exportChain writes canonical blocks FIRST..LAST (default: all, LAST capped at the head). */
export async function exportChain(
  config: IbexConfig,
  file: string,
  first?: bigint,
  last?: bigint,
): Promise<ExportResult> {
  const [{ chain }, { RLP }] = await Promise.all([openDatadirChain(config), import('@ethereumjs/rlp')])
  const out = openSync(file, 'w')
  try {
    const head = chain.store.head.header.number
    const from = first ?? 0n
    const to = last === undefined || last > head ? head : last
    let written = 0
    for (let n = from; n <= to; n++) {
      const block = chain.store.getBlockByNumber(n)
      if (block === undefined) break
      // typed transactions are stored as bytes; legacy ones (first byte >= 0xc0) are RLP lists in the block
      const txs = block.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t))
      const body: unknown[] = [block.headerRaw, txs, block.uncles]
      if (block.withdrawals !== undefined) body.push(block.withdrawals)
      writeSync(out, RLP.encode(body as never))
      written++
    }
    return { blocks: written, first: from, last: from + BigInt(written) - 1n }
  } finally {
    closeSync(out)
    await chain.db.close()
  }
}

/**
 * importChain executes and commits every block of FILE.rlp on top of the head, under each block's
 * own fork rules (src/block/importer.ts); blocks already in the chain are skipped. Stops at the
 * first block that does not verify.
 */
export async function importChain(config: IbexConfig, file: string): Promise<ImportResult> {
  const [{ chain, log }, { importBlocks }, { bytesToHex, hexToBytes }] = await Promise.all([
    openDatadirChain(config),
    import('../../block/importFile.js'),
    import('@ethereumjs/util'),
  ])
  try {
    const recipient =
      chain.engine === 'ibft' ? (chain.genesis.config?.baseFeeRecipient as string | undefined) : undefined
    const imported = await importBlocks(file, {
      store: chain.store,
      common: chain.common,
      trie: chain.trie,
      engine: chain.engine,
      baseFeeRecipient: recipient ? hexToBytes(recipient as `0x${string}`) : undefined,
      log,
    })
    const head = chain.store.head
    return { blocks: imported, headNumber: head.header.number, headHash: bytesToHex(head.hash) }
  } finally {
    await chain.db.close()
  }
}

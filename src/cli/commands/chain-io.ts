/**
 * `ibex import FILE.rlp` and `ibex export FILE.rlp [FIRST [LAST]]`: blocks in the `geth export`
 * format, consecutive RLP blocks [header, transactions, uncles, withdrawals?]. Both open the
 * datadir's chain as the node does (openChain in src/node.ts), loaded only when the command runs.
 */
import { closeSync, openSync, writeSync } from 'node:fs'

import type { CommandExtra } from '../../config/load.js'
import { ConfigError } from '../../config/errors.js'
import { validatorKeyPath } from '../../config/keys.js'
import type { IbexConfig } from '../../config/types.js'
import { type ChainRequest, prepareDatadir, requireChain, undoInit } from '../datadir.js'
import type { CliIo } from '../io.js'
import type { ExportResult, ImportResult, NodeApi } from '../node-api.js'

function blocks(n: number): string {
  return `${n} block${n === 1 ? '' : 's'}`
}

export async function runImport(
  config: IbexConfig,
  extra: CommandExtra,
  api: NodeApi,
  io: CliIo,
  request?: ChainRequest,
): Promise<number> {
  const result = await api.importChain(config, extra.file as string, request)
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

/** A block asked for by `ibex export` that the chain does not have yet (geth refuses it the same way). */
export class BeyondHeadError extends ConfigError {
  override name = 'BeyondHeadError'
  constructor(what: 'FIRST' | 'LAST', block: bigint, head: bigint) {
    super(`export: ${what} block ${block} is beyond the head (block ${head}); nothing written`)
  }
}

/**
 * exportChain writes canonical blocks FIRST..LAST (default: FIRST 0, LAST the head). A block past
 * the head is refused before the file is opened, as geth's export does; a datadir without a chain
 * is refused without creating anything.
 */
export async function exportChain(
  config: IbexConfig,
  file: string,
  first?: bigint,
  last?: bigint,
): Promise<ExportResult> {
  requireChain(config)
  const [{ chain }, { RLP }] = await Promise.all([openDatadirChain(config), import('@ethereumjs/rlp')])
  let out: number | undefined
  try {
    const head = chain.store.head.header.number
    const from = first ?? 0n
    if (from > head) throw new BeyondHeadError('FIRST', from, head)
    if (last !== undefined && last > head) throw new BeyondHeadError('LAST', last, head)
    const to = last ?? head
    out = openSync(file, 'w')
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
    if (out !== undefined) closeSync(out)
    await chain.db.close()
  }
}

/**
 * importChain executes and commits every block of FILE.rlp on top of the head, under each block's
 * own fork rules (src/block/importer.ts); blocks already in the chain are skipped. Stops at the
 * first block that does not verify. An empty datadir is initialised first (src/cli/datadir.ts);
 * when the file's genesis is not that chain's, what was initialised is removed again.
 */
export async function importChain(config: IbexConfig, file: string, request?: ChainRequest): Promise<ImportResult> {
  const { initNode } = await import('../../node.js')
  const prepared = await prepareDatadir(config, request ?? { explicit: false }, initNode)
  let genesisConflict = false
  try {
    return await importInto(config, file)
  } catch (err) {
    genesisConflict =
      (err as { name?: string; number?: bigint }).name === 'ImportError' && (err as { number?: bigint }).number === 0n
    if (!genesisConflict) throw err
    throw new Error(`${(err as Error).message}: ${genesisHint(config, prepared.created)}`, { cause: err })
  } finally {
    if (genesisConflict) undoInit(config, prepared)
  }
}

/** What to do when the file's block 0 is not the datadir's genesis. */
function genesisHint(config: IbexConfig, created: boolean): string {
  const removed = created ? ` (${config.datadir} was initialised by this run and is left as it was)` : ''
  if (config.genesisFile === undefined && config.network === 'dev') {
    const key = validatorKeyPath(config)
    return (
      `the file's genesis is not this datadir's${removed}. A dev genesis lists its node's validator key as the only ` +
      `validator, so each dev datadir has its own: copy the exporting datadir's validator.key to ${key} ` +
      'before importing (or pass --validator-key FILE with that key)'
    )
  }
  return `the file's genesis is not this datadir's${removed}: import into a datadir initialised from the same genesis (--genesis FILE or --network)`
}

async function importInto(config: IbexConfig, file: string): Promise<ImportResult> {
  const [{ chain, log }, { importBlocks }, { bytesToHex, hexToBytes }] = await Promise.all([
    openDatadirChain(config),
    import('../../block/importFile.js'),
    import('@ethereumjs/util'),
  ])
  let spans: SpanCheck | undefined
  try {
    const recipient =
      chain.engine === 'ibft' ? (chain.genesis.config?.baseFeeRecipient as string | undefined) : undefined
    spans = chain.engine === 'ibft' ? await spanCheckOf(config, chain) : undefined
    const imported = await importBlocks(file, {
      store: chain.store,
      common: chain.common,
      trie: chain.trie,
      engine: chain.engine,
      baseFeeRecipient: recipient ? hexToBytes(recipient as `0x${string}`) : undefined,
      checkConsensus: spans?.check,
      log,
    })
    const head = chain.store.head
    return { blocks: imported, headNumber: head.header.number, headHash: bytesToHex(head.hash) }
  } finally {
    await spans?.close()
    await chain.db.close()
  }
}

/** The span check of an import and what must be closed after it. */
interface SpanCheck {
  check(number: bigint, extraData: Uint8Array): Promise<void>
  close(): Promise<void>
}

type DatadirChain = Awaited<ReturnType<typeof openDatadirChain>>['chain']

/**
 * spanCheckOf: with [ibft] span_blocks > 0 (as the network's nodes run), every imported block's
 * validators must be its span's committee and every span record a valid switch — checked against
 * the validator set read from the imported state at the record's reference block
 * (src/validators/importCheck.ts). The set is read by view calls on an exec pool run in this
 * process: an import is a batch job, no client waits on the main thread. Undefined when spans are off.
 */
async function spanCheckOf(config: IbexConfig, chain: DatadirChain): Promise<SpanCheck | undefined> {
  const [{ spanParamsOf }, validators, { ExecPool }] = await Promise.all([
    import('../../consensus/spanParams.js'),
    import('../../validators/index.js'),
    import('../../exec/pool/index.js'),
  ])
  const params = spanParamsOf(config)
  if (params === undefined) return undefined
  const { store } = chain
  const pool = ExecPool.inProcess(chain.db, store, chain.common)
  const caller = validators.execPoolCaller(pool, () => store.head.header.number)
  const committees = new validators.SpanCommittees(params, {
    extraDataAt: (n) => store.getBlockByNumber(n)?.header.extraData,
  })
  const check = validators.spanImportCheck({
    chainId: chain.common.chainId(),
    committees,
    hashAt: (n) => store.getBlockByNumber(n)?.hash,
    readSet: (hash) => validators.readValidatorSet(caller, hash),
  })
  return { check, close: () => pool.close() }
}

/**
 * ibex: the dev network's genesis with the benchmark's gas limit, initialised by `ibex init`,
 * seeded in process (the same signed transactions, each sealed alone, and the same runs of empty
 * blocks, through the node's own BlockBuilder; ibex has no RPC to mine empty blocks), then served
 * by `ibex start`. The write path restarts it on the same datadir with `--block-time`.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createChainCommon, type GenesisJson } from '../../src/chain/common.js'
import { openDatabase } from '../../src/db/db.js'
import { ChainStore } from '../../src/chain/store.js'
import { ALL_EXPLORER_INDEXES } from '../../src/chain/explorerIndex.js'
import { ExplorerBackfill, replayHere } from '../../src/block/explorerBackfill.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { buildGenesis } from '../../src/config/genesis.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'
import { headAdmission } from '../../test/helpers/chain.js'
import { TrieStore } from '../../src/state/index.js'
import { validateTransaction } from '../../src/txpool/validate.js'
import { REPO } from '../repo.js'
import { waitForRpc } from '../rpc.js'
import type { SeedPlan } from '../seed/plan.js'
import { bytes, derivedKey, hex } from '../seed/sign.js'
import { freePort, spawnTracked } from './process.js'
import { BENCH_GAS_LIMIT, type NodeName, type Peer, type RunningNode, type StartContext } from './types.js'

const IBEX_BIN = join(REPO, 'bin', 'ibex.js')
/** Pool room for the write path: every pre-signed transfer may wait at once. */
const WRITE_POOL_SLOTS = 100_000

/** Extra `ibex start` flags (from --ibex-flags). */
export const ibexExtraFlags: string[] = []
/** Extra flags of the node process running ibex (from --ibex-node-flags: `--cpu-prof …`). */
export const ibexNodeFlags: string[] = []

function paths(ctx: Pick<StartContext, 'dir'>) {
  return { datadir: join(ctx.dir, 'data'), genesis: join(ctx.dir, 'genesis.json') }
}

/** Writes genesis + key, runs `ibex init`, then seals the seed plan into the datadir. */
export async function prepareIbex(ctx: StartContext): Promise<void> {
  const { datadir, genesis } = paths(ctx)
  mkdirSync(datadir, { recursive: true })
  const validator = derivedKey('validator', 0)
  writeFileSync(join(datadir, 'validator.key'), `${hex(validator.privateKey).slice(2)}\n`, { mode: 0o600 })
  const g = buildGenesis({ ...defaultConfig('dev'), datadir }, [validator.hex])
  g.gasLimit = `0x${BENCH_GAS_LIMIT.toString(16)}`
  writeFileSync(genesis, JSON.stringify(g, null, 2))
  execFileSync(process.execPath, [IBEX_BIN, 'init', '--network', 'dev', '--genesis', genesis, '--datadir', datadir], {
    stdio: 'pipe',
  })
  await seedInProcess(datadir, g as unknown as GenesisJson, validator.privateKey, validator.address, ctx.plan, ctx.log)
}

/** A Logger that drops all but errors (those go to `log`): for the datadir generators' backfills. */
export function errorsOnly(log: (l: string) => void) {
  return { debug() {}, info() {}, warn() {}, error: (msg: string) => log(msg) } as never
}

async function seedInProcess(
  datadir: string,
  genesis: GenesisJson,
  privateKey: Uint8Array,
  coinbase: Uint8Array,
  plan: SeedPlan,
  log: (l: string) => void,
): Promise<void> {
  const common = createChainCommon(genesis)
  const db = await openDatabase(join(datadir, 'chaindata'))
  try {
    const store = new ChainStore(db, common)
    // every block committed with the explorer indexes a default node writes (genesis marked first,
    // as the node's first start does): the node then starts with no background backfill to run
    store.setExplorerIndexes(ALL_EXPLORER_INDEXES)
    await new ExplorerBackfill(store, errorsOnly(log), replayHere(store)).done
    common.setHardforkBy({ blockNumber: store.head.header.number, timestamp: store.head.header.timestamp })
    const trie = new TrieStore(db)
    const recipient = (genesis.config as { baseFeeRecipient?: string } | undefined)?.baseFeeRecipient
    const builder = await BlockBuilder.create({
      store,
      common,
      trie,
      privateKey,
      coinbase,
      baseFeeRecipient: recipient ? bytes(recipient) : undefined,
      syncWrites: false,
    })
    const admission = () => headAdmission(db, store, common)
    const t = performance.now()
    let txs = 0
    for (const step of plan.steps) {
      if (step.kind === 'empty') {
        for (let i = 0; i < step.blocks; i++) await builder.build([], store.head.header.timestamp + 1n)
        continue
      }
      const ptx = await validateTransaction(bytes(step.tx.raw), admission())
      const { block, included } = await builder.build([ptx], store.head.header.timestamp + 1n)
      const receipt = store.getReceipts(block.hash)?.[0]
      if (included.length !== 1 || receipt?.status !== 1)
        throw new Error(`${step.what} failed in block ${block.header.number}`)
      if (++txs % 250 === 0) log(`  ${txs} seed transactions (${((performance.now() - t) / 1000).toFixed(0)} s)`)
    }
    if (Number(store.head.header.number) !== plan.head)
      throw new Error(`seeded head ${store.head.header.number}, expected ${plan.head}`)
  } finally {
    await db.close()
  }
}

/** The `node` arguments that serve a prepared datadir on `port` (node flags from --ibex-node-flags first). */
export function ibexStartArgs(
  ctx: Pick<StartContext, 'dir'>,
  blockTime: string,
  port: number,
  checkout = REPO,
): string[] {
  const { datadir, genesis } = paths(ctx)
  return [
    ...ibexNodeFlags,
    join(checkout, 'bin', 'ibex.js'),
    'start',
    '--network',
    'dev',
    '--genesis',
    genesis,
    '--datadir',
    datadir,
    '--http.port',
    String(port),
    '--http.api',
    'eth,net,web3,txpool,debug',
    '--log-level',
    'warn',
    '--block-time',
    blockTime,
    '--txpool.globalslots',
    String(WRITE_POOL_SLOTS),
    '--txpool.accountqueue',
    '1024',
    ...ibexExtraFlags,
  ]
}

async function launch(
  ctx: StartContext,
  blockTime: string,
  checkout = REPO,
  name: NodeName = 'ibex',
): Promise<RunningNode> {
  const port = await freePort()
  const args = ibexStartArgs(ctx, blockTime, port, checkout)
  const proc = spawnTracked('ibex', process.execPath, args, { cpus: ctx.cpus })
  const url = `http://127.0.0.1:${port}`
  await waitForRpc(url, proc)
  const version = `ibex ${JSON.parse(readFileSync(join(REPO, 'package.json'), 'utf8')).version} (node ${process.version})`
  return { name, url, proc, version, stop: () => proc.stop() }
}

export const ibex: Peer = {
  name: 'ibex',
  async start(ctx) {
    await prepareIbex(ctx)
    return launch(ctx, '0')
  },
  async intervalMining(node, ctx, seconds) {
    await node.stop()
    return launch(ctx, `${seconds}s`)
  },
}

/**
 * ibex from another checkout (`--baseline DIR`, built with its own `npm run build`), as node
 * `ibex@base`: the same seeded datadir (seeded by this checkout's code; the stored formats are
 * the same), served by the other code — before and after of a change in one run.
 */
export function ibexBaseline(checkout: string): Peer {
  return {
    name: 'ibex@base',
    async start(ctx) {
      await prepareIbex(ctx)
      return launch(ctx, '0', checkout, 'ibex@base')
    },
    async intervalMining(node, ctx, seconds) {
      await node.stop()
      return launch(ctx, `${seconds}s`, checkout, 'ibex@base')
    },
  }
}

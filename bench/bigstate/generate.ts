/**
 * The big-state datadir generator (issue 22): a dev-network ibex datadir holding `accounts`
 * funded accounts, `contracts` ERC-20s with storage and `txs` transactions over `blocks` blocks,
 * reproducible from `seed` (bigstate/plan.ts says what is on chain).
 *
 * Nothing is written around the node: every transaction is signed (native secp256k1), admitted by
 * the pool's own validateTransaction (the sender primed from the key that signed it, so not
 * recovered again) and executed by ibex's BlockBuilder — plain transfers on its fast path, token
 * deployments and transfers in the EVM — and each block is sealed and committed by
 * ChainStore.commitBlock (block, receipts, log index and the trie writer's batched state changes in
 * one WriteBatch; not fsynced per block: one flush at the end). State roots, receipt roots and
 * blooms are therefore the node's own, and `ibex start --datadir` serves the result as any chain
 * it built. Writes <out>/genesis.json, <out>/data (validator.key, chaindata) and <out>/bigstate.json
 * (options, head, state root, timings and samples of accounts, token slots and transactions for
 * the benchmark's reads).
 *
 *   npm run bench:bigstate:gen -- --out /tmp/bigstate [--seed 1] [--accounts 1000000]
 *     [--contracts 100000] [--txs 10000000] [--blocks 1000000] [--senders 10000]
 *     [--explorer-indexes false]
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { createChainCommon, type GenesisJson } from '../../src/chain/common.js'
import { ALL_EXPLORER_INDEXES } from '../../src/chain/explorerIndex.js'
import { ChainStore } from '../../src/chain/store.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { buildGenesis } from '../../src/config/genesis.js'
import { ExplorerBackfill, replayHere } from '../../src/block/explorerBackfill.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'
import { openDatabase } from '../../src/db/db.js'
import { TrieStore } from '../../src/state/index.js'
import type { PoolTx } from '../../src/txpool/index.js'
import { decodeRawTransaction, validateTransaction } from '../../src/txpool/validate.js'
import { headAdmission } from '../../test/helpers/chain.js'
import { compileBench } from '../../test/helpers/compile.js'
import { errorsOnly } from '../peers/ibex.js'
import { BENCH_GAS_LIMIT } from '../peers/types.js'
import { REPO } from '../repo.js'
import { bytes, hex } from '../seed/sign.js'
import { type BigStateOptions, BigStatePlan, FULL_SIZE, type PlannedTx, validatorKey } from './plan.js'

const IBEX_BIN = join(REPO, 'bin', 'ibex.js')
/** The funder's genesis balance: every sender's and account's funds with room to spare. */
const FUNDER_BALANCE_WEI = 10n ** 30n
/** Samples of each kind kept in bigstate.json for the benchmark's reads. */
export const SAMPLES = 20_000
/** Seconds between progress lines. */
const PROGRESS_SECONDS = 5
const BLOCK_GAS = BigInt(BENCH_GAS_LIMIT)
export const MANIFEST = 'bigstate.json'

export interface BigStateManifest {
  options: BigStateOptions
  /** The blocks were committed with the explorer indexes a default node writes (absent: false). */
  explorerIndexes?: boolean
  head: number
  headHash: string
  stateRoot: string
  txs: number
  seconds: number
  /** Token addresses (up to SAMPLES). */
  tokens: string[]
  /** [token, holder] pairs with a nonzero balance slot (from the transfers). */
  holdings: [string, string][]
  /** Transfer transaction hashes with their block numbers. */
  transfers: [string, number][]
}

/** Layout of a generated directory (the same as bench/peers/ibex.ts's: `ibexStartArgs` serves it). */
export function bigStatePaths(out: string) {
  return { datadir: join(out, 'data'), genesis: join(out, 'genesis.json'), manifest: join(out, MANIFEST) }
}

export function readManifest(out: string): BigStateManifest {
  return JSON.parse(readFileSync(bigStatePaths(out).manifest, 'utf8')) as BigStateManifest
}

/** Keeps a uniform sample of at most `size` items (reservoir sampling, seeded). */
class Reservoir<T> {
  readonly items: T[] = []
  #seen = 0
  constructor(
    readonly size: number,
    readonly rand: () => number,
  ) {}
  add(item: T): void {
    this.#seen++
    if (this.items.length < this.size) this.items.push(item)
    else {
      const i = Math.floor(this.rand() * this.#seen)
      if (i < this.size) this.items[i] = item
    }
  }
}

/**
 * Generates the chain into `out`. With `explorerIndexes` (default, as a default node) every block is
 * committed with the explorer indexes; without, serve it with them off (EXPLORER_OFF_FLAGS), or
 * the node indexes the whole chain in the background after it starts.
 */
export async function generateBigState(
  options: BigStateOptions,
  out: string,
  log: (line: string) => void = console.log,
  explorerIndexes = true,
): Promise<BigStateManifest> {
  const started = performance.now()
  const { datadir, genesis: genesisFile, manifest } = bigStatePaths(out)
  if (existsSync(join(datadir, 'chaindata'))) throw new Error(`${datadir} already holds a chain`)
  mkdirSync(datadir, { recursive: true })
  const compiled = compileBench()
  const plan = new BigStatePlan(options, compiled.BenchToken.bytecode)
  const validator = validatorKey(options.seed)
  writeFileSync(join(datadir, 'validator.key'), `${hex(validator.privateKey).slice(2)}\n`, { mode: 0o600 })
  const g = buildGenesis({ ...defaultConfig('dev'), datadir }, [validator.hex])
  g.gasLimit = `0x${BENCH_GAS_LIMIT.toString(16)}`
  g.alloc[plan.funder.hex] = { balance: `0x${FUNDER_BALANCE_WEI.toString(16)}` }
  writeFileSync(genesisFile, JSON.stringify(g, null, 2))
  execFileSync(
    process.execPath,
    [IBEX_BIN, 'init', '--network', 'dev', '--genesis', genesisFile, '--datadir', datadir],
    {
      stdio: 'pipe',
    },
  )
  const genesis = g as unknown as GenesisJson
  const common = createChainCommon(genesis)
  const db = await openDatabase(join(datadir, 'chaindata'))
  const rand = (() => {
    let s = options.seed * 7919 + 1
    return () => {
      s = (s * 16807) % 2147483647
      return s / 2147483647
    }
  })()
  const holdings = new Reservoir<[string, string]>(SAMPLES, rand)
  const transfers = new Reservoir<[string, number]>(SAMPLES, rand)
  let txs = 0
  try {
    const store = new ChainStore(db, common)
    if (explorerIndexes) {
      store.setExplorerIndexes(ALL_EXPLORER_INDEXES)
      // as the node's first start does: genesis indexed, the indexes' marks written, so the node
      // started on the result finds every block indexed (no background backfill)
      await new ExplorerBackfill(store, errorsOnly(log), replayHere(store)).done
    }
    common.setHardforkBy({ blockNumber: store.head.header.number, timestamp: store.head.header.timestamp })
    const trie = new TrieStore(db)
    const recipient = (genesis.config as { baseFeeRecipient?: string } | undefined)?.baseFeeRecipient
    const builder = await BlockBuilder.create({
      store,
      common,
      trie,
      privateKey: validator.privateKey,
      coinbase: validator.address,
      baseFeeRecipient: recipient ? bytes(recipient) : undefined,
      syncWrites: false,
    })
    const source = plan.transactions()
    /** Transactions the last block had no room for: first in the next one. */
    let carried: { planned: PlannedTx; pool: PoolTx }[] = []
    let lastLine = performance.now()
    const perBlock = Math.ceil(options.txs / options.blocks)
    for (let b = 1; b <= options.blocks || carried.length > 0; b++) {
      // a sender funded earlier in this same block has no balance at the head yet: the executor
      // checks nonces and funds for real (a transaction it drops fails the prefix check below)
      const admission = {
        ...headAdmission(db, store, common),
        account: async () => ({ nonce: 0n, balance: FUNDER_BALANCE_WEI }),
      }
      const batch = carried
      carried = []
      // the last blocks take what is left; no block takes more than its gas limit (by the
      // transactions' gas limits: deployments fill a block long before `perBlock` transfers do)
      const want = b >= options.blocks ? Number.POSITIVE_INFINITY : perBlock
      let gas = batch.reduce((sum, x) => sum + x.pool.tx.gasLimit, 0n)
      while (batch.length < want) {
        const next = source.next()
        if (next.done === true) break
        const planned = next.value
        const raw = bytes(planned.raw)
        const tx = decodeRawTransaction(raw, common)
        // signed here by a known key: the sender is primed (as the pool's recovery threads do)
        ;(tx as unknown as { cache: { ibexSender?: Uint8Array } }).cache.ibexSender = planned.sender
        const pool = await validateTransaction(raw, admission, tx)
        gas += tx.gasLimit
        if (gas > BLOCK_GAS) {
          carried.push({ planned, pool })
          break
        }
        batch.push({ planned, pool })
      }
      const { block, included } = await builder.build(
        batch.map((x) => x.pool),
        store.head.header.timestamp + 1n,
      )
      const receipts = store.getReceipts(block.hash) ?? []
      for (let i = 0; i < included.length; i++) {
        if (included[i]?.hashHex !== batch[i]?.pool.hashHex)
          throw new Error(`block ${block.header.number} left out transaction ${i} (${batch[i]?.planned.kind})`)
        if (receipts[i]?.status !== 1) throw new Error(`transaction ${i} of block ${block.header.number} failed`)
        const { planned } = batch[i] as { planned: PlannedTx }
        if (planned.kind === 'transfer') {
          holdings.add([planned.token as string, planned.to as string])
          transfers.add([planned.hash, Number(block.header.number)])
        }
      }
      if (included.length < batch.length) carried = [...batch.slice(included.length), ...carried]
      txs += included.length
      const now = performance.now()
      if (now - lastLine > PROGRESS_SECONDS * 1000) {
        lastLine = now
        const s = (now - started) / 1000
        log(
          `  block ${b}/${options.blocks}, ${txs}/${options.txs} txs, ${(txs / s).toFixed(0)} tx/s, ${(b / s).toFixed(0)} blocks/s, ETA ${((options.txs - txs) / (txs / s) / 60).toFixed(1)} min`,
        )
      }
    }
    const head = store.head
    const result: BigStateManifest = {
      options,
      explorerIndexes,
      head: Number(head.header.number),
      headHash: hex(head.hash),
      stateRoot: hex(head.header.stateRoot),
      txs,
      seconds: (performance.now() - started) / 1000,
      tokens: plan.tokens.slice(0, SAMPLES),
      holdings: holdings.items,
      transfers: transfers.items,
    }
    writeFileSync(manifest, `${JSON.stringify(result)}\n`)
    return result
  } finally {
    await db.close()
  }
}

const isMain = process.argv[1] !== undefined && resolve(process.argv[1]).endsWith(join('bigstate', 'generate.js'))
if (isMain) {
  const { values } = parseArgs({
    options: {
      out: { type: 'string' },
      seed: { type: 'string', default: String(FULL_SIZE.seed) },
      accounts: { type: 'string', default: String(FULL_SIZE.accounts) },
      contracts: { type: 'string', default: String(FULL_SIZE.contracts) },
      txs: { type: 'string', default: String(FULL_SIZE.txs) },
      blocks: { type: 'string', default: String(FULL_SIZE.blocks) },
      senders: { type: 'string', default: String(FULL_SIZE.senders) },
      'explorer-indexes': { type: 'string', default: 'true' },
    },
  })
  if (values.out === undefined)
    throw new Error('--out DIR is required (a new directory: keep it out of the repository)')
  const options: BigStateOptions = {
    seed: Number(values.seed),
    accounts: Number(values.accounts),
    contracts: Number(values.contracts),
    txs: Number(values.txs),
    blocks: Number(values.blocks),
    senders: Number(values.senders),
  }
  console.log(`generating ${JSON.stringify(options)} into ${values.out}`)
  const m = await generateBigState(options, resolve(values.out), console.log, values['explorer-indexes'] !== 'false')
  console.log(
    `done: head ${m.head} ${m.headHash}, state root ${m.stateRoot}, ${m.txs} txs in ${m.seconds.toFixed(1)} s (${(m.txs / m.seconds).toFixed(0)} tx/s)`,
  )
}

/**
 * The sync benchmark's source chain (issue 22): a dev-network datadir of `blocks` IBFT blocks, each
 * sealed by the one validator of its genesis (proposer seal and committed seal: what a syncing
 * node's IbftBlockImporter.importSealed checks), with plain ETH transfers — a share of the blocks
 * empty, the others carrying 1 … 2m-1 transfers (m chosen so that the chain averages
 * `txsPerBlock`) from `senders` accounts funded in the genesis to recipients drawn from
 * `recipients` addresses. Reproducible from `seed`.
 *
 * Every transaction is signed here (native secp256k1), admitted by the pool's validateTransaction
 * and executed by ibex's BlockBuilder; each block is committed by ChainStore.commitBlock with the
 * explorer indexes a default node writes (not fsynced per block). `ibex start` serves the result
 * as any chain it built.
 *
 *   <dir>/genesis.json, <dir>/data (chaindata, no validator key: the source nodes only serve),
 *   <dir>/sync-source.json (options, head, transfers; written last: its presence means complete)
 *
 * Generated once per parameter set under SYNC_SOURCE_CACHE (sourceDir), in a temporary directory
 * renamed into place when done, so an interrupted generation is never taken for a complete one.
 */
import { execFileSync } from 'node:child_process'
import { existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { createChainCommon, type GenesisJson } from '../../src/chain/common.js'
import { ChainStore } from '../../src/chain/store.js'
import { defaultConfig } from '../../src/config/defaults.js'
import { buildGenesis } from '../../src/config/genesis.js'
import { ExplorerBackfill, replayHere } from '../../src/block/explorerBackfill.js'
import { BlockBuilder } from '../../src/consensus/blockBuilder.js'
import { openDatabase } from '../../src/db/db.js'
import { TrieStore } from '../../src/state/index.js'
import type { PoolTx } from '../../src/txpool/index.js'
import { decodeRawTransaction, validateTransaction } from '../../src/txpool/validate.js'
import { keccak256 } from '../../src/util/crypto.js'
import { headAdmission } from '../../test/helpers/chain.js'
import { ALL_EXPLORER_INDEXES } from '../../src/chain/explorerIndex.js'
import { errorsOnly } from '../peers/ibex.js'
import { BENCH_GAS_LIMIT } from '../peers/types.js'
import { REPO } from '../repo.js'
import { bytes, derivedKey, hex, type Key, signTx } from '../seed/sign.js'

/** Where generated source chains are kept between runs (one directory per parameter set). */
export const SYNC_SOURCE_CACHE = '/tmp/ibex-sync-source'
/** Bump when the generator's output changes: older caches are then not reused. */
const GENERATOR_VERSION = 1
export const SOURCE_MANIFEST = 'sync-source.json'
/** Each sender's genesis balance: every transfer and its gas with room to spare. */
const SENDER_BALANCE_WEI = 10n ** 30n
/** Gas limit of each transfer. */
const TRANSFER_GAS = 21_000n
/** Seconds between progress lines. */
const PROGRESS_SECONDS = 5

export interface SyncSourceOptions {
  blocks: number
  /** Transfers per block, averaged over all blocks (empty ones included). */
  txsPerBlock: number
  /** Share of the blocks without transactions (0 … 1). */
  emptyShare: number
  /** Funded accounts that send the transfers (round-robin). */
  senders: number
  /** Distinct recipient addresses (new accounts the first time each is paid). */
  recipients: number
  seed: number
}

export const DEFAULT_SOURCE: SyncSourceOptions = {
  blocks: 100_000,
  txsPerBlock: 2,
  emptyShare: 0.5,
  senders: 256,
  recipients: 50_000,
  seed: 1,
}

export interface SyncSourceManifest {
  options: SyncSourceOptions
  head: number
  headHash: string
  transfers: number
  /** Blocks with at least one transfer. */
  fullBlocks: number
  seconds: number
}

/** The validator that sealed every block (its key is not left in the datadir). */
export function sourceValidator(seed: number): Key {
  return derivedKey(`sync/${seed}/validator`, 0)
}

export function sourceDir(o: SyncSourceOptions): string {
  return join(
    SYNC_SOURCE_CACHE,
    `v${GENERATOR_VERSION}-b${o.blocks}-t${o.txsPerBlock}-e${o.emptyShare}-s${o.senders}-r${o.recipients}-seed${o.seed}`,
  )
}

export function sourcePaths(dir: string) {
  return { datadir: join(dir, 'data'), genesis: join(dir, 'genesis.json'), manifest: join(dir, SOURCE_MANIFEST) }
}

/** The cached source chain for `o`, generated first when missing. */
export async function ensureSource(
  o: SyncSourceOptions,
  log: (line: string) => void = console.log,
): Promise<{ dir: string; manifest: SyncSourceManifest }> {
  const dir = sourceDir(o)
  const { manifest } = sourcePaths(dir)
  if (existsSync(manifest)) {
    log(`source chain: cached in ${dir}`)
    return { dir, manifest: JSON.parse(readFileSync(manifest, 'utf8')) as SyncSourceManifest }
  }
  const tmp = `${dir}.tmp-${process.pid}`
  rmSync(tmp, { recursive: true, force: true })
  try {
    log(`source chain: generating ${JSON.stringify(o)} into ${dir}`)
    const m = await generateSource(o, tmp, log)
    rmSync(dir, { recursive: true, force: true })
    renameSync(tmp, dir)
    return { dir, manifest: m }
  } catch (err) {
    rmSync(tmp, { recursive: true, force: true })
    throw err
  }
}

/** A seeded PRNG in [0, 1) (Park–Miller). */
function prng(seed: number): () => number {
  let s = (seed * 7919 + 1) % 2147483647
  return () => {
    s = (s * 16807) % 2147483647
    return (s - 1) / 2147483646
  }
}

/** How many transfers the next block carries (draws from `rand` as the generator does). */
function transfersInNextBlock(rand: () => number, emptyShare: number, mean: number): number {
  return rand() < emptyShare ? 0 : 1 + Math.floor(rand() * Math.max(1, 2 * mean - 1))
}

/** Transfers in blocks 1 … `blocks` of the chain `o` generates, without generating it (the same draws replayed). */
export function transfersUpTo(o: SyncSourceOptions, blocks: number): number {
  const rand = prng(o.seed)
  const mean = o.emptyShare < 1 ? o.txsPerBlock / (1 - o.emptyShare) : 0
  let n = 0
  for (let b = 1; b <= blocks; b++) {
    const count = transfersInNextBlock(rand, o.emptyShare, mean)
    for (let i = 0; i < 2 * count; i++) rand() // recipient and value of each transfer
    n += count
  }
  return n
}

async function generateSource(o: SyncSourceOptions, out: string, log: (line: string) => void) {
  const started = performance.now()
  const { datadir, genesis: genesisFile, manifest } = sourcePaths(out)
  mkdirSync(datadir, { recursive: true })
  const validator = sourceValidator(o.seed)
  const senders = Array.from({ length: o.senders }, (_, i) => derivedKey(`sync/${o.seed}/sender`, i))
  const recipients = Array.from({ length: o.recipients }, (_, i) =>
    keccak256(Buffer.from(`ibex-sync/${o.seed}/recipient/${i}`)).subarray(12),
  )
  const g = buildGenesis({ ...defaultConfig('dev'), datadir }, [validator.hex])
  g.gasLimit = `0x${BENCH_GAS_LIMIT.toString(16)}`
  for (const s of senders) g.alloc[s.hex] = { balance: `0x${SENDER_BALANCE_WEI.toString(16)}` }
  writeFileSync(genesisFile, JSON.stringify(g, null, 2))
  const IBEX_BIN = join(REPO, 'bin', 'ibex.js')
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
  const rand = prng(o.seed)
  const nonces = new Array<bigint>(o.senders).fill(0n)
  /** Transfers in a block that has any: 1 … 2m-1, mean m, so that the chain averages txsPerBlock. */
  const mean = o.emptyShare < 1 ? o.txsPerBlock / (1 - o.emptyShare) : 0
  let transfers = 0
  let fullBlocks = 0
  let nextSender = 0
  try {
    const store = new ChainStore(db, common)
    store.setExplorerIndexes(ALL_EXPLORER_INDEXES)
    await new ExplorerBackfill(store, errorsOnly(log), replayHere(store)).done
    common.setHardforkBy({ blockNumber: store.head.header.number, timestamp: store.head.header.timestamp })
    const recipient = (genesis.config as { baseFeeRecipient?: string } | undefined)?.baseFeeRecipient
    const builder = await BlockBuilder.create({
      store,
      common,
      trie: new TrieStore(db),
      privateKey: validator.privateKey,
      coinbase: validator.address,
      baseFeeRecipient: recipient ? bytes(recipient) : undefined,
      syncWrites: false,
    })
    let lastLine = performance.now()
    for (let b = 1; b <= o.blocks; b++) {
      const count = transfersInNextBlock(rand, o.emptyShare, mean)
      const batch: PoolTx[] = []
      if (count > 0) {
        // nonces and funds are checked for real by the executor (a dropped transfer fails below)
        const admission = {
          ...headAdmission(db, store, common),
          account: async () => ({ nonce: 0n, balance: SENDER_BALANCE_WEI }),
        }
        for (let i = 0; i < count; i++) {
          const s = nextSender
          nextSender = (nextSender + 1) % o.senders
          const sender = senders[s] as Key
          const to = recipients[Math.floor(rand() * o.recipients)] as Uint8Array
          const value = 1n + BigInt(Math.floor(rand() * 1e9))
          const signed = signTx(sender, {
            nonce: nonces[s] as bigint,
            to,
            value,
            data: new Uint8Array(0),
            gas: TRANSFER_GAS,
          })
          nonces[s] = (nonces[s] as bigint) + 1n
          const raw = bytes(signed.raw)
          const tx = decodeRawTransaction(raw, common)
          // signed here by a known key: the sender is primed (as the pool's recovery threads do)
          ;(tx as unknown as { cache: { ibexSender?: Uint8Array } }).cache.ibexSender = sender.address
          batch.push(await validateTransaction(raw, admission, tx))
        }
      }
      const { block, included } = await builder.build(batch, store.head.header.timestamp + 1n)
      if (included.length !== batch.length)
        throw new Error(`block ${block.header.number} took ${included.length} of ${batch.length} transfers`)
      transfers += included.length
      if (included.length > 0) fullBlocks++
      const now = performance.now()
      if (now - lastLine > PROGRESS_SECONDS * 1000) {
        lastLine = now
        const s = (now - started) / 1000
        log(
          `  block ${b}/${o.blocks}, ${transfers} transfers, ${(b / s).toFixed(0)} blocks/s, ETA ${((o.blocks - b) / (b / s) / 60).toFixed(1)} min`,
        )
      }
    }
    const head = store.head
    const result: SyncSourceManifest = {
      options: o,
      head: Number(head.header.number),
      headHash: hex(head.hash),
      transfers,
      fullBlocks,
      seconds: (performance.now() - started) / 1000,
    }
    writeFileSync(manifest, `${JSON.stringify(result, null, 2)}\n`)
    log(
      `source chain: head ${result.head} ${result.headHash}, ${transfers} transfers in ${result.seconds.toFixed(0)} s`,
    )
    return result
  } finally {
    await db.close()
  }
}

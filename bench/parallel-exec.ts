/**
 * Parallel execution (src/exec/parallel) against sequential, in process, over a real RocksDB
 * datadir with fsynced commits (as the node runs): blocks of N ERC-20 transfers (BenchToken,
 * bench/seed/Bench.sol) from S senders to distinct recipients, built by the BlockBuilder into
 * blocks of at most the benchmark's 60M gas. Each run sets up a fresh chain (token deployed, senders
 * funded with ether and tokens, one untimed warm-up block in the mode measured) and times the
 * build of the N transfers. Prints tx/s of both modes per run, their medians over R runs and the
 * ratio. Both modes must end on the same state root (checked).
 *
 *   npm run build && node dist/bench/parallel-exec.js [txs=2000] [senders=2000] [runs=3] [workers=cores]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { availableParallelism, tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex } from '@ethereumjs/util'
import { createChainCommon, type GenesisJson } from '../src/chain/common.js'
import { openDatabase } from '../src/chain/db.js'
import { buildGenesis as buildChainGenesis } from '../src/chain/genesis.js'
import { ChainStore } from '../src/chain/store.js'
import { defaultConfig } from '../src/config/defaults.js'
import { buildGenesis } from '../src/config/genesis.js'
import { BlockBuilder } from '../src/exec/blockBuilder.js'
import { Speculator } from '../src/exec/parallel/index.js'
import { headAdmission } from '../src/exec/testing.js'
import { TrieStore } from '../src/state/index.js'
import type { PoolTx } from '../src/txpool/index.js'
import { validateTransaction } from '../src/txpool/validate.js'
import { BENCH_GAS_LIMIT } from './peers/types.js'
import { compileBench } from './seed/plan.js'
import { addressWord, bytes, createdAddress, derivedKey, encodeAddressArrayCall, type Key, selector, signTx, word } from './seed/sign.js'

const TXS = Number(process.argv[2] ?? 2000)
const SENDERS = Number(process.argv[3] ?? 2000)
const RUNS = Number(process.argv[4] ?? 3)
const WORKERS = Number(process.argv[5] ?? availableParallelism())
/** Senders of the untimed warm-up block (its own accounts: the timed senders start at nonce 0). */
const WARM_SENDERS = 64
/** Recipients of one transferMany while funding (~25k gas each: under Osaka's 16.7M per-tx cap). */
const FUND_CHUNK = 400
const TOKEN_SUPPLY = 10n ** 27n

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

const deployer = derivedKey('parallel-deployer', 0)
const senders = Array.from({ length: SENDERS }, (_, i) => derivedKey('parallel-sender', i))
const warmers = Array.from({ length: WARM_SENDERS }, (_, i) => derivedKey('parallel-warm', i))
const token = createdAddress(deployer.address, 0n)
const recipient = (i: number) => `0x${(0x5e000000 + i).toString(16).padStart(40, '0')}`

function tx(key: Key, nonce: bigint, to: string | undefined, data: string | Uint8Array, gas: bigint): Uint8Array {
  const d = typeof data === 'string' ? bytes(data) : data
  return bytes(signTx(key, { nonce, to: to === undefined ? undefined : bytes(to), value: 0n, data: d, gas }).raw)
}
const transfer = (to: string, value: bigint) => `0x${selector('transfer(address,uint256)')}${addressWord(to)}${word(value)}`

/** The blocks before the timed ones: deploy, fund with tokens, warm up. */
function setup(): Uint8Array[][] {
  const deploy = [tx(deployer, 0n, undefined, `${compileBench().BenchToken.bytecode}${word(TOKEN_SUPPLY)}`, 3_000_000n)]
  const holders = [...senders, ...warmers].map((k) => k.hex)
  const fund: Uint8Array[] = []
  for (let i = 0; i < holders.length; i += FUND_CHUNK) {
    const chunk = holders.slice(i, i + FUND_CHUNK)
    fund.push(tx(deployer, BigInt(1 + fund.length), token, encodeAddressArrayCall('transferMany(address[],uint256)', chunk, [10n ** 21n]), 16_000_000n))
  }
  const blocks: Uint8Array[][] = [deploy]
  // funding transactions, at most three per block (~12M gas each)
  for (let i = 0; i < fund.length; i += 3) blocks.push(fund.slice(i, i + 3))
  blocks.push(warmers.map((k, i) => tx(k, 0n, token, transfer(recipient(1_000_000 + i), 1n), 100_000n)))
  return blocks
}

/** The timed transfers: sender i mod S, recipient i (distinct), in nonce order per sender. */
function timed(): Uint8Array[] {
  return Array.from({ length: TXS }, (_, i) =>
    tx(senders[i % SENDERS] as Key, BigInt(Math.floor(i / SENDERS)), token, transfer(recipient(i), 1n + BigInt(i % 7)), 100_000n),
  )
}

async function once(parallel: boolean, setupBlocks: Uint8Array[][], raws: Uint8Array[]) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-parallel-exec-'))
  try {
    const validator = derivedKey('validator', 0)
    const alloc: Record<string, { balance: string }> = {}
    for (const k of [deployer, ...senders, ...warmers]) alloc[k.hex] = { balance: `0x${(10n ** 20n).toString(16)}` }
    const g = buildGenesis({ ...defaultConfig('dev'), datadir: dir }, [validator.hex], { alloc })
    g.gasLimit = `0x${BENCH_GAS_LIMIT.toString(16)}`
    const genesis = g as unknown as GenesisJson
    const common = createChainCommon(genesis)
    const db = await openDatabase(join(dir, 'chaindata'))
    const store = new ChainStore(db, common)
    const trie = new TrieStore(db)
    const gb = await buildChainGenesis(genesis, common, trie)
    await store.commitBlock(
      { hash: gb.hash, headerRaw: gb.headerRaw, transactionBytes: [], receipts: [], totalDifficulty: 1n, withdrawals: [] },
      trie,
      true,
    )
    const speculator = parallel
      ? new Speculator({ db, store, common, genesis, workers: WORKERS, cacheBytes: 64 * 1024 * 1024, workerHeapMb: 0 })
      : undefined
    speculator?.start()
    const builder = await BlockBuilder.create({
      store,
      common,
      trie,
      privateKey: validator.privateKey,
      coinbase: validator.address,
      baseFeeRecipient: undefined,
      syncWrites: true,
      speculator,
    })
    const admit = async (list: Uint8Array[]) => {
      // every sender is funded and each list starts at its nonce: admission checks only the rest
      const ctx = { ...headAdmission(db, store, common), account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }
      const out: PoolTx[] = []
      for (const raw of list) out.push(await validateTransaction(raw, ctx))
      return out
    }
    const buildAll = async (pool: PoolTx[]) => {
      let remaining = pool
      let blocks = 0
      let applied = 0
      while (remaining.length > 0) {
        const r = await builder.build(remaining, store.head.header.timestamp + 1n)
        if (r.included.length === 0) throw new Error('no progress')
        if (r.dropped.length > 0) throw new Error(`dropped: ${r.dropped[0]?.reason}`)
        if (r.block.header.gasUsed === 0n) throw new Error('empty block')
        blocks++
        applied += r.speculation.applied
        const done = new Set(r.included.map((p) => p.hashHex))
        remaining = remaining.filter((p) => !done.has(p.hashHex))
      }
      return { blocks, applied }
    }
    // untimed: deployment, funding, and a warm-up block (workers loaded, code compiled)
    for (const block of setupBlocks) await buildAll(await admit(block))
    const pool = await admit(raws)
    const t = performance.now()
    const { blocks, applied } = await buildAll(pool)
    const ms = performance.now() - t
    const root = bytesToHex(store.head.header.stateRoot)
    await speculator?.close()
    await db.close()
    return { txs: (raws.length / ms) * 1000, blocks, applied, root }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const setupBlocks = setup()
const raws = timed()
const seq: number[] = []
const par: number[] = []
for (let r = 0; r < RUNS; r++) {
  // alternate the order, so neither mode always runs on a warmer (or hotter) machine
  const first = r % 2 === 0
  const a = await once(!first, setupBlocks, raws)
  const b = await once(first, setupBlocks, raws)
  const [s, p] = first ? [a, b] : [b, a]
  if (s.root !== p.root) throw new Error(`state roots differ: sequential ${s.root}, parallel ${p.root}`)
  seq.push(s.txs)
  par.push(p.txs)
  console.log(
    `run ${r + 1}: sequential ${s.txs.toFixed(0)} tx/s, parallel ${p.txs.toFixed(0)} tx/s (${p.applied}/${TXS} applied from speculation, ${p.blocks} blocks)`,
  )
}
console.log(
  `median of ${RUNS} (${TXS} ERC-20 transfers, ${SENDERS} senders, ${WORKERS} speculation workers, ${availableParallelism()} cores): sequential ${median(seq).toFixed(0)} tx/s, parallel ${median(par).toFixed(0)} tx/s, ratio ${(median(par) / median(seq)).toFixed(2)}x`,
)

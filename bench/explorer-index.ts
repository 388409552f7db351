/**
 * What the explorer indexes (src/chain/explorerIndex.ts, `[explorer] index_*`) cost block
 * building, and how fast an address history page is read back. In process, over a real RocksDB
 * datadir with fsynced commits, as the node runs:
 *
 *  1. build rate with the indexes off and on, the same pre-signed transactions, after one untimed
 *     warm-up of each, runs alternated so both see the same box: plain transfers (the transfers layer: no EVM) and calls to a
 *     contract that forwards the value to a third address (two call frames each, the activity
 *     collector's case);
 *     then the import rate of the same blocks as sealed IBFT blocks (IbftBlockImporter.importSealed:
 *     seals checked, executed again, committed), as a syncing node imports them;
 *  2. a history of HISTORY blocks, each with one forwarded payment to one address that only
 *     internal calls ever touch, then every ots_searchTransactionsBefore page of it (25 per
 *     page, newest first) answered through the ots_ namespace and the dispatcher, as JSON:
 *     median and worst page time.
 *
 *   npm run build && node dist/bench/explorer-index.js [txs=4000] [runs=3 (0: skip the rates)] [history=10000 (0: skip)]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ALL_EXPLORER_INDEXES, type ExplorerIndexes, NO_EXPLORER_INDEXES } from '../src/chain/explorerIndex.js'
import { encodeWireBlock } from '../src/chain/blockRlp.js'
import { IbftBlockImporter } from '../src/consensus/ibftBlockImporter.js'
import type { Backend } from '../src/rpc/backend.js'
import { otsNamespace } from '../src/rpc/namespaces/ots.js'
import { RpcDispatcher } from '../src/rpc/server/dispatch.js'
import type { PoolTx } from '../src/txpool/index.js'
import { validateTransaction } from '../src/txpool/validate.js'
import { headAdmission, openTestChain } from '../test/helpers/chain.js'
import { BENCH_GAS_LIMIT } from './peers/types.js'
import { bytes, createdAddress, derivedKey, hex, signTx } from './seed/sign.js'

const TXS = Number(process.argv[2] ?? 4000)
const RUNS = Number(process.argv[3] ?? 3)
const HISTORY = Number(process.argv[4] ?? 10_000)
const SENDERS = 500
/** Runtime: CALL(gas, calldata[0..32) as address, callvalue) — forwards what it is sent. */
const FORWARDER_INIT = bytes('0x600f80600b6000396000f36000600060006000346000355af100')
const TARGET = `0x${'7a'.repeat(20)}`
const SINK = bytes(`0x${'5e'.repeat(20)}`)
const PAGE = 25

const deployer = derivedKey('explorer-deployer', 0)
const forwarder = createdAddress(deployer.address, 0n)
const keys = Array.from({ length: SENDERS }, (_, i) => derivedKey('explorer-sender', i))
const payData = bytes(`0x${TARGET.slice(2).padStart(64, '0')}`)

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

async function openChain(dir: string, explorer: ExplorerIndexes) {
  const validator = derivedKey('validator', 0)
  const alloc: Record<string, { balance: string }> = { [deployer.hex]: { balance: `0x${(10n ** 21n).toString(16)}` } }
  for (const k of keys) alloc[k.hex] = { balance: `0x${(10n ** 21n).toString(16)}` }
  const chain = await openTestChain(dir, {
    validator: { address: validator.hex, privateKey: hex(validator.privateKey) },
    syncWrites: true,
    alloc,
    gasLimit: BigInt(BENCH_GAS_LIMIT),
    explorer,
  })
  const deploy = signTx(deployer, { nonce: 0n, to: undefined, value: 0n, data: FORWARDER_INIT, gas: 100_000n })
  await buildAll(chain, [bytes(deploy.raw)])
  return chain
}

async function buildAll(chain: Awaited<ReturnType<typeof openTestChain>>, raws: Uint8Array[]): Promise<number> {
  const ctx = headAdmission(chain.db, chain.store, chain.common)
  const pool: PoolTx[] = []
  for (const raw of raws) pool.push(await validateTransaction(raw, ctx))
  let remaining = pool
  let blocks = 0
  while (remaining.length > 0) {
    const { included } = await chain.builder.build(remaining, chain.store.head.header.timestamp + 1n)
    if (included.length === 0) throw new Error('no progress')
    blocks++
    const done = new Set(included.map((p) => p.hashHex))
    remaining = remaining.filter((p) => !done.has(p.hashHex))
  }
  return blocks
}

function workload(kind: 'transfers' | 'forwarded'): Uint8Array[] {
  const raws: Uint8Array[] = []
  for (let i = 0; i < TXS; i++) {
    const key = keys[i % SENDERS] as (typeof keys)[number]
    const nonce = BigInt(Math.floor(i / SENDERS))
    const f =
      kind === 'transfers'
        ? { nonce, to: SINK, value: 1n, data: new Uint8Array(0), gas: 21_000n }
        : { nonce, to: bytes(forwarder), value: 1n, data: payData, gas: 60_000n }
    raws.push(bytes(signTx(key, f).raw))
  }
  return raws
}

/** The wire blocks of `raws` built once (indexes off), for the import rates. */
async function builtBlocks(raws: Uint8Array[]): Promise<Uint8Array[]> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-blocks-'))
  try {
    const chain = await openChain(dir, NO_EXPLORER_INDEXES)
    const first = chain.store.head.header.number + 1n
    await buildAll(chain, raws)
    const out: Uint8Array[] = []
    for (let n = 1n; n <= chain.store.head.header.number; n++) {
      const b = chain.store.getBlockByNumber(n)
      if (b === undefined) throw new Error(`block ${n} missing`)
      if (n >= first || n === 1n) out.push(encodeWireBlock(b))
    }
    await chain.db.close()
    return out
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Transactions per second imported as IBFT sealed blocks (verified, executed, committed), as a syncing node does. */
async function importRate(blocks: Uint8Array[], txCount: number, explorer: ExplorerIndexes): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-import-'))
  try {
    const validator = derivedKey('validator', 0)
    const alloc: Record<string, { balance: string }> = { [deployer.hex]: { balance: `0x${(10n ** 21n).toString(16)}` } }
    for (const k of keys) alloc[k.hex] = { balance: `0x${(10n ** 21n).toString(16)}` }
    const chain = await openTestChain(dir, {
      validator: { address: validator.hex, privateKey: hex(validator.privateKey) },
      syncWrites: true,
      alloc,
      gasLimit: BigInt(BENCH_GAS_LIMIT),
      explorer,
    })
    const importer = new IbftBlockImporter({
      store: chain.store,
      common: chain.common,
      baseFeeRecipient: undefined,
      syncWrites: true,
      onCommitted: () => {},
    })
    // block 1 deploys the forwarder: not timed
    await importer.importSealed(blocks[0] as Uint8Array)
    const t = performance.now()
    for (const b of blocks.slice(1)) await importer.importSealed(b)
    const ms = performance.now() - t
    await chain.db.close()
    return (txCount / ms) * 1000
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function buildRate(raws: Uint8Array[], explorer: ExplorerIndexes): Promise<number> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-bench-'))
  try {
    const chain = await openChain(dir, explorer)
    const t = performance.now()
    await buildAll(chain, raws)
    const ms = performance.now() - t
    await chain.db.close()
    return (raws.length / ms) * 1000
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

for (const kind of RUNS > 0 ? (['transfers', 'forwarded'] as const) : []) {
  const raws = workload(kind)
  // warm-up: the JIT and RocksDB's first allocations, untimed
  await buildRate(raws, NO_EXPLORER_INDEXES)
  await buildRate(raws, ALL_EXPLORER_INDEXES)
  const off: number[] = []
  const on: number[] = []
  for (let r = 0; r < RUNS; r++) {
    off.push(await buildRate(raws, NO_EXPLORER_INDEXES))
    on.push(await buildRate(raws, ALL_EXPLORER_INDEXES))
    console.log(`${kind} run ${r + 1}: indexes off ${off.at(-1)?.toFixed(0)} tx/s, on ${on.at(-1)?.toFixed(0)} tx/s`)
  }
  const [a, b] = [median(off), median(on)]
  console.log(
    `${kind}: median of ${RUNS} (${TXS} txs, ${SENDERS} senders): indexes off ${a.toFixed(0)} tx/s, on ${b.toFixed(0)} tx/s (${(((b - a) / a) * 100).toFixed(1)}%)`,
  )
  const blocks = await builtBlocks(raws)
  await importRate(blocks, raws.length, NO_EXPLORER_INDEXES)
  const importOff: number[] = []
  const importOn: number[] = []
  for (let r = 0; r < RUNS; r++) {
    importOff.push(await importRate(blocks, raws.length, NO_EXPLORER_INDEXES))
    importOn.push(await importRate(blocks, raws.length, ALL_EXPLORER_INDEXES))
  }
  const [c, d] = [median(importOff), median(importOn)]
  console.log(
    `${kind} import (sealed IBFT blocks: verify, execute, commit): median of ${RUNS}: indexes off ${c.toFixed(0)} tx/s, on ${d.toFixed(0)} tx/s (${(((d - c) / c) * 100).toFixed(1)}%)`,
  )
}

// an address touched only by internal calls, once per block over HISTORY blocks (0: skipped)
if (HISTORY > 0) await history()

async function history(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-history-'))
  try {
    const chain = await openChain(dir, ALL_EXPLORER_INDEXES)
    const t = performance.now()
    for (let i = 0; i < HISTORY; i++) {
      const key = keys[i % SENDERS] as (typeof keys)[number]
      const raw = signTx(key, {
        nonce: BigInt(Math.floor(i / SENDERS)),
        to: bytes(forwarder),
        value: 1n,
        data: payData,
        gas: 60_000n,
      })
      await buildAll(chain, [bytes(raw.raw)])
    }
    console.log(`history: ${HISTORY} blocks built in ${((performance.now() - t) / 1000).toFixed(1)} s`)
    const { store } = chain
    const backend = {
      head: () => store.head,
      blockByNumber: (n: bigint) => store.getBlockByNumber(n),
      receipts: (h: Uint8Array) => store.getReceipts(h),
      explorer: store.explorer,
      otsMaxPageSize: PAGE,
    } as unknown as Backend
    const dispatcher = new RpcDispatcher({
      namespaces: [otsNamespace],
      enabledApis: ['ots'],
      ctx: backend,
      maxBatchItems: 0,
    })
    const times: number[] = []
    let block = 0
    let seen = 0
    for (;;) {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'ots_searchTransactionsBefore',
        params: [TARGET, block, PAGE],
      })
      const start = performance.now()
      const text = (await dispatcher.handleBody(body)) as string
      times.push(performance.now() - start)
      const page = JSON.parse(text).result
      seen += page.txs.length
      if (page.lastPage) break
      block = Number(page.txs.at(-1).blockNumber)
    }
    if (seen !== HISTORY) throw new Error(`history: found ${seen} of ${HISTORY}`)
    const [first, ...rest] = times
    const sorted = [...rest].sort((x, y) => x - y)
    const p99 = sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * 0.99))] as number
    console.log(
      `history: ${times.length} pages of ${PAGE} (all ${seen} found, newest first), JSON text included: first page (cold) ${(first as number).toFixed(2)} ms; the others median ${median(rest).toFixed(2)} ms, p99 ${p99.toFixed(2)} ms, worst ${Math.max(...rest).toFixed(2)} ms`,
    )
    await chain.db.close()
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Block execution, in process: N pre-signed transfers from S senders (funded in the genesis),
 * admitted through the pool's validation, then sealed by the BlockBuilder into blocks of at most
 * the benchmark's 60M gas, over a real RocksDB datadir with fsynced commits (as the node runs).
 * Prints admission and build rates (tx/s), the median of R runs. The write path's ceiling: a node
 * cannot finalize more transfers per second than it builds.
 *
 *   npm run build && node dist/bench/block-exec.js [txs=6000] [senders=2000] [runs=3] [transfers=on|off|both]
 *
 * `off` runs every transfer through runTx instead of the transfers layer of the block executor
 * (src/block/transfers.ts); `both` measures both in the same run, for the layer's before/after.
 *   profile: node --cpu-prof --cpu-prof-dir=prof dist/bench/block-exec.js 6000 2000 1
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { headAdmission, openTestChain } from '../test/helpers/chain.js'
import type { PoolTx } from '../src/txpool/index.js'
import { validateTransaction } from '../src/txpool/validate.js'
import { BENCH_GAS_LIMIT } from './peers/types.js'
import { bytes, derivedKey, hex, signTx } from './seed/sign.js'

const TXS = Number(process.argv[2] ?? 6000)
const SENDERS = Number(process.argv[3] ?? 2000)
const RUNS = Number(process.argv[4] ?? 3)
const TRANSFERS = process.argv[5] ?? 'on'
const SINK = bytes(`0x${'5e'.repeat(20)}`)

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

async function once(
  raws: Uint8Array[],
  senders: string[],
  fastTransfers: boolean,
): Promise<{ admit: number; build: number; blocks: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-block-exec-'))
  try {
    const validator = derivedKey('validator', 0)
    const alloc: Record<string, { balance: string }> = {}
    for (const s of senders) alloc[s] = { balance: `0x${(10n ** 20n).toString(16)}` }
    const { db, store, common, builder } = await openTestChain(dir, {
      validator: { address: validator.hex, privateKey: hex(validator.privateKey) },
      syncWrites: true,
      alloc,
      gasLimit: BigInt(BENCH_GAS_LIMIT),
      fastTransfers,
    })
    const ctx = headAdmission(db, store, common)
    let t = performance.now()
    const pool: PoolTx[] = []
    for (const raw of raws) pool.push(await validateTransaction(raw, ctx))
    const admitMs = performance.now() - t
    t = performance.now()
    let remaining = pool
    let blocks = 0
    while (remaining.length > 0) {
      const { included } = await builder.build(remaining, store.head.header.timestamp + 1n)
      if (included.length === 0) throw new Error('no progress')
      blocks++
      const done = new Set(included.map((p) => p.hashHex))
      remaining = remaining.filter((p) => !done.has(p.hashHex))
    }
    const buildMs = performance.now() - t
    await db.close()
    return { admit: (raws.length / admitMs) * 1000, build: (raws.length / buildMs) * 1000, blocks }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const keys = Array.from({ length: SENDERS }, (_, i) => derivedKey('sender', i))
const raws: Uint8Array[] = []
for (let i = 0; i < TXS; i++) {
  const key = keys[i % SENDERS] as (typeof keys)[number]
  raws.push(
    bytes(
      signTx(key, {
        nonce: BigInt(Math.floor(i / SENDERS)),
        to: SINK,
        value: 1n,
        data: new Uint8Array(0),
        gas: 21_000n,
      }).raw,
    ),
  )
}
const modes = TRANSFERS === 'both' ? [true, false] : [TRANSFERS !== 'off']
for (const fastTransfers of modes) {
  const admit: number[] = []
  const build: number[] = []
  for (let r = 0; r < RUNS; r++) {
    const o = await once(
      raws,
      keys.map((k) => k.hex),
      fastTransfers,
    )
    admit.push(o.admit)
    build.push(o.build)
    console.log(
      `run ${r + 1}: admission ${o.admit.toFixed(0)} tx/s, block build ${o.build.toFixed(0)} tx/s (${o.blocks} blocks)`,
    )
  }
  console.log(
    `median of ${RUNS} (${TXS} transfers, ${SENDERS} senders, transfers layer ${fastTransfers ? 'on' : 'off'}): admission ${median(admit).toFixed(0)} tx/s, block build ${median(build).toFixed(0)} tx/s`,
  )
}

/**
 * Block execution throughput: N pre-signed transfers from S senders, admitted through the
 * pool's validation and built into blocks by BlockBuilder over a real RocksDB datadir.
 * Prints admission rate, build rate (tx/s) and the median of R runs.
 *
 *   npx tsx bench/block-build.ts [txs=1000] [senders=10] [runs=3]
 *   (or after `npm run build`: node dist/bench/block-build.js)
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { devAccounts } from '../src/config/accounts.js'
import { openTestChain } from '../test/helpers/chain.js'
import type { PoolTx } from '../src/txpool/index.js'
import { validateTransaction } from '../src/txpool/validate.js'

const TXS = Number(process.argv[2] ?? 1000)
const SENDERS = Number(process.argv[3] ?? 10)
const RUNS = Number(process.argv[4] ?? 3)

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor(s.length / 2)] as number
}

async function once(): Promise<{ admitPerSec: number; buildPerSec: number }> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-bench-'))
  try {
    const accounts = devAccounts(Math.min(SENDERS + 1, 10))
    const validator = accounts[accounts.length - 1] as { address: string; privateKey: string }
    const senders = accounts.slice(0, Math.min(SENDERS, accounts.length - 1))
    const { db, store, common, builder, admission } = await openTestChain(dir, { validator, syncWrites: true })
    const raws: Uint8Array[] = []
    for (let i = 0; i < TXS; i++) {
      const sender = senders[i % senders.length] as { privateKey: string }
      const nonce = BigInt(Math.floor(i / senders.length))
      raws.push(
        createTx(
          {
            type: 2,
            nonce,
            to: `0x${'11'.repeat(20)}`,
            value: 1n,
            gasLimit: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 1n,
          },
          { common },
        )
          .sign(hexToBytes(sender.privateKey as `0x${string}`))
          .serialize(),
      )
    }
    const ctx = admission()
    let t = performance.now()
    const pool: PoolTx[] = []
    for (const raw of raws) pool.push(await validateTransaction(raw, ctx))
    const admitMs = performance.now() - t
    // blocks of at most 1428 transfers (30M gas): build until all are in
    t = performance.now()
    let remaining = pool
    let ts = store.head.header.timestamp
    while (remaining.length > 0) {
      const { included } = await builder.build(remaining, ++ts)
      const done = new Set(included.map((p) => p.hashHex))
      remaining = remaining.filter((p) => !done.has(p.hashHex))
      if (included.length === 0) throw new Error('no progress')
    }
    const buildMs = performance.now() - t
    await db.close()
    return { admitPerSec: (TXS / admitMs) * 1000, buildPerSec: (TXS / buildMs) * 1000 }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

const admit: number[] = []
const build: number[] = []
for (let r = 0; r < RUNS; r++) {
  const { admitPerSec, buildPerSec } = await once()
  admit.push(admitPerSec)
  build.push(buildPerSec)
  console.log(`run ${r + 1}: admission ${admitPerSec.toFixed(0)} tx/s, block build ${buildPerSec.toFixed(0)} tx/s`)
}
console.log(
  `median of ${RUNS} (${TXS} transfers, ${SENDERS} senders): admission ${median(admit).toFixed(0)} tx/s, block build ${median(build).toFixed(0)} tx/s`,
)

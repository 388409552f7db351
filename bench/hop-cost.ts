/**
 * What a worker hop costs, next to what the work costs — the numbers behind "cheap reads stay on
 * the main thread, EVM runs go to the pool" (DESIGN.md, Shape):
 *  - a Piscina round trip of an empty task (the hop alone);
 *  - a balance read on the main thread (what eth_getBalance does: trie lookup at the head root);
 *  - a trivial eth_call (no code) in process and through the pool; a contract call (Loop.run(N)).
 * Sequential, after warm-up; medians of `rounds` timings. Each call has its own `from`, so none
 * is answered from the per-thread result cache.
 *
 *   npm run build && node dist/bench/hop-cost.js [rounds=300] [loopN=200]
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { Address, hexToBytes } from '@ethereumjs/util'
import { Piscina } from 'piscina'
import type { GenesisJson } from '../src/chain/common.js'
import { devAccounts } from '../src/config/accounts.js'
import { defaultConfig } from '../src/config/defaults.js'
import { buildGenesis } from '../src/config/genesis.js'
import { ExecPool } from '../src/exec/pool/index.js'
import { openTestChain } from '../test/helpers/chain.js'
import { stateAt } from '../src/state/index.js'
import { validateTransaction } from '../src/txpool/validate.js'
import { compileFixtures, loopRunData, percentile } from './node-process.js'

const ROUNDS = Number(process.argv[2] ?? 300)
const LOOP_N = Number(process.argv[3] ?? 200)
const WARMUP = 50

async function medianMs(fn: () => Promise<unknown>): Promise<number> {
  for (let i = 0; i < WARMUP; i++) await fn()
  const xs: number[] = []
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now()
    await fn()
    xs.push(performance.now() - t)
  }
  return percentile(xs, 50)
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-hop-'))
  const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]
  const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  const genesis = buildGenesis({ ...defaultConfig('dev'), datadir: dir }, [
    validator?.address as string,
  ]) as unknown as GenesisJson
  const echoFile = join(dir, 'echo.mjs')
  writeFileSync(echoFile, 'export default (x) => x\n')
  const echo = new Piscina({ filename: echoFile, minThreads: 1, maxThreads: 1 })
  const deploy = createTx(
    {
      type: 2,
      nonce: 0n,
      data: hexToBytes(compileFixtures().Loop as `0x${string}`),
      gasLimit: 1_000_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 1n,
    },
    { common: chain.common },
  ).sign(hexToBytes(alice?.privateKey as `0x${string}`))
  const { block } = await chain.builder.build(
    [await validateTransaction(deploy.serialize(), chain.admission())],
    chain.store.head.header.timestamp + 1n,
  )
  const loop = chain.store.getReceipts(block.hash)?.[0]?.contractAddress as Uint8Array
  const pooled = new ExecPool({
    db: chain.db,
    store: chain.store,
    common: chain.common,
    genesis,
    workers: 1,
    callQueue: 100,
    traceWorkers: 1,
    traceQueue: 1,
    workerHeapMb: 0,
    cacheBytes: 16 << 20,
  })
  const inline = ExecPool.inProcess(chain.db, chain.store, chain.common)
  const aliceAddress = new Address(hexToBytes(alice?.address as `0x${string}`))
  const limits = { gasCap: 50_000_000n, timeoutMs: 5000 }
  let n = 1
  const freshFrom = () => hexToBytes(`0x${(n++).toString(16).padStart(40, '0')}`)
  const job = (to: Uint8Array, data?: Uint8Array) => ({
    kind: 'call' as const,
    head: chain.store.head.header.number,
    blockHash: chain.store.head.hash,
    request: { from: freshFrom(), to, data },
    limits,
  })
  const loopData = hexToBytes(loopRunData(LOOP_N) as `0x${string}`)
  try {
    const rows: [string, number][] = [
      ['Piscina round trip, empty task', await medianMs(() => echo.run(1))],
      [
        'balance read on the main thread (eth_getBalance)',
        await medianMs(() =>
          stateAt(chain.db, chain.common, chain.store.head.header.stateRoot).getAccount(aliceAddress),
        ),
      ],
      ['trivial eth_call, in process', await medianMs(() => inline.call(job(aliceAddress.bytes)))],
      ['trivial eth_call, through the pool', await medianMs(() => pooled.call(job(aliceAddress.bytes)))],
      [`Loop.run(${LOOP_N}) eth_call, in process`, await medianMs(() => inline.call(job(loop, loopData)))],
      [`Loop.run(${LOOP_N}) eth_call, through the pool`, await medianMs(() => pooled.call(job(loop, loopData)))],
    ]
    console.log('| what | median ms |')
    console.log('|---|---|')
    for (const [what, ms] of rows) console.log(`| ${what} | ${ms.toFixed(3)} |`)
  } finally {
    await echo.destroy()
    await pooled.close()
    await chain.db.close()
    rmSync(dir, { recursive: true, force: true })
  }
}

await main()

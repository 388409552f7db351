/**
 * Stress test of the shared RocksDB handle: worker threads (dist/workers/execute.js, attached by
 * handle) run eth_call against blocks while the main thread keeps committing new blocks to the
 * same database. Every answer must be the value the chain had at that block (no torn or stale
 * read), nothing may crash, and closing — pool first, database after, with calls still in flight
 * — must not take the process down. Needs `npm run build` (the workers load from dist/).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { bigIntToBytes, bytesToBigInt, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import type { GenesisJson } from '../../chain/common.js'
import type { ChainBlock } from '../../chain/store.js'
import { devAccounts } from '../../config/accounts.js'
import { defaultConfig } from '../../config/defaults.js'
import { buildGenesis } from '../../config/genesis.js'
import { openTestChain, validateTransaction } from '../../../test/helpers/chain.js'
import { ExecPool } from './index.js'

/**
 * Runtime: with calldata, SSTORE(0, calldata[0..32]); without, return SLOAD(0).
 *   CALLDATASIZE ISZERO PUSH1 0x0a JUMPI PUSH0 CALLDATALOAD PUSH0 SSTORE STOP
 *   JUMPDEST PUSH0 SLOAD PUSH0 MSTORE PUSH1 0x20 PUSH0 RETURN
 */
const RUNTIME = '3615600a575f355f55005b5f545f5260205ff3'
/** PUSH19 runtime, PUSH0 MSTORE, RETURN(13, 19). */
const INITCODE = hexToBytes(`0x72${RUNTIME}5f526013600df3`)
/** Blocks committed at least, and reads made at least, while the two overlap. */
const BLOCKS = 40
const READS = 150
const MAX_BLOCKS = 400
const READERS = 6

const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]
const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function openChainWithPool(workers: number) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-shareddb-'))
  dirs.push(dir)
  const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
  const genesis = buildGenesis({ ...defaultConfig('dev'), datadir: dir }, [
    validator?.address as string,
  ]) as unknown as GenesisJson
  const pool = new ExecPool({
    db: chain.db,
    store: chain.store,
    common: chain.common,
    genesis,
    workers,
    callQueue: 10_000,
    // thousands of calls queue at once on loaded cores: the wait bound is not what this tests
    queueTimeoutMs: 600_000,
    traceWorkers: 1,
    traceQueue: 10,
    workerHeapMb: 0,
    cacheBytes: 4 * 1024 * 1024,
  })
  pool.start()
  return { ...chain, pool }
}

type Chain = Awaited<ReturnType<typeof openChainWithPool>>

async function mine(
  c: Chain,
  data: Uint8Array | undefined,
  to: Uint8Array | undefined,
  nonce: bigint,
): Promise<ChainBlock> {
  const tx = createTx(
    { type: 2, nonce, to, data, gasLimit: 200_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
    { common: c.common },
  ).sign(hexToBytes(alice?.privateKey as `0x${string}`))
  const ptx = await validateTransaction(tx.serialize(), c.admission())
  const { block, included } = await c.builder.build([ptx], c.store.head.header.timestamp + 1n)
  expect(included.length).toBe(1)
  return block
}

/** A read of the contract at `block`; a fresh `from` each time, so no result cache answers it. */
function readCall(
  c: Chain,
  block: ChainBlock,
  contract: Uint8Array,
  from: Uint8Array = crypto.getRandomValues(new Uint8Array(20)),
) {
  return c.pool.call({
    kind: 'call',
    head: c.store.head.header.number,
    blockHash: block.hash,
    request: { to: contract, from },
    limits: { gasCap: 1_000_000n, timeoutMs: 10_000 },
  })
}

describe('workers sharing the main thread’s RocksDB handle', () => {
  it('read every block’s state exactly while the main thread commits new blocks', { timeout: 120_000 }, async () => {
    const c = await openChainWithPool(2)
    const deployed = await mine(c, INITCODE, undefined, 0n)
    const contract = c.store.getReceipts(deployed.hash)?.[0]?.contractAddress as Uint8Array
    expect(contract).toBeDefined()
    const expected = new Map<string, bigint>([[Buffer.from(deployed.hash).toString('hex'), 0n]])
    const committed: ChainBlock[] = [deployed]
    let done = false
    let reads = 0
    const mismatches: string[] = []
    const reader = async (): Promise<void> => {
      while (!done) {
        // mostly the newest block (its trie nodes were written a moment ago), sometimes an old one
        const block =
          Math.random() < 0.7
            ? (committed.at(-1) as ChainBlock)
            : (committed[Math.floor(Math.random() * committed.length)] as ChainBlock)
        const got = bytesToBigInt((await readCall(c, block, contract)) as Uint8Array)
        const want = expected.get(Buffer.from(block.hash).toString('hex'))
        if (got !== want) mismatches.push(`block ${block.header.number}: got ${got}, want ${want}`)
        reads++
      }
    }
    const readers = Array.from({ length: READERS }, reader)
    for (let n = 1n; n <= BigInt(BLOCKS) || (reads < READS && n <= BigInt(MAX_BLOCKS)); n++) {
      const block = await mine(c, setLengthLeft(bigIntToBytes(n * 1000n + 7n), 32), contract, n)
      expected.set(Buffer.from(block.hash).toString('hex'), n * 1000n + 7n)
      committed.push(block)
      // a block build never yields to the event loop (the sealer runs one per tick in the node):
      // give the pool's replies a turn, as the node does between blocks
      await new Promise((r) => setImmediate(r))
    }
    done = true
    await Promise.all(readers)
    console.info(`shared handle: ${committed.length} blocks committed while ${reads} eth_calls read them on 2 workers`)
    expect(mismatches).toEqual([])
    expect(reads).toBeGreaterThanOrEqual(READS)
    await c.pool.close()
    await c.db.close()
  })

  it('answers a repeated eth_call at the same block from the main thread: the worker runs it twice, then memory answers', async () => {
    const c = await openChainWithPool(1)
    const deployed = await mine(c, INITCODE, undefined, 0n)
    const contract = c.store.getReceipts(deployed.hash)?.[0]?.contractAddress as Uint8Array
    const stored = await mine(c, setLengthLeft(bigIntToBytes(42n), 32), contract, 1n)
    const from = new Uint8Array(20).fill(7)
    for (let i = 0; i < 5; i++)
      expect(bytesToBigInt((await readCall(c, stored, contract, from)) as Uint8Array)).toBe(42n)
    // the cache keeps a result the second time its call is answered (callCache.ts, the doorkeeper)
    expect(c.pool.stats().calls?.completed).toBe(2)
    // another block is another key: the worker runs it, and answers that block's value
    expect(bytesToBigInt((await readCall(c, deployed, contract, from)) as Uint8Array)).toBe(0n)
    expect(c.pool.stats().calls?.completed).toBe(3)
    await c.pool.close()
    await c.db.close()
  })

  it('closes cleanly with calls in flight: pool first, then the database', { timeout: 60_000 }, async () => {
    for (let round = 0; round < 3; round++) {
      const c = await openChainWithPool(2)
      const deployed = await mine(c, INITCODE, undefined, 0n)
      const contract = c.store.getReceipts(deployed.hash)?.[0]?.contractAddress as Uint8Array
      const inflight = Array.from({ length: 50 }, () =>
        readCall(c, deployed, contract).then(
          () => 'ok',
          (e: Error) => e.message,
        ),
      )
      await new Promise((r) => setTimeout(r, 20 * round))
      await c.pool.close()
      await c.db.close()
      const outcomes = await Promise.all(inflight)
      for (const o of outcomes)
        expect(['ok', 'the node is shutting down']).toContain(
          o.startsWith('internal error') ? 'the node is shutting down' : o,
        )
    }
  })
})

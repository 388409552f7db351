/**
 * A dev chain with a pool, chain events and a FilterSystem, for the tests of filters and of their
 * formatting (src/rpc/format): `mine` seals a block of log-emitting deployments, `advance` moves
 * the filters' clock. Test-only.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import type { ChainBlock } from '../../src/chain/store.js'
import { devAccounts } from '../../src/config/accounts.js'
import { openTestChain } from './chain.js'
import { createPoolChain } from '../../src/txpool/chain.js'
import { TransactionPool } from '../../src/txpool/pool.js'
import { ChainEvents } from '../../src/filters/events.js'
import { FilterSystem } from '../../src/filters/filters.js'
import type { LogQuery } from '../../src/filters/query.js'

const GWEI = 10n ** 9n
/** Gas for one log-emitting deployment (it uses ~55k). */
const DEPLOY_GAS = 100_000n

const [alice, validator] = devAccounts(2) as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]
/** The account that sends every test transaction. */
export const SENDER = alice

/** The 32-byte word `n`, as 0x hex. */
export const T = (n: number) => `0x${n.toString(16).padStart(64, '0')}`
/** The 32-byte word `n`, as bytes. */
export const topic = (n: number) => hexToBytes(T(n) as `0x${string}`)
/** 0x hex of bytes. */
export const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`
/** A block number bound. */
export const num = (n: bigint) => ({ kind: 'number', number: n }) as const

/** Criteria with everything unset but `c`. */
export function criteria(c: Partial<LogQuery>): LogQuery {
  return { blockHash: undefined, fromBlock: undefined, toBlock: undefined, addresses: [], topics: [], ...c }
}

/** Init code that emits LOG2(topic0, topic1) from the new contract's address and stops. */
function logInitCode(t0: number, t1: number): Uint8Array {
  return hexToBytes(`0x7f${T(t1).slice(2)}7f${T(t0).slice(2)}60006000a200` as `0x${string}`)
}

export async function openFilterChain(timeoutMs = 1000) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-filters-'))
  const chain = await openTestChain(dir, { validator })
  const pool = new TransactionPool({
    chain: createPoolChain(chain.store, chain.db, chain.common, 0n),
    limits: {
      priceBumpPercent: 10,
      accountQueue: 64,
      globalSlots: 100,
      globalQueue: 100,
      lifetimeMs: 1e9,
      rejournalMs: 0,
    },
  })
  const events = new ChainEvents(chain.store)
  pool.onNewTx((tx) => events.emitPendingTx(tx))
  let now = 1_000_000
  const filters = new FilterSystem({
    store: chain.store,
    events,
    timeoutMs,
    limits: { maxBlockRange: 0, maxResults: 0 },
    now: () => now,
  })
  let nonce = 0n
  /** Mines one block holding one log-emitting deployment per [t0, t1] pair (none: an empty block). */
  const mine = async (...logs: [number, number][]): Promise<ChainBlock> => {
    for (const [t0, t1] of logs) {
      const tx = createTx(
        {
          type: 2,
          nonce: nonce++,
          data: logInitCode(t0, t1),
          gasLimit: DEPLOY_GAS,
          maxFeePerGas: 20n * GWEI,
          maxPriorityFeePerGas: GWEI,
        },
        { common: chain.common },
      ).sign(hexToBytes(alice.privateKey as `0x${string}`))
      await pool.submit(tx.serialize())
    }
    const head = chain.store.head.header
    const { block, dropped } = await chain.builder.build(pool.candidates(head.calcNextBaseFee()), head.timestamp + 1n)
    await pool.onBlock(dropped.map((d) => d.ptx))
    events.emitBlock(block)
    return block
  }
  const advance = (ms: number) => {
    now += ms
  }
  const close = async () => {
    filters.close()
    await chain.db.close()
    rmSync(dir, { recursive: true, force: true })
  }
  return { ...chain, filters, events, mine, advance, close }
}

import { mkdtempSync, rmSync, writeFileSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { devAccounts } from '../config/accounts.js'
import type { Logger } from '../log.js'
import { openTestChain } from '../../test/helpers/chain.js'
import { createPoolChain } from './chain.js'
import type { PoolTx } from './index.js'
import { TxJournal } from './journal.js'
import { TransactionPool, type TxPoolLimits } from './pool.js'

const GWEI = 10n ** 9n
const ETH = 10n ** 18n
type Key = { address: string; privateKey: string }
const [alice, bob, carol, validator] = devAccounts(4) as [Key, Key, Key, Key]
const SINK = '0x000000000000000000000000000000000000dead'

const LIMITS: TxPoolLimits = {
  priceBumpPercent: 10,
  accountQueue: 64,
  globalSlots: 5120,
  globalQueue: 1024,
  lifetimeMs: 3 * 3600_000,
  rejournalMs: 0,
}

const dirs: string[] = []
const pools: TransactionPool[] = []
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const p of pools.splice(0)) await p.stop()
  for (const c of closers.splice(0)) await c()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

interface TxOpts {
  tip?: bigint
  fee?: bigint
  value?: bigint
  to?: string
}

function rawTx(common: Common, from: { privateKey: string }, nonce: bigint, o: TxOpts = {}): Uint8Array {
  return createTx(
    {
      type: 2,
      nonce,
      to: (o.to ?? SINK) as `0x${string}`,
      value: o.value ?? 1n,
      gasLimit: 21_000n,
      maxFeePerGas: o.fee ?? 20n * GWEI,
      maxPriorityFeePerGas: o.tip ?? GWEI,
    },
    { common },
  )
    .sign(hexToBytes(from.privateKey as `0x${string}`))
    .serialize()
}

/** A logger that keeps its info lines (what an operator sees of drops). */
function keepInfo(lines: string[]): Logger {
  const none = () => undefined
  return { debug: none, info: (msg) => lines.push(msg), warn: none, error: none }
}

async function setup(limits: Partial<TxPoolLimits> = {}, journalFile?: string, dir?: string, log?: Logger) {
  const d = dir ?? mkdtempSync(join(tmpdir(), 'ibex-pool-'))
  if (dir === undefined) dirs.push(d)
  const chain = await openTestChain(d, { validator })
  closers.push(() => chain.db.close())
  const journal = journalFile === undefined ? undefined : new TxJournal(join(d, journalFile))
  const pool = new TransactionPool({
    chain: createPoolChain(chain.store, chain.db, chain.common, 0n),
    limits: { ...LIMITS, ...limits },
    journal,
    log,
  })
  pools.push(pool)
  const pending: string[] = []
  pool.onNewTx((tx) => pending.push(tx.hashHex))
  const send = (from: { privateKey: string }, nonce: bigint, o?: TxOpts) =>
    pool.submit(rawTx(chain.common, from, nonce, o))
  const mine = async () => {
    const head = chain.store.head.header
    const { block, dropped } = await chain.builder.build(pool.candidates(head.calcNextBaseFee()), head.timestamp + 1n)
    await pool.onBlock(dropped.map((x) => x.ptx))
    return block
  }
  return { ...chain, dir: d, pool, pending, send, mine }
}

async function errorOf(p: Promise<unknown>): Promise<string> {
  try {
    await p
  } catch (err) {
    return (err as Error).message
  }
  throw new Error('expected a rejection')
}

const nonces = (txs: PoolTx[]) => txs.map((t) => t.nonce)

describe('TransactionPool: pending and queued', () => {
  it('queues a nonce gap and promotes it once the gap fills', async () => {
    const { pool, send, pending } = await setup()
    const second = await send(alice, 1n)
    expect(pool.stats()).toEqual({ pending: 0, queued: 1 })
    expect(nonces(pool.contentFrom(alice.address.toLowerCase()).queued)).toEqual([1n])
    expect(pending).toEqual([])
    const first = await send(alice, 0n)
    expect(pool.stats()).toEqual({ pending: 2, queued: 0 })
    expect(pending).toEqual([first.hashHex, second.hashHex])
    expect(pool.nextNonce(alice.address.toLowerCase(), 0n)).toBe(2n)
  })

  it('mined transactions leave the pool; a later nonce is then too low', async () => {
    const { pool, send, mine } = await setup()
    await send(alice, 0n)
    await send(alice, 1n)
    await send(alice, 3n)
    const block = await mine()
    expect(block.transactions.length).toBe(2)
    expect(pool.stats()).toEqual({ pending: 0, queued: 1 })
    expect(await errorOf(send(alice, 1n, { tip: 3n * GWEI }))).toBe('nonce too low: next nonce 2, tx nonce 1')
    // the very transaction that was mined: the transaction index knows it
    expect(await errorOf(send(alice, 1n))).toBe('already known')
    await send(alice, 2n)
    expect(pool.stats()).toEqual({ pending: 2, queued: 0 })
  })

  it('a transaction the builder dropped leaves; later nonces of its sender are demoted to queued', async () => {
    const { pool, send } = await setup()
    const a0 = await send(alice, 0n)
    await send(alice, 1n)
    await pool.onBlock([a0])
    expect(pool.has(a0.hashHex)).toBe(false)
    expect(pool.stats()).toEqual({ pending: 0, queued: 1 })
    expect(pool.candidates(0n)).toEqual([])
  })

  it('orders candidates by tip across senders and by nonce within one; a fee cap under the base fee waits', async () => {
    const { pool, send } = await setup()
    await send(alice, 0n, { tip: GWEI })
    await send(alice, 1n, { tip: 5n * GWEI })
    await send(bob, 0n, { tip: 3n * GWEI })
    await send(carol, 0n, { tip: 2n * GWEI, fee: 2n * GWEI })
    const order = pool.candidates(GWEI).map((t) => `${t.senderHex.slice(0, 6)}:${t.nonce}`)
    expect(order).toEqual([
      `${bob.address.toLowerCase().slice(0, 6)}:0`,
      `${alice.address.toLowerCase().slice(0, 6)}:0`,
      `${alice.address.toLowerCase().slice(0, 6)}:1`,
      `${carol.address.toLowerCase().slice(0, 6)}:0`,
    ])
    expect(pool.candidates(3n * GWEI).map((t) => t.senderHex)).not.toContain(carol.address.toLowerCase())
  })
})

describe('TransactionPool: admission errors', () => {
  it('already known', async () => {
    const { pool, common } = await setup()
    const raw = rawTx(common, alice, 0n)
    await pool.submit(raw)
    expect(await errorOf(pool.submit(raw))).toBe('already known')
  })

  it('a replacement needs both fee cap and tip raised by the price bump', async () => {
    const { pool, send, pending } = await setup()
    const old = await send(alice, 0n, { tip: 10n * GWEI, fee: 100n * GWEI })
    const underpriced = 'replacement transaction underpriced'
    expect(await errorOf(send(alice, 0n, { tip: 11n * GWEI - 1n, fee: 200n * GWEI }))).toBe(underpriced)
    expect(await errorOf(send(alice, 0n, { tip: 20n * GWEI, fee: 110n * GWEI - 1n }))).toBe(underpriced)
    const next = await send(alice, 0n, { tip: 11n * GWEI, fee: 110n * GWEI })
    expect(pool.has(old.hashHex)).toBe(false)
    expect(pool.get(next.hashHex)).toBe(next)
    expect(pool.stats()).toEqual({ pending: 1, queued: 0 })
    expect(pending).toEqual([old.hashHex, next.hashHex])
  })

  it('replaces a queued transaction in place', async () => {
    const { pool, send } = await setup()
    await send(alice, 2n)
    const next = await send(alice, 2n, { tip: 2n * GWEI, fee: 40n * GWEI })
    expect(pool.contentFrom(alice.address.toLowerCase()).queued).toEqual([next])
  })

  it('insufficient funds: one transaction, then the pending ones together', async () => {
    const { send } = await setup()
    const poor = { privateKey: '0x0101010101010101010101010101010101010101010101010101010101010101' }
    expect(await errorOf(send(poor, 0n))).toBe(
      'insufficient funds for gas * price + value: balance 0, tx cost 420000000000001, overshot 420000000000001',
    )
    const balance = 10_000n * ETH
    const first = await send(alice, 0n, { value: 3000n * ETH })
    const second = await send(alice, 1n, { value: 3000n * ETH })
    const spent = first.cost + second.cost
    const cost = 6000n * ETH + 20n * GWEI * 21_000n
    expect(await errorOf(send(alice, 2n, { value: 6000n * ETH }))).toBe(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx cost ${cost}, overshot ${spent + cost - balance}`,
    )
    const bump = 8000n * ETH + 40n * GWEI * 21_000n - first.cost
    expect(await errorOf(send(alice, 0n, { value: 8000n * ETH, tip: 2n * GWEI, fee: 40n * GWEI }))).toBe(
      `insufficient funds for gas * price + value: balance ${balance}, queued cost ${spent}, tx bumped ${bump}, overshot ${spent + bump - balance}`,
    )
  })

  it('limits the queued transactions of one sender', async () => {
    const { send } = await setup({ accountQueue: 2 })
    await send(alice, 0n)
    await send(alice, 2n)
    await send(alice, 3n)
    expect(await errorOf(send(alice, 5n))).toBe('account limit exceeded: pooled 3 txs')
  })
})

describe('TransactionPool: global limits', () => {
  it('when full, evicts the cheapest tail of another sender; refuses what pays no more', async () => {
    const { pool, send } = await setup({ globalSlots: 2, globalQueue: 1 })
    const a0 = await send(alice, 0n, { tip: 5n * GWEI })
    const a1 = await send(alice, 1n, { tip: 2n * GWEI })
    await send(bob, 0n, { tip: 3n * GWEI })
    expect(pool.size).toBe(3)
    expect(await errorOf(send(carol, 0n, { tip: 2n * GWEI }))).toBe('transaction underpriced')
    const c0 = await send(carol, 0n, { tip: 4n * GWEI })
    // alice's tail (nonce 1) was the cheapest tail: her nonce 0 stays, no hole
    expect(pool.has(a1.hashHex)).toBe(false)
    expect(pool.has(a0.hashHex)).toBe(true)
    expect(pool.has(c0.hashHex)).toBe(true)
    expect(pool.stats()).toEqual({ pending: 3, queued: 0 })
  })

  it('a future transaction never evicts a pending one', async () => {
    const { pool, send } = await setup({ globalSlots: 1, globalQueue: 1 })
    await send(alice, 0n, { tip: GWEI })
    await send(bob, 0n, { tip: GWEI })
    expect(await errorOf(send(carol, 1n, { tip: 9n * GWEI }))).toBe('future transaction tries to replace pending')
    expect(pool.size).toBe(2)
  })

  it('the queue has its own cap: a new future transaction evicts the cheapest queued one', async () => {
    const { pool, send } = await setup({ globalQueue: 1 })
    const q1 = await send(alice, 1n, { tip: GWEI })
    expect(await errorOf(send(bob, 1n, { tip: GWEI }))).toBe('transaction underpriced')
    const q2 = await send(bob, 1n, { tip: 2n * GWEI })
    expect(pool.has(q1.hashHex)).toBe(false)
    expect(pool.has(q2.hashHex)).toBe(true)
  })

  it('drops the queued transactions of an idle sender after the lifetime', async () => {
    const lines: string[] = []
    const { pool, send } = await setup({ lifetimeMs: 50 }, undefined, undefined, keepInfo(lines))
    await pool.start()
    await send(alice, 0n)
    const stale = await send(alice, 5n)
    await new Promise((r) => setTimeout(r, 250))
    expect(pool.stats()).toEqual({ pending: 1, queued: 0 })
    expect(lines).toContain(`txpool: dropped ${stale.hashHex}: queued behind a nonce gap for longer than the lifetime`)
  })
})

describe('TransactionPool: journal', () => {
  it('a restart keeps the pool; mined and invalid transactions fall out', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-pool-'))
    dirs.push(dir)
    const first = await setup({}, 'transactions.rlp', dir)
    await first.pool.start()
    await first.send(alice, 0n)
    await first.mine()
    const queued = await first.send(alice, 3n)
    const replaced = await first.send(bob, 0n)
    const replacement = await first.send(bob, 0n, { tip: 2n * GWEI, fee: 40n * GWEI })
    await first.pool.stop()
    pools.splice(pools.indexOf(first.pool), 1)
    await first.db.close()
    closers.length = 0

    const second = await setup({}, 'transactions.rlp', dir)
    expect(await second.pool.start()).toEqual({ loaded: 2, kept: 2 })
    expect(second.pool.has(queued.hashHex)).toBe(true)
    expect(second.pool.has(replacement.hashHex)).toBe(true)
    expect(second.pool.has(replaced.hashHex)).toBe(false)
    expect(second.pool.stats()).toEqual({ pending: 1, queued: 1 })
  })

  it('after a crash (no stop, no rewrite) a sender whose gap was filled at the queue cap comes back whole', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-pool-'))
    dirs.push(dir)
    const first = await setup({ accountQueue: 8 }, 'transactions.rlp', dir)
    await first.pool.start()
    for (let n = 1n; n <= 8n; n++) await first.send(alice, n) // queued, the sender's cap
    expect(await errorOf(first.send(alice, 9n))).toMatch(/account limit exceeded/)
    await first.send(alice, 0n) // fills the gap: 0…8 pending
    for (let n = 9n; n <= 12n; n++) await first.send(alice, n)
    await first.send(bob, 5n) // a gap of its own, kept as queued
    expect(first.pool.stats()).toEqual({ pending: 13, queued: 1 })
    // kill -9: no stop(), so the journal is the appended records in arrival order (1…8, 0, 9…12, bob 5)
    pools.splice(pools.indexOf(first.pool), 1)
    await first.db.close()
    closers.length = 0

    const second = await setup({ accountQueue: 8 }, 'transactions.rlp', dir)
    expect(await second.pool.start()).toEqual({ loaded: 14, kept: 14 })
    expect(second.pool.stats()).toEqual({ pending: 13, queued: 1 })
    expect(nonces(second.pool.contentFrom(alice.address.toLowerCase()).pending)).toEqual(
      Array.from({ length: 13 }, (_, i) => BigInt(i)),
    )
    expect(nonces(second.pool.contentFrom(bob.address.toLowerCase()).queued)).toEqual([5n])
  })

  it('reads up to a record cut short by a crash', async () => {
    const { pool, common, dir } = await setup({}, 'transactions.rlp')
    await pool.start()
    const kept = await pool.submit(rawTx(common, alice, 0n))
    const journal = join(dir, 'transactions.rlp')
    const bytes = readFileSync(journal)
    writeFileSync(journal, Buffer.concat([bytes, bytes.subarray(0, 20)]))
    const loaded = new TxJournal(journal).load()
    expect(loaded.damaged).toBe(true)
    expect(loaded.raws.map((r) => Buffer.from(r).toString('hex'))).toEqual([
      Buffer.from(kept.tx.serialize()).toString('hex'),
    ])
  })
})

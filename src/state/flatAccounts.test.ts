/**
 * The flat account table (flatAccounts.ts) over a real in-process dev chain: every commit keeps it
 * equal to the head's account trie (rows compared with a walk of the trie, the marker naming the
 * head's root), reads at older roots walk the trie, a change the trie writer did not record takes
 * the marker away, and the backfill rebuilds the table — following blocks committed while it runs,
 * and starting over when one does not chain.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { openTestChain, validateTransaction } from '../../test/helpers/chain.js'
import { devAccounts } from '../config/accounts.js'
import type { Database } from '../db/db.js'
import { createLogger } from '../log.js'
import { keccak256 } from '../util/keccak.js'
import { prng } from '../util/prng.js'
import { FLAT_ROOT_KEY, flatAccount, readAccount } from './flatAccounts.js'
import { trieRead } from './trieLookup.js'
import { TrieWalker } from './trieWalk.js'

/** Accounts in the genesis of the backfill tests: enough for the walk to take several slices. */
const GENESIS_ACCOUNTS = 20_000
/** Ceiling for the backfill tests on a busy machine (not a speed check). */
const BACKFILL_TEST_TIMEOUT_MS = 120_000

type Key = { address: string; privateKey: string }
const hex = (b: Uint8Array | null | undefined): string | null | undefined =>
  b == null ? b : Buffer.from(b).toString('hex')

const dirs: string[] = []
const closers: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of closers.splice(0)) await c()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function chain(alloc?: Record<string, { balance: string }>) {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-flat-'))
  dirs.push(dir)
  const keys = devAccounts(4) as Key[]
  // an alloc replaces the preset's: the senders are funded in it too
  if (alloc !== undefined) for (const k of keys) alloc[k.address] = { balance: `0x${(10n ** 21n).toString(16)}` }
  const c = await openTestChain(dir, { validator: keys[3] as Key, alloc })
  closers.push(async () => {
    await c.store.flat.stop()
    await c.db.close()
  })
  let nonce = 0n
  const rand = prng(11)
  /** A block of transfers from the three dev senders, each to the next of `recipients`, else to a new address. */
  const block = async (recipients: string[] = []) => {
    const ctx = c.admission()
    const ptxs = []
    for (let i = 0; i < 3; i++) {
      const to = recipients.shift() ?? randomAddress(rand)
      const raw = createTx(
        {
          type: 2,
          nonce,
          to,
          value: 1000n + BigInt(i),
          gasLimit: 21_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 1n,
        },
        { common: c.common },
      )
        .sign(hexToBytes((keys[i] as Key).privateKey as `0x${string}`))
        .serialize()
      ptxs.push(await validateTransaction(raw, ctx))
    }
    nonce++
    const { block, included } = await c.builder.build(ptxs, c.store.head.header.timestamp + 1n)
    expect(included.length).toBe(3)
    return block
  }
  return { ...c, keys, block }
}

/** A random 20-byte address, 0x-hex. */
function randomAddress(rand: () => number): string {
  return `0x${Array.from({ length: 20 }, () =>
    Math.floor(rand() * 256)
      .toString(16)
      .padStart(2, '0'),
  ).join('')}`
}

/** A chain of GENESIS_ACCOUNTS random genesis accounts whose flat table is wiped and being rebuilt. */
async function rebuilding(seed: number) {
  const rand = prng(seed)
  const alloc: Record<string, { balance: string }> = {}
  for (let i = 0; i < GENESIS_ACCOUNTS; i++) alloc[randomAddress(rand)] = { balance: '0x1' }
  const c = await chain(alloc)
  await c.db.clearColumn('flat')
  c.store.flat.abandon()
  c.store.keepFlatAccounts(createLogger('silent'))
  return { ...c, alloc }
}

/** Every row of the flat column (the marker included). */
async function rows(db: Database): Promise<Map<string, string>> {
  // biome-ignore lint/suspicious/noExplicitAny: abstract-level's iterator over one column
  const entries = await (db.level as any).iterator({ column: db.columns.flat }).all()
  return new Map(entries.map(([k, v]: [Buffer, Buffer]) => [k.toString('hex'), v.toString('hex')]))
}

/** The table holds exactly the accounts of the trie at `root`, and its marker names `root`. */
async function expectHolds(db: Database, root: Uint8Array): Promise<void> {
  const table = await rows(db)
  expect(table.get(Buffer.from(FLAT_ROOT_KEY).toString('hex'))).toBe(hex(root))
  const walker = new TrieWalker(db, root)
  let leaves = 0
  while (!walker.done)
    walker.next(1_000, (key, value) => {
      leaves++
      expect(table.get(hex(key) as string), `row ${hex(key)}`).toBe(hex(value))
    })
  expect(table.size).toBe(leaves + 1)
}

async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + BACKFILL_TEST_TIMEOUT_MS
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 5))
  }
}

describe('flat account table', () => {
  it('every commit keeps it equal to the head account trie', async () => {
    const { db, store, block } = await chain()
    await expectHolds(db, store.head.header.stateRoot)
    for (let i = 0; i < 4; i++) {
      await block()
      await expectHolds(db, store.head.header.stateRoot)
    }
    expect(store.flat.stats()).toMatchObject({ valid: true, invalidations: 0, backfills: 0 })
  })

  it('answers only at the root it holds; older roots walk the trie', async () => {
    const { db, store, keys, block } = await chain()
    const first = await block()
    await block()
    const head = store.head.header.stateRoot
    for (const k of keys) {
      const address = hexToBytes(k.address as `0x${string}`)
      const path = keccak256(address)
      expect(hex(flatAccount(db, head, path))).toBe(hex(trieRead(db, head, address) as Uint8Array))
      expect(flatAccount(db, first.header.stateRoot, path)).toBeUndefined()
      expect(hex(readAccount(db, first.header.stateRoot, address) as Uint8Array)).toBe(
        hex(trieRead(db, first.header.stateRoot, address) as Uint8Array),
      )
      // the two roots differ for the senders: the old one is not the table's answer
      if (k !== keys[3])
        expect(hex(readAccount(db, first.header.stateRoot, address) as Uint8Array)).not.toBe(
          hex(flatAccount(db, head, path)),
        )
    }
    expect(flatAccount(db, head, keccak256(new Uint8Array(20).fill(0xab)))).toBeNull()
  })

  it('a change that was not recorded takes the marker away; the backfill rebuilds the table', async () => {
    const { db, store, block } = await chain()
    await block()
    // as a commit whose trie changes came another way: its root does not follow from the table's
    const batch = db.batch()
    store.flat.onCommit(batch, new Uint8Array(32).fill(7), [])
    await batch.write(false)
    expect(store.flat.stats()).toMatchObject({ valid: false, invalidations: 1 })
    expect(flatAccount(db, store.head.header.stateRoot, new Uint8Array(32))).toBeUndefined()
    // commits made meanwhile leave it alone
    await block()
    expect(store.flat.stats().valid).toBe(false)
    store.keepFlatAccounts(createLogger('silent'))
    await until(() => store.flat.stats().valid, 'the backfill')
    await expectHolds(db, store.head.header.stateRoot)
    expect(store.flat.stats().backfills).toBe(1)
  })

  it(
    'the backfill follows blocks committed while it runs',
    async () => {
      const { db, store, block, alloc } = await rebuilding(5)
      // each genesis account is paid once at most: a backfill that wrote its genesis row over the
      // row a block wrote would leave it wrong (the senders change in every block, which would hide it)
      const recipients = Object.keys(alloc).slice(0, GENESIS_ACCOUNTS)
      let during = 0
      while (!store.flat.stats().valid) {
        if (store.flat.stats().backfillRows > 0) during++
        await block(recipients)
        // a node's blocks come on timers and network events: the backfill's slices run between them
        await new Promise((r) => setImmediate(r))
      }
      expect(during).toBeGreaterThan(0)
      await expectHolds(db, store.head.header.stateRoot)
      // and from here on, commits keep it
      await block()
      await expectHolds(db, store.head.header.stateRoot)
    },
    BACKFILL_TEST_TIMEOUT_MS,
  )

  it(
    'the backfill starts over when a commit does not chain from what it built',
    async () => {
      const { db, store, block } = await rebuilding(6)
      await until(() => store.flat.stats().backfillRows > 0, 'the backfill to begin')
      const batch = db.batch()
      store.flat.onCommit(batch, new Uint8Array(32).fill(9), [])
      await batch.write(false)
      await until(() => store.flat.stats().valid, 'the backfill')
      await block()
      await expectHolds(db, store.head.header.stateRoot)
      expect(store.flat.stats().backfills).toBe(1)
    },
    BACKFILL_TEST_TIMEOUT_MS,
  )
})

/**
 * editState against a state written from scratch: editing a state must give the root a fresh state
 * holding the edited accounts gets (as a genesis is written: src/chain/genesis.ts), an account left
 * empty must leave the trie, and the old root must still read as before.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Common, Hardfork, Mainnet } from '@ethereumjs/common'
import { Account, createAddressFromString, hexToBytes, setLengthLeft } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../db/db.js'
import { editState } from './editState.js'
import { createStateManager, stateAt, TrieStore } from './index.js'

const COMMON = new Common({ chain: Mainnet, hardfork: Hardfork.Prague })
const A = `0x${'aa'.repeat(20)}`
const B = `0x${'bb'.repeat(20)}`
const C = `0x${'cc'.repeat(20)}`
const D = `0x${'dd'.repeat(20)}`
const E = `0x${'ee'.repeat(20)}`
const SLOT0_READER = '0x60005460005260206000f3'
const slot = (n: number) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)

type Alloc = Record<string, { balance?: string; nonce?: string; code?: string; storage?: Record<string, string> }>

const dirs: string[] = []
const dbs: Database[] = []
afterEach(async () => {
  for (const db of dbs.splice(0)) await db.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

async function freshDb(): Promise<Database> {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-edit-state-'))
  dirs.push(dir)
  const db = await openDatabase(dir)
  dbs.push(db)
  return db
}

/** The root of a fresh state holding `alloc` (written as a genesis alloc is), its nodes committed to `db`. */
async function genesisRoot(db: Database, alloc: Alloc): Promise<Uint8Array> {
  const trie = new TrieStore(db)
  const sm = createStateManager(trie, COMMON)
  for (const [address, a] of Object.entries(alloc)) {
    const at = createAddressFromString(address)
    await sm.putAccount(at, new Account(BigInt(a.nonce ?? 0), BigInt(a.balance ?? 0)))
    if (a.code !== undefined) await sm.putCode(at, hexToBytes(a.code as `0x${string}`))
    for (const [key, value] of Object.entries(a.storage ?? {})) {
      await sm.putStorage(at, setLengthLeft(hexToBytes(key as `0x${string}`), 32), hexToBytes(value as `0x${string}`))
    }
  }
  const root = await sm.getStateRoot()
  const batch = db.batch()
  trie.flushInto(batch)
  await batch.write(false)
  return root
}

describe('editState', () => {
  it('gives the root of a genesis with the edited accounts; empty accounts leave the trie', async () => {
    const db = await freshDb()
    const before = await genesisRoot(db, {
      [A]: { balance: '0xa' },
      [B]: { code: '0x6000', storage: { '0x01': '0x05' } },
      [C]: { balance: '0x1' },
    })
    const trie = new TrieStore(db)
    const edited = await editState(trie, COMMON, before, [
      { kind: 'balance', address: A, balance: 20n },
      { kind: 'nonce', address: A, nonce: 3n },
      { kind: 'storage', address: B, slot: Uint8Array.of(1), value: new Uint8Array(32) },
      { kind: 'storage', address: B, slot: Uint8Array.of(2), value: Uint8Array.of(7) },
      { kind: 'code', address: D, code: hexToBytes(SLOT0_READER) },
      { kind: 'balance', address: C, balance: 0n },
      { kind: 'storage', address: E, slot: new Uint8Array(0), value: Uint8Array.of(1) },
    ])
    const expected = await genesisRoot(await freshDb(), {
      [A]: { balance: '0x14', nonce: '0x3' },
      [B]: { code: '0x6000', storage: { '0x02': '0x07' } },
      [D]: { code: SLOT0_READER },
      [E]: { storage: { '0x00': '0x01' } },
    })
    expect(Buffer.from(edited).toString('hex')).toBe(Buffer.from(expected).toString('hex'))

    // the new nodes wait in the overlay until committed; the old root reads as before
    const batch = db.batch()
    trie.flushInto(batch)
    await batch.write(false)
    const now = stateAt(db, COMMON, edited)
    expect((await now.getAccount(createAddressFromString(A)))?.balance).toBe(20n)
    expect(await now.getAccount(createAddressFromString(C))).toBeUndefined()
    expect([...(await now.getStorage(createAddressFromString(B), slot(1)))]).toEqual([])
    const then = stateAt(db, COMMON, before)
    expect((await then.getAccount(createAddressFromString(A)))?.balance).toBe(10n)
    expect([...(await then.getStorage(createAddressFromString(B), slot(1)))]).toEqual([5])
  })

  it('the same edits on the same root give the same root; setting what is there changes nothing', async () => {
    const db = await freshDb()
    const root = await genesisRoot(db, { [A]: { balance: '0x64' } })
    const edits = [{ kind: 'balance', address: A, balance: 100n }] as const
    const again = await editState(new TrieStore(db), COMMON, root, edits)
    expect(Buffer.from(again).equals(Buffer.from(root))).toBe(true)
    const one = await editState(new TrieStore(db), COMMON, root, [{ kind: 'nonce', address: B, nonce: 1n }])
    const two = await editState(new TrieStore(db), COMMON, root, [{ kind: 'nonce', address: B, nonce: 1n }])
    expect(Buffer.from(one).equals(Buffer.from(two))).toBe(true)
    expect(Buffer.from(one).equals(Buffer.from(root))).toBe(false)
  })
})

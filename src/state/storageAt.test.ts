/**
 * storageAt (src/state/index.ts: a slot read straight from the committed account and storage
 * trie nodes, no state manager) against ethereumjs' MerkleStateManager over the same committed
 * state: set slots, unset slots, an account without storage, an absent account; and a root whose
 * nodes are not in the database answers undefined (the caller falls back to a state manager).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { Account, createAddressFromString } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Database, openDatabase } from '../db/db.js'
import { prng } from '../util/prng.js'
import { storageAt } from './index.js'
import { TrieStore } from './trieStore.js'

let dir: string
let db: Database

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-storage-at-'))
  db = await openDatabase(join(dir, 'db'))
})
afterAll(async () => {
  await db.close()
  rmSync(dir, { recursive: true, force: true })
})

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex')

describe('storageAt', () => {
  it('reads what ethereumjs reads at a committed root', async () => {
    const rand = prng(77)
    const bytes = (n: number): Uint8Array => Uint8Array.from({ length: n }, () => Math.floor(rand() * 256))
    const store = new TrieStore(db)
    const trie = new MerklePatriciaTrie({ db: store, useKeyHashing: true, valueEncoding: 'view' })
    const sm = new MerkleStateManager({ trie })
    await sm.checkpoint()
    const addresses = Array.from({ length: 30 }, () => hex(bytes(20)))
    const slots = new Map<string, Uint8Array[]>()
    for (const [i, a] of addresses.entries()) {
      const address = createAddressFromString(`0x${a}`)
      await sm.putAccount(address, new Account(BigInt(i), 10n ** 18n))
      if (i % 5 === 0) continue // no storage
      const mine = Array.from({ length: 1 + Math.floor(rand() * 40) }, () => bytes(32))
      slots.set(a, mine)
      for (const s of mine) {
        // values of every width, some with a leading zero byte (stored stripped)
        const v = bytes(1 + Math.floor(rand() * 32))
        if (rand() < 0.2) v[0] = 0
        if (v.every((x) => x === 0)) v[v.length - 1] = 1
        await sm.putStorage(address, s, v)
      }
    }
    await sm.commit()
    await sm.flush()
    const batch = db.batch()
    store.flushInto(batch)
    await batch.write(false)
    const root = await sm.getStateRoot()
    const reader = new MerkleStateManager({
      trie: new MerklePatriciaTrie({ db: new TrieStore(db), useKeyHashing: true, valueEncoding: 'view', root }),
    })
    const absent = [hex(bytes(20)), ...addresses]
    for (const a of absent) {
      const address = createAddressFromString(`0x${a}`)
      for (const s of [...(slots.get(a) ?? []), bytes(32), bytes(32)]) {
        const want = hex(await reader.getStorage(address, s))
        // twice: the second comes from the root's flat cache
        expect(hex(storageAt(db, root, a, s) ?? Uint8Array.of(0xee))).toBe(want)
        expect(hex(storageAt(db, root, a, s) ?? Uint8Array.of(0xee))).toBe(want)
      }
    }
    expect(storageAt(db, root, addresses[1] as string, bytes(31))).toBeUndefined()
  })

  it('answers undefined for a root whose nodes are not in the database', async () => {
    const trie = new MerklePatriciaTrie({ db: new TrieStore(db), useKeyHashing: true, valueEncoding: 'view' })
    const sm = new MerkleStateManager({ trie })
    await sm.checkpoint()
    const address = createAddressFromString(`0x${'42'.repeat(20)}`)
    await sm.putAccount(address, new Account(1n, 1n))
    await sm.putStorage(address, new Uint8Array(32).fill(1), Uint8Array.of(9))
    await sm.commit()
    await sm.flush()
    // never written to RocksDB
    expect(storageAt(db, await sm.getStateRoot(), '42'.repeat(20), new Uint8Array(32).fill(1))).toBeUndefined()
  })
})

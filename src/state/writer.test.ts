/**
 * The block builder primes the new head's read cache with the accounts its block changed
 * (writer.ts): every primed entry must be exactly what the trie holds at that root.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTx } from '@ethereumjs/tx'
import { Account, Address, equalsBytes, hexToBytes, KECCAK256_RLP } from '@ethereumjs/util'
import { prng } from '../util/prng.js'
import { keccak256 } from '../util/keccak.js'
import { afterEach, describe, expect, it } from 'vitest'
import { devAccounts } from '../config/accounts.js'
import { openTestChain, validateTransaction } from '../../test/helpers/chain.js'
import { createStateManager } from './index.js'
import { readCacheFor } from './readCache.js'
import { TrieStore } from './trieStore.js'

/** Budget of the random flush test (12 rounds × 400 writes, ~0.6 s idle): a ceiling for a busy machine, not a speed check. */
const RANDOM_TEST_TIMEOUT_MS = 60_000

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('WriterStateManager', () => {
  it('primes the new root with exactly the committed accounts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-writer-'))
    dirs.push(dir)
    const accounts = devAccounts(4) as { address: string; privateKey: string }[]
    const { db, store, common, builder, admission } = await openTestChain(dir, {
      validator: accounts[3] as { address: string; privateKey: string },
    })
    const fresh = `0x${'3c'.repeat(20)}`
    for (let round = 0; round < 3; round++) {
      const ctx = admission()
      const raws = [0, 1, 2].map((i) =>
        createTx(
          {
            type: 2,
            nonce: BigInt(round),
            to: i === 2 ? fresh : (accounts[i + 1] as { address: string }).address,
            value: 7n + BigInt(i),
            gasLimit: 21_000n,
            maxFeePerGas: 10n ** 10n,
            maxPriorityFeePerGas: 10n ** 9n,
          },
          { common },
        )
          .sign(hexToBytes((accounts[i] as { privateKey: string }).privateKey as `0x${string}`))
          .serialize(),
      )
      const ptxs = []
      for (const raw of raws) ptxs.push(await validateTransaction(raw, ctx))
      const { block, included } = await builder.build(ptxs, store.head.header.timestamp + 1n)
      expect(included.length).toBe(3)
      const root = block.header.stateRoot
      // the trie itself, no cache in front
      const plain = new MerkleStateManager({
        trie: new MerklePatriciaTrie({
          db: new TrieStore(db),
          useKeyHashing: true,
          valueEncoding: 'view',
          common,
          root,
        }),
        common,
      })
      const cache = readCacheFor(db, root)
      let primed = 0
      for (const hex of [...accounts.map((a) => a.address), fresh]) {
        const key = hex.slice(2).toLowerCase()
        const cached = cache.accounts.get(key)
        if (cached === undefined) continue
        primed++
        const actual = await plain.getAccount(new Address(hexToBytes(hex as `0x${string}`)))
        expect(cached === null ? undefined : Buffer.from(cached).toString('hex')).toBe(
          actual === undefined ? undefined : Buffer.from(actual.serialize()).toString('hex'),
        )
      }
      // three senders, two dev recipients, the fresh account, the coinbase
      expect(primed).toBeGreaterThanOrEqual(5)
    }
    await db.close()
  })

  it(
    "flushes each trie in one batch to the state root the trie's definition gives, and reads back what it wrote",
    async () => {
      const dir = mkdtempSync(join(tmpdir(), 'ibex-writer-'))
      dirs.push(dir)
      const accounts = devAccounts(1) as { address: string; privateKey: string }[]
      const { db, common } = await openTestChain(dir, {
        validator: accounts[0] as { address: string; privateKey: string },
      })
      const ours = createStateManager(new TrieStore(db), common)
      // the model: what the state holds, from which a fresh ethereumjs trie computes the expected root
      // (ethereumjs' own state manager is no reference here: with caches it writes storage through
      // to tries it keeps across deleteAccount, see cachedStorage.ts)
      interface Model {
        nonce: bigint
        balance: bigint
        code?: Uint8Array
        slots: Map<string, Uint8Array>
      }
      const model = new Map<string, Model>()
      const expectedRoot = async (): Promise<string> => {
        const trie = new MerklePatriciaTrie({ useKeyHashing: true, common })
        for (const [address, m] of model) {
          const storage = new MerklePatriciaTrie({ useKeyHashing: true, common })
          for (const [key, value] of m.slots) await storage.put(hexToBytes(`0x${key}`), RLP.encode(value))
          const account = new Account(
            m.nonce,
            m.balance,
            storage.root(),
            m.code === undefined ? undefined : keccak256(m.code),
          )
          await trie.put(hexToBytes(address as `0x${string}`), account.serialize())
        }
        return Buffer.from(trie.root()).toString('hex')
      }
      const random = prng(3)
      const pick = (n: number) => Math.floor(random() * n)
      const addresses = Array.from(
        { length: 300 },
        (_, i) =>
          new Address(Uint8Array.from(Buffer.from(`${'ab'.repeat(18)}${i.toString(16).padStart(4, '0')}`, 'hex'))),
      )
      const slot = (i: number) => Uint8Array.from(Buffer.from(i.toString(16).padStart(64, '0'), 'hex'))
      for (let round = 0; round < 12; round++) {
        await ours.checkpoint()
        for (let op = 0; op < 400; op++) {
          const address = addresses[pick(addresses.length)] as Address
          const key = address.toString()
          const r = random()
          if (r < 0.45) {
            const m = model.get(key) ?? { nonce: 0n, balance: 0n, slots: new Map() }
            m.nonce = BigInt(pick(50))
            m.balance = BigInt(pick(1e9)) * 10n ** 9n
            model.set(key, m)
            const account = (await ours.getAccount(address)) ?? new Account()
            account.nonce = m.nonce
            account.balance = m.balance
            await ours.putAccount(address, account)
          } else if (r < 0.85) {
            const m = model.get(key)
            if (m === undefined) continue
            const k = slot(pick(40))
            const value = random() < 0.25 ? new Uint8Array(0) : Uint8Array.of(1 + pick(255), pick(256))
            await ours.putStorage(address, k, value)
            if (value.length === 0) m.slots.delete(Buffer.from(k).toString('hex'))
            else m.slots.set(Buffer.from(k).toString('hex'), value)
          } else if (r < 0.92) {
            const m = model.get(key)
            if (m === undefined) continue
            m.code = Uint8Array.of(0x60, pick(256), 0x60, pick(256), 0x55, 0x00)
            await ours.putCode(address, m.code)
          } else {
            // deleted, and maybe created again with fresh storage later in the same block
            model.delete(key)
            await ours.deleteAccount(address)
          }
        }
        await ours.commit()
        expect(Buffer.from(await ours.getStateRoot()).toString('hex')).toBe(await expectedRoot())
        // storage written in earlier rounds, read back through the tries the batched flush wrote
        ours.clearCaches()
        let read = 0
        for (const [address, m] of model) {
          for (const [k, value] of m.slots) {
            if (read++ > 80) break
            const got = await ours.getStorage(new Address(hexToBytes(address as `0x${string}`)), hexToBytes(`0x${k}`))
            expect(Buffer.from(got).toString('hex')).toBe(Buffer.from(value).toString('hex'))
          }
        }
      }
      expect(model.size).toBeGreaterThan(100)
      await db.close()
    },
    RANDOM_TEST_TIMEOUT_MS,
  )
})

describe('storage writes: write cache or through the trie', () => {
  it('keeps an SSTORE in the write cache until the flush; storageThroughTrie writes it into the storage trie at once', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-writer-'))
    dirs.push(dir)
    const accounts = devAccounts(1) as { address: string; privateKey: string }[]
    const { db, store, common, trie } = await openTestChain(dir, {
      validator: accounts[0] as { address: string; privateKey: string },
    })
    const address = new Address(hexToBytes(`0x${'5a'.repeat(20)}`))
    const key = hexToBytes(`0x${'01'.padStart(64, '0')}`)
    const inTrieBeforeFlush = async (storageThroughTrie: boolean) => {
      const sm = createStateManager(trie, common, store.head.header.stateRoot, { storageThroughTrie })
      await sm.putAccount(address, new Account(0n, 1n))
      await sm.putStorage(address, key, hexToBytes('0x2a'))
      expect(await sm.getStorage(address, key)).toEqual(hexToBytes('0x2a'))
      // the account's storageRoot moves only when the slot reached the storage trie
      const root = (await sm.getAccount(address))?.storageRoot as Uint8Array
      return !equalsBytes(root, KECCAK256_RLP)
    }
    expect(await inTrieBeforeFlush(false)).toBe(false)
    expect(await inTrieBeforeFlush(true)).toBe(true)
    await db.close()
  })
})

/**
 * The block builder primes the new head's read cache with the accounts its block changed
 * (writer.ts): every primed entry must be exactly what the trie holds at that root.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { MerklePatriciaTrie } from '@ethereumjs/mpt'
import { MerkleStateManager } from '@ethereumjs/statemanager'
import { createTx } from '@ethereumjs/tx'
import { Address, hexToBytes } from '@ethereumjs/util'
import { afterEach, describe, expect, it } from 'vitest'
import { devAccounts } from '../config/accounts.js'
import { openTestChain } from '../exec/testing.js'
import { validateTransaction } from '../txpool/validate.js'
import { readCacheFor } from './readCache.js'
import { TrieStore } from './trieStore.js'

const dirs: string[] = []
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

describe('WriterStateManager', () => {
  it('primes the new root with exactly the committed accounts', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-writer-'))
    dirs.push(dir)
    const accounts = devAccounts(4) as { address: string; privateKey: string }[]
    const { db, store, common, builder, admission } = await openTestChain(dir, { validator: accounts[3] as { address: string; privateKey: string } })
    const fresh = `0x${'3c'.repeat(20)}`
    for (let round = 0; round < 3; round++) {
      const ctx = admission()
      const raws = [0, 1, 2].map((i) =>
        createTx(
          { type: 2, nonce: BigInt(round), to: i === 2 ? fresh : (accounts[i + 1] as { address: string }).address, value: 7n + BigInt(i), gasLimit: 21_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 10n ** 9n },
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
        trie: new MerklePatriciaTrie({ db: new TrieStore(db), useKeyHashing: true, valueEncoding: 'view', common, root }),
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
        expect(cached === null ? undefined : Buffer.from(cached).toString('hex')).toBe(actual === undefined ? undefined : Buffer.from(actual.serialize()).toString('hex'))
      }
      // three senders, two dev recipients, the fresh account, the coinbase
      expect(primed).toBeGreaterThanOrEqual(5)
    }
    await db.close()
  })
})

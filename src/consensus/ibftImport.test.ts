/**
 * Executing and verifying IBFT blocks from other validators: a proposal built by one node
 * verifies bit for bit on another (same genesis, separate database); a tampered one does not; a
 * decided block imports only with a quorum of committed seals.
 */
import type { Common } from '@ethereumjs/common'
import { createTx } from '@ethereumjs/tx'
import { Address, bigIntToUnpaddedBytes, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterAll, describe, expect, it } from 'vitest'

import { attachSeals, decodeExtra, ibftBlockHash, signCommittedSeal, signProposerSeal } from './ibft/index.js'
import { stateAt } from '../state/index.js'
import { validateTransaction } from '../txpool/validate.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { executeIbftBlock, IbftBlockError } from './ibftImport.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import type { Database } from '../db/db.js'
import { flatAccount } from '../state/flatAccounts.js'
import { trieRead } from '../state/trieLookup.js'
import { keccak256 } from '../util/keccak.js'
import {
  decideNext,
  openIbftTestNode,
  removeIbftTestNodes,
  USERS,
  VALIDATOR_ACCOUNTS,
  validatorKey,
} from '../../test/helpers/ibftChain.js'
import { devAccounts } from '../config/accounts.js'

const [alice, bob] = USERS
const validators = VALIDATOR_ACCOUNTS
const keyOf = validatorKey
afterAll(removeIbftTestNodes)
const openNode = openIbftTestNode

function transfer(common: Common, nonce: bigint) {
  return createTx(
    {
      type: 2,
      nonce,
      to: bob?.address as `0x${string}`,
      value: 99n,
      gasLimit: 21_000n,
      maxFeePerGas: 10n ** 10n,
      maxPriorityFeePerGas: 10n ** 9n,
    },
    { common },
  ).sign(hexToBytes(alice?.privateKey as `0x${string}`))
}

/** The flat account table holds the head's state, kept by every commit (never invalidated): bob's row as the trie has it. */
function expectFlatAtHead(db: Database, store: ChainStore): void {
  expect(store.flat.stats()).toMatchObject({ valid: true, invalidations: 0, backfills: 0 })
  const root = store.head.header.stateRoot
  const address = hexToBytes(bob?.address as `0x${string}`)
  const row = flatAccount(db, root, keccak256(address))
  expect(row).toBeTruthy()
  expect(bytesToHex(row as Uint8Array)).toBe(bytesToHex(trieRead(db, root, address) as Uint8Array))
}

describe('IBFT block import', async () => {
  const a = await openNode()
  const b = await openNode()
  const builder = a.builder
  const state = stateAt(a.db, a.common, a.store.head.header.stateRoot)
  const ptx = await validateTransaction(transfer(a.common, 0n).serialize(), {
    common: a.common,
    chainId: a.common.chainId(),
    blockGasLimit: a.store.head.header.gasLimit,
    nextBaseFee: a.store.head.header.calcNextBaseFee(),
    priceLimit: 0n,
    known: () => false,
    account: async (s) => {
      const acc = await state.getAccount(new Address(s))
      return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n }
    },
  })
  const proposal = await builder.propose([ptx], a.store.head.header.timestamp + 1n)
  const bytes = encodeWireBlock(proposal)
  const v0 = (validators[0]?.address as string).toLowerCase()

  it('a proposal from one node verifies on another: same hash, same receipts, nothing committed', async () => {
    expect(a.store.head.header.number).toBe(0n) // propose does not commit
    const executed = await b.importer.verifyProposal(bytes, v0)
    expect(bytesToHex(executed.hash)).toBe(bytesToHex(proposal.hash))
    expect(executed.receipts.map((r) => r.gasUsed)).toEqual([21_000n])
    expect(b.store.head.header.number).toBe(0n)
  })

  it('rejects a proposal sealed by another validator than the round proposer, or with a wrong state root', async () => {
    const other = (validators[1]?.address as string).toLowerCase()
    await expect(b.importer.verifyProposal(bytes, other)).rejects.toThrow(/proposer seal is by/)
    const raw = proposal.headerRaw.slice()
    raw[3] = new Uint8Array(32).fill(9) // state root
    const resealed = attachSeals(raw, {
      proposerSeal: signProposerSeal(ibftBlockHash(raw), keyOf(0)),
      committedSeals: [],
      round: 0n,
    })
    const bad = encodeWireBlock({ ...proposal, headerRaw: resealed })
    await expect(executeIbftBlock(b, b.store.head, bad, { kind: 'proposal', proposer: v0 })).rejects.toThrow(
      /state root mismatch/,
    )
  })

  it('takes the senders of transactions the pool holds instead of recovering them again', async () => {
    const asked: string[] = []
    const pooled = (hashHex: string) => {
      asked.push(hashHex)
      return hashHex === ptx.hashHex ? ptx : undefined
    }
    const proposal0 = { kind: 'proposal', proposer: v0 } as const
    const executed = await executeIbftBlock({ ...b, pooled }, b.store.head, bytes, proposal0)
    expect(bytesToHex(executed.hash)).toBe(bytesToHex(proposal.hash))
    expect(asked).toEqual([ptx.hashHex])
    // the pool's sender is what executes (it never differs: same signed bytes); a wrong one shows it is used
    const carol = (devAccounts(7)[6]?.address as string).toLowerCase() // funded; not sender, recipient or validator
    const wrong = { ...ptx, sender: hexToBytes(carol as `0x${string}`), senderHex: carol }
    await expect(
      executeIbftBlock({ ...b, pooled: () => wrong }, b.store.head, bytes, proposal0),
    ).rejects.toBeInstanceOf(IbftBlockError)
    expect(b.store.head.header.number).toBe(0n)
  })

  it('a decided block commits with its seals and round, and imports elsewhere only with a quorum of seals', async () => {
    const seals = (n: number) => [0, 1, 2, 3].slice(0, n).map((i) => signCommittedSeal(proposal.hash, 2n, keyOf(i)))
    expect(await a.importer.commitDecided(proposal, { committedSeals: seals(3), round: 2n })).toBe(true)
    const head = a.store.head
    expect(head.header.number).toBe(1n)
    expect(decodeExtra(head.header.extraData).round).toBe(2n)
    expect(a.committed.map((c) => c.source)).toEqual(['consensus'])
    // the same decision again (e.g. our engine and a peer's announcement) is not written twice
    expect(await a.importer.commitDecided(proposal, { committedSeals: seals(3), round: 2n })).toBe(false)

    const weak = attachSeals(head.headerRaw, {
      proposerSeal: decodeExtra(head.header.extraData).proposerSeal,
      committedSeals: seals(2),
      round: 2n,
    })
    await expect(b.importer.importSealed(encodeWireBlock({ ...head, headerRaw: weak }))).rejects.toThrow(
      /insufficient-committed-seals/,
    )
    expect(await b.importer.importSealed(encodeWireBlock(head))).toBe('imported')
    expect(bytesToHex(b.store.head.hash)).toBe(bytesToHex(head.hash))
    expect(bytesToHex(b.store.head.header.stateRoot)).toBe(bytesToHex(head.header.stateRoot))
    expect(await b.importer.importSealed(encodeWireBlock(head))).toBe('known')
  })
})

describe('synced blocks in a row (the importer keeps the state of the last one)', async () => {
  const source = await openNode()
  const admission = () => {
    const at = stateAt(source.db, source.common, source.store.head.header.stateRoot)
    return {
      common: source.common,
      chainId: source.common.chainId(),
      blockGasLimit: source.store.head.header.gasLimit,
      nextBaseFee: source.store.head.header.calcNextBaseFee(),
      priceLimit: 0n,
      known: () => false,
      account: async (s: Uint8Array) => {
        const acc = await at.getAccount(new Address(s))
        return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n }
      },
    }
  }
  for (let nonce = 0n; nonce < 5n; nonce++) {
    const ptx = await validateTransaction(transfer(source.common, nonce).serialize(), admission())
    await decideNext(source, [ptx])
  }
  const wire = (n: bigint) => encodeWireBlock(source.store.getBlockByNumber(n) as ChainBlock)

  it('imports on the same state after a rejected block, a block committed by consensus and a known one', async () => {
    const fresh = await openNode()
    expect(await fresh.importer.importSealed(wire(1n), { durable: false })).toBe('imported')
    // block 2 with a wrong state root but valid seals: executed on the kept state, then refused
    const good = source.store.getBlockByNumber(2n) as ChainBlock
    const raw = good.headerRaw.slice()
    raw[3] = new Uint8Array(32).fill(9)
    const hash = ibftBlockHash(raw)
    const resealed = attachSeals(raw, {
      proposerSeal: signProposerSeal(hash, keyOf(0)),
      committedSeals: [0, 1, 2].map((i) => signCommittedSeal(hash, 0n, keyOf(i))),
      round: 0n,
    })
    await expect(fresh.importer.importSealed(encodeWireBlock({ ...good, headerRaw: resealed }))).rejects.toThrow(
      /state root mismatch/,
    )
    expect(await fresh.importer.importSealed(wire(2n))).toBe('imported')
    expect(await fresh.importer.importSealed(wire(2n))).toBe('known')
    // block 3 arrives through consensus (the head moves without the sync path)
    const third = source.store.getBlockByNumber(3n) as ChainBlock
    const executed = await fresh.importer.verifyProposal(wire(3n), undefined)
    const extra = decodeExtra(third.header.extraData)
    expect(
      await fresh.importer.commitDecided(executed, { committedSeals: extra.committedSeals, round: extra.round }),
    ).toBe(true)
    expect(await fresh.importer.importSealed(wire(4n), { durable: false })).toBe('imported')
    expect(await fresh.importer.importSealed(wire(5n))).toBe('imported')
    expect(fresh.committed.map((c) => c.source)).toEqual(['sync', 'sync', 'consensus', 'sync', 'sync'])
    for (const n of [1n, 2n, 3n, 4n, 5n]) {
      const want = source.store.getBlockByNumber(n) as ChainBlock
      const have = fresh.store.getBlockByNumber(n) as ChainBlock
      expect(bytesToHex(have.hash)).toBe(bytesToHex(want.hash))
      expect(bytesToHex(have.header.stateRoot)).toBe(bytesToHex(want.header.stateRoot))
    }
    // what the kept state wrote is what a fresh reader finds at the head
    const bobAt = async (db: typeof fresh.db, root: Uint8Array) =>
      (await stateAt(db, fresh.common, root).getAccount(new Address(hexToBytes(bob?.address as `0x${string}`))))
        ?.balance
    expect(await bobAt(fresh.db, fresh.store.head.header.stateRoot)).toBe(
      await bobAt(source.db, source.store.head.header.stateRoot),
    )
    // synced and decided blocks alike keep the flat account table at the head, never rebuilding it
    expectFlatAtHead(fresh.db, fresh.store)
  })
})

describe('proposals in a row (a validator verifies each on the state the last decided one left)', async () => {
  const source = await openNode()
  const admission = () => {
    const at = stateAt(source.db, source.common, source.store.head.header.stateRoot)
    return {
      common: source.common,
      chainId: source.common.chainId(),
      blockGasLimit: source.store.head.header.gasLimit,
      nextBaseFee: source.store.head.header.calcNextBaseFee(),
      priceLimit: 0n,
      known: () => false,
      account: async (s: Uint8Array) => {
        const acc = await at.getAccount(new Address(s))
        return { nonce: acc?.nonce ?? 0n, balance: acc?.balance ?? 0n }
      },
    }
  }
  for (let nonce = 0n; nonce < 3n; nonce++) {
    const ptx = await validateTransaction(transfer(source.common, nonce).serialize(), admission())
    await decideNext(source, [ptx])
  }
  const block = (n: bigint) => source.store.getBlockByNumber(n) as ChainBlock
  const sealsOf = (n: bigint) => {
    const extra = decodeExtra(block(n).header.extraData)
    return { committedSeals: extra.committedSeals, round: extra.round }
  }

  it('reuses the decided proposal’s state, not an undecided one’s, and ends on the same chain', async () => {
    const v = await openNode()
    const first = await v.importer.verifyProposal(encodeWireBlock(block(1n)), undefined)
    expect(await v.importer.commitDecided(first, sealsOf(1n))).toBe(true)
    // block 2: a rival proposal (same parent, other timestamp) is verified first and not decided
    const raw = block(2n).headerRaw.slice()
    raw[11] = bigIntToUnpaddedBytes(block(2n).header.timestamp + 7n)
    const rivalHash = ibftBlockHash(raw)
    const rival = encodeWireBlock({
      ...block(2n),
      headerRaw: attachSeals(raw, {
        proposerSeal: signProposerSeal(rivalHash, keyOf(0)),
        committedSeals: [],
        round: 0n,
      }),
    })
    const undecided = await v.importer.verifyProposal(rival, undefined)
    expect(undecided.trie).toBe(first.trie) // it took the warm state
    const second = await v.importer.verifyProposal(encodeWireBlock(block(2n)), undefined)
    expect(second.trie).not.toBe(first.trie) // the rival's state holds its block: a fresh one
    expect(await v.importer.commitDecided(second, sealsOf(2n))).toBe(true)
    const third = await v.importer.verifyProposal(encodeWireBlock(block(3n)), undefined)
    expect(third.trie).toBe(second.trie)
    expect(await v.importer.commitDecided(third, sealsOf(3n))).toBe(true)
    for (const n of [1n, 2n, 3n]) {
      const have = v.store.getBlockByNumber(n) as ChainBlock
      expect(bytesToHex(have.hash)).toBe(bytesToHex(block(n).hash))
      expect(bytesToHex(have.header.stateRoot)).toBe(bytesToHex(block(n).header.stateRoot))
    }
    const balance = async (db: typeof v.db, root: Uint8Array) =>
      (await stateAt(db, v.common, root).getAccount(new Address(hexToBytes(bob?.address as `0x${string}`))))?.balance
    expect(await balance(v.db, v.store.head.header.stateRoot)).toBe(
      await balance(source.db, source.store.head.header.stateRoot),
    )
    // an undecided proposal's recorded writes never reach the flat account table
    expectFlatAtHead(v.db, v.store)
  })
})

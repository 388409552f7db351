/**
 * Executing and verifying IBFT blocks from other validators: a proposal built by one node
 * verifies bit for bit on another (same genesis, separate database); a tampered one does not; a
 * decided block imports only with a quorum of committed seals.
 */
import type { Common } from '@ethereumjs/common'
import { createTx } from '@ethereumjs/tx'
import { Address, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterAll, describe, expect, it } from 'vitest'

import { attachSeals, decodeExtra, ibftBlockHash, signCommittedSeal, signProposerSeal } from './ibft/index.js'
import { stateAt } from '../state/index.js'
import { validateTransaction } from '../txpool/validate.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { executeIbftBlock } from './ibftImport.js'
import {
  openIbftTestNode,
  removeIbftTestNodes,
  USERS,
  VALIDATOR_ACCOUNTS,
  validatorKey,
} from '../../test/helpers/ibftChain.js'

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

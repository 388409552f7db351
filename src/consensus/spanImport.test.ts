/**
 * Import of a span switch (issue 19) on two real chains (separate databases): node A builds and
 * decides blocks 1-4 with span_blocks = 2; block 2 carries span 1's record (drawn from a set at
 * block 1 and signed by > 2/3 of its power), block 3 is sealed by the new committee. Node B
 * imports them; a record short of 2/3 power or a block sealed by the old committee is refused.
 */
import { hexToBytes } from '@ethereumjs/util'
import { afterAll, describe, expect, it } from 'vitest'

import { BlockImporter } from '../block/importer.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { encodeExtra } from '../chain/ibft/extra.js'
import type { SpanRecord } from '../chain/ibft/span.js'
import { BlockBuilder } from './blockBuilder.js'
import { attachSeals, decodeExtra, ibftBlockHash, signCommittedSeal, signProposerSeal } from './ibft/index.js'
import { IbftBlockImporter } from './ibftBlockImporter.js'
import type { ImportSpans } from './ibftImport.js'
import {
  committeeSigners,
  signConsent,
  SpanCommittees,
  spanImportCheck,
  spanProposal,
  type ValidatorSet,
} from '../validators/index.js'
import {
  openIbftTestNode,
  removeIbftTestNodes,
  VALIDATOR_ACCOUNTS,
  validatorKey,
} from '../../test/helpers/ibftChain.js'

afterAll(removeIbftTestNodes)
const PARAMS = { spanBlocks: 2n, producers: 3 }
const addr = (i: number) => hexToBytes(VALIDATOR_ACCOUNTS[i]?.address as `0x${string}`)
// the set at block 1: validators 1-3 (0 has no seat), ascending by signer, powers 1, 1, 2
const SET: ValidatorSet = [1, 2, 3]
  .map((i) => ({ i, signer: addr(i) }))
  .sort((a, b) => (Buffer.compare(a.signer, b.signer) < 0 ? -1 : 1))
  .map((v, k) => ({ seat: BigInt(51 + v.i), signer: v.signer, power: k === 2 ? 2n : 1n }))
const keyOfSigner = (s: Uint8Array) => validatorKey([0, 1, 2, 3].find((i) => Buffer.compare(addr(i), s) === 0) as number)

async function spanNode() {
  const n = await openIbftTestNode()
  const chainId = n.common.chainId()
  const committees = new SpanCommittees(PARAMS, { extraDataAt: (k) => n.store.getBlockByNumber(k)?.header.extraData })
  const spans: ImportSpans = { chainId, committees, readSet: async () => SET }
  const importer = new IbftBlockImporter({ store: n.store, common: n.common, baseFeeRecipient: undefined, syncWrites: false, spans, onCommitted: () => {} })
  return { ...n, importer, committees, chainId }
}

describe('import of a span switch', async () => {
  const a = await spanNode()
  const b = await spanNode()
  let record: SpanRecord | undefined
  const builderFor = (key: Uint8Array) =>
    BlockBuilder.create({
      store: a.store,
      common: a.common,
      trie: a.trie,
      privateKey: key,
      coinbase: addr(0),
      baseFeeRecipient: undefined,
      syncWrites: false,
      spans: {
        validatorsAt: (h) => {
          const c = a.committees.committeeAt(h)
          return c === undefined ? undefined : committeeSigners(c)
        },
        recordFor: (h) => (h === 2n ? record : undefined),
      },
    })
  let files: { blocks: Uint8Array[]; forged: Uint8Array } | undefined
  const decide = async (key: Uint8Array, sealers: Uint8Array[]) => {
    const p = await (await builderFor(key)).propose([], a.store.head.header.timestamp + 1n)
    await a.importer.commitDecided(p, { committedSeals: sealers.map((k) => signCommittedSeal(p.hash, 0n, k)), round: 0n })
    return a.store.head
  }

  it('verifies the record and the new committee on another node, and refuses what falls short', async () => {
    const genesisKeys = [0, 1, 2].map(validatorKey)
    const b1 = await decide(validatorKey(0), genesisKeys)
    const proposal = spanProposal(a.chainId, PARAMS, 1n, b1.hash, SET)
    if (proposal === undefined) throw new Error('no committee')
    const signersAll = SET.map((v) => v.signer)
    record = { ...proposal, signatures: signersAll.map((s) => signConsent(proposal, keyOfSigner(s))) }
    const b2 = await decide(validatorKey(0), genesisKeys)
    expect(decodeExtra(b2.header.extraData).span?.spanId).toBe(1n)
    const committee = a.committees.committeeAt(3n) ?? []
    expect(committee).toEqual(proposal.committee)
    const member = committee.reduce((x, y) => (y.power > x.power ? y : x))
    const b3 = await decide(keyOfSigner(member.signer), committee.map((m) => keyOfSigner(m.signer)))
    expect(decodeExtra(b3.header.extraData).validators).toEqual(committeeSigners(committee))

    expect(await b.importer.importSealed(encodeWireBlock(b1))).toBe('imported')
    // block 2 with consent of power 2 of 4 (exactly half): refused
    const short = { ...(record as SpanRecord), signatures: [signConsent(proposal, keyOfSigner(SET[2]?.signer as Uint8Array))] }
    const e2 = decodeExtra(b2.header.extraData)
    const raw = b2.headerRaw.slice()
    raw[12] = encodeExtra({ ...e2, span: short })
    const h = ibftBlockHash(raw)
    const forged = attachSeals(raw, {
      proposerSeal: signProposerSeal(h, validatorKey(0)),
      committedSeals: genesisKeys.map((k) => signCommittedSeal(h, 0n, k)),
      round: 0n,
    })
    await expect(b.importer.importSealed(encodeWireBlock({ ...b2, headerRaw: forged }))).rejects.toThrow(/insufficient-power/)
    expect(await b.importer.importSealed(encodeWireBlock(b2))).toBe('imported')
    expect(await b.importer.importSealed(encodeWireBlock(b3))).toBe('imported')
    expect(b.store.head.hash).toEqual(b3.hash)
    files = { blocks: [b1, b2, b3].map((x) => encodeWireBlock(x)), forged: encodeWireBlock({ ...b2, headerRaw: forged }) }
  })

  it('ibex import (BlockImporter with the span check) takes the switch and refuses the record short of 2/3 power (seals are not checked by import)', async () => {
    if (files === undefined) throw new Error('the first test built no blocks')
    const c = await spanNode()
    const importer = await BlockImporter.create({
      store: c.store,
      common: c.common,
      trie: c.trie,
      engine: 'ibft',
      baseFeeRecipient: undefined,
      syncWrites: false,
      checkConsensus: spanImportCheck({
        chainId: c.chainId,
        committees: c.committees,
        hashAt: (n) => c.store.getHashByNumber(n),
        readSet: async () => SET,
      }),
    })
    const [f1, f2, f3] = files.blocks as [Uint8Array, Uint8Array, Uint8Array]
    expect((await importer.import(f1)).kind).toBe('imported')
    await expect(importer.import(files.forged)).rejects.toThrow(/block 2 .*insufficient-power/)
    expect((await importer.import(f2)).kind).toBe('imported')
    expect((await importer.import(f3)).kind).toBe('imported')
    expect(decodeExtra(c.store.head.header.extraData).validators).toEqual(committeeSigners(c.committees.committeeAt(3n) ?? []))
  })

  it('the import check refuses validators that are not the span committee', async () => {
    const c = await spanNode()
    const check = spanImportCheck({ chainId: c.chainId, committees: c.committees, hashAt: () => undefined, readSet: async () => SET })
    const genesis = decodeExtra(c.store.head.header.extraData)
    await expect(check(1n, encodeExtra({ ...genesis, validators: genesis.validators.slice(1) }))).rejects.toThrow(
      /not the committee of the block's span/,
    )
    await expect(check(1n, encodeExtra(genesis))).resolves.toBeUndefined()
  })
})

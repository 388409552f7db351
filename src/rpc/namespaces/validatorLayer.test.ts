/**
 * The bor_ and validators_ namespaces through the dispatcher, over a fake backend holding a small
 * IBFT chain with a real span switch (span_blocks = 2, producers = 3): block 2 carries span 1's
 * record, drawn from the DAO set at block 1 and signed by all of it; block 3 is sealed by the new
 * committee. The DAO's answers (validatorSet(), nft(), ownerOf) are ABI bytes the fake's eth_call
 * returns; seals and consents are real secp256k1 signatures.
 */
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import { encodeExtra, type IbftExtra } from '../../chain/ibft/extra.js'
import type { ChainBlock } from '../../chain/store.js'
import { devAccounts } from '../../config/accounts.js'
import { signCommittedSeal, signProposerSeal } from '../../consensus/ibft/seal.js'
import { keccak256 } from '../../util/keccak.js'
import {
  signConsent,
  SpanCommittees,
  spanProposal,
  VALIDATOR_SET_CALLDATA,
  VALIDATOR_SIGNERS_ADDRESS,
  type ValidatorSet,
} from '../../validators/index.js'
import type { Backend } from '../backend.js'
import { borNamespace } from './bor.js'
import { callMethod, fakeBackend } from './testing.js'
import { SPANS_OFF, validatorsNamespace } from './validators.js'

const CHAIN_ID = 7861n
const PARAMS = { spanBlocks: 2n, producers: 3 }
const ACCOUNTS = devAccounts(6).slice(2)
const key = (i: number) => hexToBytes(ACCOUNTS[i]?.privateKey as `0x${string}`)
const addr = (i: number) => hexToBytes(ACCOUNTS[i]?.address as `0x${string}`)
const hex = (b: Uint8Array) => bytesToHex(b)
const NFT = hexToBytes('0x00000000000000000000000000000000000da0ff')
const HOLDER = (seat: bigint) => `0x${'ab'.repeat(19)}${seat.toString(16).padStart(2, '0')}`
const word = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)
const wordAddr = (a: Uint8Array) => {
  const w = new Uint8Array(32)
  w.set(a, 12)
  return w
}

/** ABI of (uint256[] seats, address[] signers, uint256[] powers). */
function encodeSet(set: { seat: bigint; signer: Uint8Array; power: bigint }[]): Uint8Array {
  const n = BigInt(set.length)
  const len = 32n * (n + 1n)
  const parts = [word(96n), word(96n + len), word(96n + 2n * len)]
  parts.push(word(n), ...set.map((v) => word(v.seat)))
  parts.push(word(n), ...set.map((v) => wordAddr(v.signer)))
  parts.push(word(n), ...set.map((v) => word(v.power)))
  return Uint8Array.from(parts.flatMap((p) => [...p]))
}

// the DAO's set: validators 1..3 with seats 52..54, ascending by signer, powers 1, 1, 2
const SET: ValidatorSet = [1, 2, 3]
  .map((i) => ({ i, signer: addr(i) }))
  .sort((a, b) => Buffer.compare(a.signer, b.signer))
  .map((v, k) => ({ seat: BigInt(51 + v.i), signer: v.signer, power: k === 2 ? 2n : 1n }))
const keyOf = (signer: Uint8Array) => key([0, 1, 2, 3].find((i) => Buffer.compare(addr(i), signer) === 0) as number)

/** A block with only what the namespaces read: number, extraData (sealed over `hash`), hash. */
function sealed(
  number: bigint,
  extra: Omit<IbftExtra, 'proposerSeal' | 'committedSeals' | 'round'>,
  proposer: Uint8Array,
  sealers: Uint8Array[],
): ChainBlock {
  const hash = keccak256(new TextEncoder().encode(`block ${number}`))
  const extraData = encodeExtra({
    ...extra,
    proposerSeal: signProposerSeal(hash, proposer),
    committedSeals: sealers.map((k) => signCommittedSeal(hash, 0n, k)),
    round: 0n,
  })
  return { hash, header: { number, extraData } } as unknown as ChainBlock
}

const VANITY = new Uint8Array(32)
const genesisValidators = [addr(0), addr(1), addr(2)]
const genesis = {
  hash: keccak256(new TextEncoder().encode('genesis')),
  header: {
    number: 0n,
    extraData: encodeExtra({
      vanity: VANITY,
      validators: genesisValidators,
      proposerSeal: new Uint8Array(),
      committedSeals: [],
      parentCommittedSeals: [],
      round: 0n,
    }),
  },
} as unknown as ChainBlock
const span0 = { vanity: VANITY, validators: genesisValidators, parentCommittedSeals: [] }
const block1 = sealed(1n, span0, key(0), [key(0), key(1), key(2)])
const proposal = spanProposal(CHAIN_ID, PARAMS, 1n, block1.hash, SET)
if (proposal === undefined) throw new Error('no draw')
const signatures = SET.map((v) => signConsent(proposal, keyOf(v.signer)))
const record = { spanId: 1n, start: 3n, end: 4n, committee: proposal.committee, refBlockHash: block1.hash, signatures }
const block2 = sealed(2n, { ...span0, span: record }, key(1), [key(0), key(1), key(2)])
const committeeKeys = proposal.committee.map((m) => keyOf(m.signer))
const block3 = sealed(
  3n,
  { vanity: VANITY, validators: proposal.committee.map((m) => m.signer), parentCommittedSeals: [] },
  committeeKeys[0] as Uint8Array,
  committeeKeys,
)
const CHAIN = [genesis, block1, block2, block3]

function chainBackend(opts: { spans: boolean; setAnswer?: Uint8Array }): Backend {
  const byHash = new Map(CHAIN.map((b) => [hex(b.hash), b]))
  return fakeBackend({
    chainId: CHAIN_ID,
    head: () => block3,
    blockByNumber: (n) => CHAIN[Number(n)],
    blockByHash: (h) => byHash.get(hex(h)),
    isCanonical: () => true,
    spans: opts.spans
      ? new SpanCommittees(PARAMS, { extraDataAt: (n) => CHAIN[Number(n)]?.header.extraData })
      : undefined,
    call: async (_block, request) => {
      const to = hex(request.to as Uint8Array)
      const data = request.data as Uint8Array
      if (to === hex(VALIDATOR_SIGNERS_ADDRESS) && hex(data) === hex(VALIDATOR_SET_CALLDATA))
        return opts.setAnswer ?? encodeSet(SET)
      if (to === hex(VALIDATOR_SIGNERS_ADDRESS)) return wordAddr(NFT) // nft()
      if (to === hex(NFT)) return hexToBytes(`0x${'00'.repeat(12)}${HOLDER(BigInt(hex(data.slice(4)))).slice(2)}`)
      throw new Error(`unexpected call to ${to}`)
    },
  })
}

const bor = (b: Backend, m: string, p: unknown[] = []) => callMethod(borNamespace, b, m, p)
const val = (b: Backend, m: string, p: unknown[] = []) => callMethod(validatorsNamespace, b, m, p)
const seatOf = (signer: Uint8Array) => SET.find((v) => hex(v.signer) === hex(signer))?.seat

describe('bor namespace', () => {
  const b = chainBackend({ spans: true })

  it('bor_getCurrentValidators: the committee deciding the next block, in Bor’s Validator shape', async () => {
    const { result } = await bor(b, 'bor_getCurrentValidators')
    expect(result).toEqual(
      proposal.committee.map((m) => ({
        ID: Number(seatOf(m.signer)),
        signer: hex(m.signer),
        power: Number(m.power),
        accum: 0,
      })),
    )
    // the draw of 3 with replacement: powers sum to producers
    expect((result as { power: number }[]).reduce((s, v) => s + v.power, 0)).toBe(3)
  })

  it('bor_getAuthor recovers the proposer seal; genesis and unknown blocks are -32000', async () => {
    expect((await bor(b, 'bor_getAuthor', ['0x2'])).result).toBe(hex(addr(1)))
    expect((await bor(b, 'bor_getAuthor')).result).toBe(hex(proposal.committee[0]?.signer as Uint8Array))
    expect((await bor(b, 'bor_getAuthor', [{ blockHash: hex(block1.hash) }])).result).toBe(hex(addr(0)))
    expect((await bor(b, 'bor_getAuthor', ['0x9'])).error).toEqual({ code: -32000, message: 'unknown block' })
    expect((await bor(b, 'bor_getAuthor', ['0x0'])).error?.code).toBe(-32000)
    expect((await bor(b, 'bor_getAuthor', ['nope'])).error?.code).toBe(-32602)
  })

  it('bor_getSignersAtHash lists the committed-seal signers, ascending', async () => {
    const want = proposal.committee.map((m) => hex(m.signer)).sort()
    expect((await bor(b, 'bor_getSignersAtHash', [hex(block3.hash)])).result).toEqual(want)
    expect((await bor(b, 'bor_getSignersAtHash', [hex(block1.hash)])).result).toEqual(genesisValidators.map(hex).sort())
    expect((await bor(b, 'bor_getSignersAtHash', [`0x${'11'.repeat(32)}`])).error).toEqual({
      code: -32000,
      message: 'unknown block',
    })
    expect((await bor(b, 'bor_getSignersAtHash', ['0x12'])).error?.code).toBe(-32602)
  })

  it('bor_getCurrentProposer follows the weighted rotation: slot (height + round) mod Σ power', async () => {
    const slots = proposal.committee.flatMap((m) => new Array<string>(Number(m.power)).fill(hex(m.signer)))
    expect((await bor(b, 'bor_getCurrentProposer')).result).toBe(slots[4 % slots.length])
  })

  it('bor_getSnapshotProposerSequence ranks the committee by the first round each proposes at the height', async () => {
    const { result } = await bor(b, 'bor_getSnapshotProposerSequence', ['0x3'])
    const slots = proposal.committee.flatMap((m) => new Array<string>(Number(m.power)).fill(hex(m.signer)))
    const order: string[] = []
    for (let r = 0; r < slots.length; r++) {
      const who = slots[(3 + r) % slots.length] as string
      if (!order.includes(who)) order.push(who)
    }
    const n = proposal.committee.length
    const author = hex(proposal.committee[0]?.signer as Uint8Array)
    expect(result).toEqual({
      Signers: order.map((Signer, i) => ({ Signer, Difficulty: n - i })),
      Diff: n - order.indexOf(author),
      Author: author,
    })
  })

  it('spans off: the header validators, power 1 each, unweighted rotation after the parent’s proposer', async () => {
    const off = chainBackend({ spans: false })
    const committee = proposal.committee.map((m) => m.signer)
    expect((await bor(off, 'bor_getCurrentValidators')).result).toEqual(
      committee.map((s) => ({ ID: Number(seatOf(s)), signer: hex(s), power: 1, accum: 0 })),
    )
    // proposer of block 3 is committee[0]: round 0 of block 4 is the next one
    expect((await bor(off, 'bor_getCurrentProposer')).result).toBe(hex(committee[1 % committee.length] as Uint8Array))
  })

  it('a malformed validatorSet() answer is a -32000 naming the fault', async () => {
    const bad = chainBackend({ spans: true, setAnswer: encodeSet([...SET].reverse()) })
    const { error } = await bor(bad, 'bor_getCurrentValidators')
    expect(error?.code).toBe(-32000)
    expect(error?.message).toMatch(/^invalid validator set \(unsorted\)/)
  })
})

describe('validators namespace', () => {
  const b = chainBackend({ spans: true })

  it('validators_getSpan: range, committee, reference block and the consent signers of a switch', async () => {
    expect((await val(b, 'validators_getSpan', ['0x1'])).result).toEqual({
      id: '0x1',
      startBlock: '0x3',
      endBlock: '0x4',
      committee: proposal.committee.map((m) => ({ signer: hex(m.signer), power: `0x${m.power.toString(16)}` })),
      switched: true,
      recordBlock: '0x2',
      referenceBlock: { number: '0x1', hash: hex(block1.hash) },
      consent: SET.map((v) => hex(v.signer)).sort(),
    })
    expect((await val(b, 'validators_getCurrentSpan')).result).toEqual(
      (await val(b, 'validators_getSpan', ['0x1'])).result,
    )
    expect((await val(b, 'validators_getSpan', ['0x0'])).result).toMatchObject({
      id: '0x0',
      startBlock: '0x1',
      endBlock: '0x2',
      committee: genesisValidators.map((s) => ({ signer: hex(s), power: '0x1' })),
      switched: false,
      recordBlock: null,
      referenceBlock: null,
      consent: null,
    })
    // span 2's record would ride in block 4, not in the chain yet
    expect((await val(b, 'validators_getSpan', ['0x2'])).result).toBeNull()
    expect((await val(b, 'validators_getSpan', ['1'])).error?.code).toBe(-32602)
  })

  it('validators_getValidators: seat, holder, signer, stake and committee membership', async () => {
    const { result } = await val(b, 'validators_getValidators')
    const power = new Map(proposal.committee.map((m) => [hex(m.signer), m.power]))
    expect(result).toEqual(
      SET.map((v) => ({
        seat: `0x${v.seat.toString(16)}`,
        holder: HOLDER(v.seat),
        signer: hex(v.signer),
        power: `0x${v.power.toString(16)}`,
        committeePower: `0x${(power.get(hex(v.signer)) ?? 0n).toString(16)}`,
        inCommittee: power.has(hex(v.signer)),
      })),
    )
    expect((await val(b, 'validators_getValidators', ['0x9'])).error).toEqual({
      code: -32000,
      message: 'header not found',
    })
  })

  it('spans off: span methods are -32000, the validator set still reads', async () => {
    const off = chainBackend({ spans: false })
    expect((await val(off, 'validators_getSpan', ['0x1'])).error).toEqual({ code: -32000, message: SPANS_OFF })
    expect((await val(off, 'validators_getCurrentSpan')).error).toEqual({ code: -32000, message: SPANS_OFF })
    expect(((await val(off, 'validators_getValidators')).result as unknown[]).length).toBe(3)
  })
})

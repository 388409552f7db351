/**
 * SpanConsent between validators wired to each other in memory: each draws the next span at its
 * reference block, signs, gossips, collects; the record for the span's last block appears only
 * with > 2/3 of the set's power and passes the import check (verifySpanRecord). Consents that
 * arrive before a node has drawn wait; consents by strangers or for another draw are dropped.
 */
import { hexToBytes } from '@ethereumjs/util'
import { describe, expect, it } from 'vitest'

import type { ChainStore } from '../chain/store.js'
import { devAccounts } from '../config/accounts.js'
import { NO_LOG } from './ibft/backend.js'
import {
  decodeConsentWire,
  encodeConsentWire,
  isConsentWire,
  SPAN_CONSENT_WIRE_TAG,
  SpanConsent,
} from './spanConsent.js'
import { SpanCommittees, type ValidatorSet, verifySpanRecord } from '../validators/index.js'

const PARAMS = { spanBlocks: 4n, producers: 3 }
const CHAIN_ID = 1337n
const ACCOUNTS = devAccounts(5)
const key = (i: number) => hexToBytes(ACCOUNTS[i]?.privateKey as `0x${string}`)
const address = (i: number) => hexToBytes(ACCOUNTS[i]?.address.toLowerCase() as `0x${string}`)
/** Validators 0-3 (4 is a stranger), powers 1, 1, 1, 3 in ascending signer order. */
const SET: ValidatorSet = [0, 1, 2, 3]
  .map((i) => ({ i, signer: address(i) }))
  .sort((a, b) => Buffer.compare(a.signer, b.signer))
  .map((v, k) => ({ seat: BigInt(51 + v.i), signer: v.signer, power: k === 3 ? 3n : 1n }))
const indexOf = (signer: Uint8Array) => [0, 1, 2, 3].find((i) => Buffer.compare(address(i), signer) === 0) as number
const hashOf = (n: bigint) => hexToBytes(`0x${n.toString(16).padStart(64, '0')}`)

/** A chain of `head` blocks whose block n has hash n. */
function fakeStore(chain: { head: bigint }): ChainStore {
  return {
    get head() {
      return { header: { number: chain.head } }
    },
    getBlockByNumber: (n: bigint) => (n <= chain.head ? { hash: hashOf(n) } : undefined),
  } as unknown as ChainStore
}

function network(members: number[], chain: { head: bigint }) {
  const nodes = new Map<number, SpanConsent>()
  const sent: Uint8Array[] = []
  const committees = new SpanCommittees(PARAMS, { extraDataAt: () => undefined })
  for (const i of members) {
    nodes.set(
      i,
      new SpanConsent({
        chainId: CHAIN_ID,
        committees,
        store: fakeStore(chain),
        readSet: async () => SET,
        signer: { key: key(i), address: address(i) },
        broadcast: (wire) => {
          sent.push(wire)
          for (const [j, n] of nodes) if (j !== i) n.receive(wire)
        },
        log: NO_LOG,
      }),
    )
  }
  return { nodes, sent }
}

const settle = () => new Promise((r) => setTimeout(r, 10))

describe('span consent wire', () => {
  it('round-trips and is never an IBFT message (RLP lists start at 0xc0)', () => {
    const c = { spanId: 7n, refBlockHash: hashOf(5n), signature: new Uint8Array(65).fill(1) }
    const wire = encodeConsentWire(c)
    expect(wire[0]).toBe(SPAN_CONSENT_WIRE_TAG)
    expect(SPAN_CONSENT_WIRE_TAG).toBeLessThan(0xc0)
    expect(isConsentWire(wire)).toBe(true)
    expect(decodeConsentWire(wire)).toEqual(c)
    expect(() => decodeConsentWire(wire.subarray(0, wire.length - 1))).toThrow()
    expect(() => decodeConsentWire(encodeConsentWire({ ...c, signature: new Uint8Array(64) }))).toThrow(/signature/)
  })
})

describe('SpanConsent', () => {
  it('validators holding > 2/3 of the power make a record that verifies; the proposer of the last block carries it', async () => {
    const chain = { head: 5n } // span 1 = blocks 5-8: R of span 2 = block 5
    const { nodes } = network([0, 1, 2, 3], chain)
    for (const n of nodes.values()) n.onHead(5n)
    await settle()
    const record = nodes.get(0)?.recordFor(8n)
    expect(record?.spanId).toBe(2n)
    expect(record?.signatures.length).toBe(4)
    verifySpanRecord({ chainId: CHAIN_ID, params: PARAMS, height: 8n, record: record as never, refBlockHash: hashOf(5n), set: SET })
    // only the last block of the span carries a record
    expect(nodes.get(0)?.recordFor(7n)).toBeUndefined()
    expect(nodes.get(0)?.recordFor(12n)).toBeUndefined()
  })

  it('no record while the signers hold 2/3 or less; the heavy validator tips it; a stranger counts for nothing', async () => {
    const chain = { head: 5n }
    const heavy = indexOf((SET[3] as ValidatorSet[number]).signer)
    const light = [0, 1, 2, 3].filter((i) => i !== heavy)
    // the three light validators (3 of 6 power) and a stranger (validator 4, no seat)
    const { nodes } = network([...light, 4], chain)
    for (const n of nodes.values()) n.onHead(5n)
    await settle()
    const collector = nodes.get(light[0] as number) as SpanConsent
    expect(collector.progress(2n)).toEqual({ signed: 3n, total: 6n, signers: 3 })
    expect(collector.recordFor(8n)).toBeUndefined()
    // the heavy one signs late (its consent arrives from outside): now 6 of 6
    const late = network([heavy], chain)
    late.nodes.get(heavy)?.onHead(5n)
    await settle()
    for (const wire of late.sent) collector.receive(wire)
    expect(collector.recordFor(8n)?.signatures.length).toBe(4)
  })

  it('keeps consents that arrive before its own draw, drops another draw and closes at the span end', async () => {
    const chain = { head: 5n }
    const { nodes, sent } = network([0, 1, 2, 3], chain)
    const [first, ...rest] = [...nodes.values()] as SpanConsent[]
    for (const n of rest) n.onHead(5n)
    await settle()
    // first has not drawn yet: it buffered the three consents
    expect(first?.progress(2n)).toBeUndefined()
    first?.onHead(5n)
    await settle()
    expect(first?.progress(2n)?.signers).toBe(4)
    // a consent for a draw at another reference hash is not counted
    const other = decodeConsentWire(sent[0] as Uint8Array)
    first?.receive(encodeConsentWire({ ...other, refBlockHash: hashOf(99n) }))
    expect(first?.progress(2n)?.signers).toBe(4)
    chain.head = 8n
    first?.onHead(8n)
    expect(first?.progress(2n)).toBeUndefined()
    expect(first?.recordFor(8n)).toBeUndefined()
  })
})

/**
 * Differential test of the block executor (blockExec.ts): the same genesis and the same candidate
 * lists built into blocks with the transfers layer (transfers.ts) and with every transaction
 * through runTx must give the same blocks — hash (so every header field: state root, receipts
 * root, bloom, gas used), receipts (status, gas, logs) and the same included and dropped
 * transactions; the IBFT verifier (strict mode) must accept a built block and fail on a bad
 * block; and storage writes kept in the write cache must build what writing through the trie
 * builds.
 *
 *   (a) independent ERC-20 transfers from many senders
 *   (b) transfers into the same balances, several per sender
 *   (c) a mix: the coinbase's balance read by a contract, ether paid to the coinbase, the coinbase
 *       as sender, creations (one self-destructing), reverts, out of gas, bad nonces (dropped), a
 *       zero tip, legacy transactions, a plain transfer, one too big for the gas left (skipped)
 *   (d) a randomized mix with a fixed seed (plain transfers among contract calls)
 */
import { rmSync } from 'node:fs'
import type { Common } from '@ethereumjs/common'
import { bytesToHex, createAddressFromString } from '@ethereumjs/util'
import { afterAll, describe, expect, it } from 'vitest'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { stateAt } from '../state/index.js'
import {
  admit,
  buildBlock,
  call,
  devKey,
  initcode,
  type Key,
  type Mode,
  openDiffChain,
  PROBE,
  senderKeys,
  setupBlocks,
  sign,
  TOKEN,
  VALIDATOR,
} from '../../test/helpers/blocks.js'
import { executeIbftBlock } from './ibftImport.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const recipient = (i: number) => `0x${(0xa000 + i).toString(16).padStart(40, '0')}`

/** Next nonce per signer, so each scenario continues where the previous block left off. */
class Nonces {
  readonly #next = new Map<string, bigint>()
  take(key: Key): bigint {
    const n = this.#next.get(key.address) ?? 0n
    this.#next.set(key.address, n + 1n)
    return n
  }
  peek(key: Key): bigint {
    return this.#next.get(key.address) ?? 0n
  }
}

/** A tiny deterministic generator (mulberry32). */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

function scenarios(common: Common, nonces = new Nonces()): { name: string; raws: Uint8Array[] }[] {
  // the setup blocks used these nonces
  for (let i = 0; i < 2; i++) nonces.take(devKey(0))
  nonces.take(devKey(1))
  const s = (key: Key, fields: Record<string, unknown>) => sign(common, key, { nonce: nonces.take(key), ...fields })
  const token = (key: Key, to: string, value: bigint, extra: Record<string, unknown> = {}) =>
    s(key, { to: TOKEN, data: call.transfer(to, value), ...extra })
  const probe = (key: Key, name: Parameters<typeof call.probe>[0], extra: Record<string, unknown> = {}) =>
    s(key, { to: PROBE, data: call.probe(name), ...extra })

  const independent = senderKeys.map((k, i) => token(k, recipient(i), 1000n + BigInt(i)))

  const conflicting: Uint8Array[] = []
  for (let round = 0; round < 3; round++)
    senderKeys.slice(0, 12).forEach((k, i) => {
      conflicting.push(token(k, recipient(0), 7n)) // every one adds to the same balance
      conflicting.push(token(k, (senderKeys[(i + 1) % 12] as Key).address, 5n)) // into the next sender's balance
    })
  for (let i = 0; i < 8; i++) conflicting.push(probe(senderKeys[20 + i] as Key, 'bump')) // one shared counter

  const k = (i: number) => senderKeys[i] as Key
  const mix: Uint8Array[] = [
    probe(k(0), 'touch'),
    probe(k(1), 'readCoinbase'), // reads the coinbase's balance: tipped by every earlier transaction
    token(k(2), recipient(40), 1n),
    s(k(3), { to: PROBE, data: call.pay(VALIDATOR.address), value: 12345n }), // ether to the coinbase
    s(k(4), { to: undefined, data: initcode('probe'), gasLimit: 1_500_000n }), // creation
    s(k(5), { to: undefined, data: initcode('ephemeral'), gasLimit: 300_000n, value: 3n }), // created and destroyed
    probe(k(6), 'spawn'), // creates and destroys a child
    probe(k(7), 'fail'), // reverts
    probe(k(8), 'burn', { gasLimit: 120_000n }), // out of gas
    token(k(9), recipient(41), 10n ** 30n), // more than its balance: the token reverts
    token(k(10), recipient(42), 2n, { maxPriorityFeePerGas: 0n }), // zero tip
    token(k(11), recipient(43), 3n, {
      type: 0,
      gasPrice: 10n ** 10n,
      maxFeePerGas: undefined,
      maxPriorityFeePerGas: undefined,
    }),
    sign(common, k(12), { nonce: nonces.peek(k(12)) + 5n, to: TOKEN, data: call.transfer(recipient(44), 1n) }), // nonce gap: dropped
    token(devKey(9), recipient(45), 0n), // from the coinbase
    s(k(13), { to: recipient(46), value: 10n ** 15n, gasLimit: 21_000n }), // a plain transfer among them
    probe(k(14), 'readCoinbase'),
    token(k(15), recipient(47), 4n),
    s(k(16), { to: PROBE, data: call.probe('touch'), gasLimit: 29_000_000n }), // does not fit any more: skipped
    token(k(16), recipient(48), 5n), // same sender after the skipped one: skipped too
    token(k(17), recipient(49), 6n),
    probe(k(18), 'touch'),
    probe(k(19), 'bump'),
  ]

  const rnd = random(20261122)
  const randomized: Uint8Array[] = []
  for (let i = 0; i < 120; i++) {
    const from = k(Math.floor(rnd() * 24))
    const r = rnd()
    if (r < 0.45)
      randomized.push(
        token(
          from,
          rnd() < 0.3 ? recipient(0) : recipient(100 + Math.floor(rnd() * 50)),
          BigInt(1 + Math.floor(rnd() * 100)),
        ),
      )
    else if (r < 0.55) randomized.push(token(from, k(Math.floor(rnd() * 24)).address, 9n))
    else if (r < 0.65) randomized.push(probe(from, 'touch'))
    else if (r < 0.7) randomized.push(probe(from, 'bump'))
    else if (r < 0.74) randomized.push(probe(from, 'readCoinbase'))
    else if (r < 0.78) randomized.push(probe(from, 'fail'))
    else if (r < 0.8) randomized.push(probe(from, 'burn', { gasLimit: 60_000n }))
    else if (r < 0.83) randomized.push(s(from, { to: undefined, data: initcode('ephemeral'), gasLimit: 300_000n }))
    else if (r < 0.9)
      randomized.push(s(from, { to: recipient(200 + Math.floor(rnd() * 5)), value: 1n, gasLimit: 21_000n }))
    else if (r < 0.93)
      randomized.push(token(from, recipient(1), 1n, { gasLimit: 30_000n })) // out of gas inside the token
    else randomized.push(token(from, recipient(2), 2n, { maxPriorityFeePerGas: BigInt(Math.floor(rnd() * 3)) }))
  }
  return [
    { name: '(a) independent transfers', raws: independent },
    { name: '(b) conflicting transfers', raws: conflicting },
    { name: '(c) mix', raws: mix },
    { name: '(d) randomized', raws: randomized },
  ]
}

type Built = Awaited<ReturnType<typeof buildAll>>

async function buildAll(mode: Mode, storageThroughTrie = false) {
  const c = await openDiffChain(dirs, mode, storageThroughTrie)
  const { common } = c.chain
  for (const raws of setupBlocks(common)) {
    const { summary } = await buildBlock(c, raws)
    if (summary.statuses.some((st) => st !== 1) || summary.dropped.length > 0)
      throw new Error(`setup block failed: ${JSON.stringify(summary)}`)
  }
  const nonces = new Nonces()
  const blocks = []
  for (const sc of scenarios(common, nonces)) {
    const b = await buildBlock(c, sc.raws)
    blocks.push({ name: sc.name, ...b.summary })
  }
  return { c, blocks, nonces }
}

function expectSameBlocks(a: Built, b: Built): void {
  for (let i = 0; i < b.blocks.length; i++) expect(a.blocks[i]).toEqual(b.blocks[i])
}

let layered: Built | undefined

describe('block executor', () => {
  it('builds the same blocks with the transfers layer as with runTx for everything', async () => {
    layered = await buildAll('layers')
    const plain = await buildAll('runTx')
    expectSameBlocks(layered, plain)
    const [a, b, c, d] = plain.blocks
    expect(a?.statuses).toEqual(new Array(32).fill(1))
    expect(b?.included.length).toBe(80)
    // the revert, the out-of-gas, the token's failed require; the gap dropped; the oversized one and its sender's next skipped
    expect(c?.statuses.filter((st) => st === 0).length).toBe(3)
    expect(c?.dropped.length).toBe(1)
    expect(c?.included.length).toBe(19)
    expect(d?.included.length).toBeGreaterThan(100)
    await plain.c.close()
  }, 120_000)

  it('the verifier (strict) accepts a built block and fails on a bad block', async () => {
    const built = layered ?? (await buildAll('layers'))
    const { store, common } = built.c.chain
    const state = stateAt(built.c.chain.db, common, store.head.header.stateRoot)
    const nonceOf = async (k: Key) => (await state.getAccount(createAddressFromString(k.address)))?.nonce ?? 0n
    const raws: Uint8Array[] = []
    for (const [i, k] of senderKeys.slice(0, 24).entries()) {
      const nonce = await nonceOf(k)
      raws.push(
        i % 3 === 0
          ? sign(common, k, { nonce, to: PROBE, data: call.probe('readCoinbase') })
          : sign(common, k, { nonce, to: TOKEN, data: call.transfer(recipient(300 + (i % 5)), 1n) }),
      )
    }
    const proposal = await built.c.builder.propose(await admit(built.c, raws), store.head.header.timestamp + 1n)
    expect(proposal.included.length).toBe(24)
    const bytes = encodeWireBlock(proposal)
    const opts = { store, common, baseFeeRecipient: undefined }
    const verified = await executeIbftBlock(opts, store.head, bytes, { kind: 'proposal' })
    expect(bytesToHex(verified.hash)).toBe(bytesToHex(proposal.hash))

    // a transaction with a nonce gap in the middle: strict execution stops there
    const k = senderKeys[30] as Key
    const bad = sign(common, k, { nonce: (await nonceOf(k)) + 3n, to: TOKEN, data: call.transfer(recipient(9), 1n) })
    const txs = [...proposal.transactionBytes]
    txs.splice(12, 0, bad)
    const badBytes = encodeWireBlock({ ...proposal, transactionBytes: txs })
    const error = await executeIbftBlock(opts, store.head, badBytes, { kind: 'proposal' }).then(
      () => 'accepted',
      (err: Error) => err.message,
    )
    expect(error).toMatch(/transaction 12 is invalid: the tx doesn't have the correct nonce/)
  }, 60_000)
})

describe('storage writes kept in the write cache until the flush (src/state/cachedStorage.ts)', () => {
  it('builds the same blocks as writing every SSTORE through the storage trie', async () => {
    const cached = layered ?? (await buildAll('layers'))
    const through: Built = await buildAll('layers', true)
    expectSameBlocks(cached, through)
    await through.c.close()
    await cached.c.close()
  }, 120_000)
})

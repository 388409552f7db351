/** The eth_ state methods over a fake backend: which block's state they read, and what they answer. */
import { describe, expect, it } from 'vitest'
import type { AccountFields, Backend, StateReader } from '../../backend.js'
import { toData } from '../../../util/hex.js'
import { callMethod, chainOf, fakeBackend, testBlock } from '../testing.js'
import { ethNamespace } from './index.js'

const blocks = [testBlock(0n), testBlock(1n), testBlock(2n)]
const ADDRESS = '0x00000000000000000000000000000000000000aa'
const MIXED_CASE = '0x00000000000000000000000000000000000000AA'

/** Accounts by block number: block 1 and the head differ, so the block read shows in the answer. */
function accountAt(block: { header: { number: bigint } }): AccountFields {
  return { nonce: 3n + block.header.number, balance: 1000n * (block.header.number + 1n) }
}

function backend(over: Partial<Backend> = {}): { b: Backend; reads: string[] } {
  const reads: string[] = []
  const state = (block: { header: { number: bigint } }): StateReader => ({
    code: async (address) => {
      reads.push(`code ${address} @${block.header.number}`)
      return Uint8Array.of(0x60, 0x00)
    },
    storage: async (address, slot) => {
      reads.push(`storage ${address} ${toData(slot)} @${block.header.number}`)
      return Uint8Array.of(0x01, 0x02)
    },
    proof: async () => {
      throw new Error('not used')
    },
  })
  const b = fakeBackend({
    ...chainOf(blocks),
    account: (block, address) => {
      reads.push(`account ${address} @${block.header.number}`)
      return accountAt(block)
    },
    state,
    pendingNonce: (address, stateNonce) => {
      reads.push(`pendingNonce ${address} ${stateNonce}`)
      return stateNonce + 2n
    },
    ...over,
  })
  return { b, reads }
}

describe('eth_getBalance', () => {
  it('reads the head for latest, and for no block at all', async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getBalance', [ADDRESS, 'latest'])).toEqual({ result: '0xbb8' })
    expect(await callMethod(ethNamespace, b, 'eth_getBalance', [ADDRESS])).toEqual({ result: '0xbb8' })
    expect(reads).toEqual([`account ${ADDRESS} @2`, `account ${ADDRESS} @2`])
  })

  it('reads a numbered block, lowercasing the address', async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getBalance', [MIXED_CASE, '0x1'])).toEqual({ result: '0x7d0' })
    expect(reads).toEqual([`account ${ADDRESS} @1`])
  })

  it('answers a balance the backend reads asynchronously', async () => {
    const { b } = backend({ account: async () => ({ nonce: 0n, balance: 255n }) })
    expect(await callMethod(ethNamespace, b, 'eth_getBalance', [ADDRESS, 'latest'])).toEqual({ result: '0xff' })
  })

  it("answers geth's errors for a block it does not have", async () => {
    const { b } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getBalance', [ADDRESS, '0x9'])).toEqual({
      error: { code: -32000, message: 'header not found' },
    })
    expect(
      await callMethod(ethNamespace, b, 'eth_getBalance', [ADDRESS, { blockHash: `0x${'ab'.repeat(32)}` }]),
    ).toEqual({
      error: { code: -32000, message: 'header for hash not found' },
    })
  })

  it('refuses a bad address before reading anything', async () => {
    const { b, reads } = backend()
    const answer = await callMethod(ethNamespace, b, 'eth_getBalance', ['0x12', 'latest'])
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error?.message).toMatch(/^invalid argument 0: /)
    expect(reads).toEqual([])
  })
})

describe('eth_getTransactionCount', () => {
  it("answers the state's nonce at the block", async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getTransactionCount', [ADDRESS, '0x1'])).toEqual({ result: '0x4' })
    expect(reads).toEqual([`account ${ADDRESS} @1`])
  })

  it('continues from the pool for pending', async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getTransactionCount', [ADDRESS, 'pending'])).toEqual({
      result: '0x7',
    })
    expect(reads).toEqual([`account ${ADDRESS} @2`, `pendingNonce ${ADDRESS} 5`])
  })
})

describe('eth_getCode and eth_getStorageAt', () => {
  it("read the block's state", async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getCode', [ADDRESS, 'earliest'])).toEqual({ result: '0x6000' })
    expect(reads).toEqual([`code ${ADDRESS} @0`])
  })

  it('pad the slot and the value to 32 bytes', async () => {
    const { b, reads } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_getStorageAt', [ADDRESS, '0x5', 'latest'])).toEqual({
      result: `0x${'00'.repeat(30)}0102`,
    })
    expect(reads).toEqual([`storage ${ADDRESS} 0x${'00'.repeat(31)}05 @2`])
  })
})

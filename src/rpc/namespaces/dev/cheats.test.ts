/**
 * The test controls through the dispatcher with a fake dev chain: params as viem, cast and
 * hardhat scripts send them, anvil's answers, and the refusals with their codes.
 */
import { describe, expect, it } from 'vitest'
import { MineLimitError } from '../../../consensus/devControl.js'
import { TimestampNotAfterParentError } from '../../../consensus/devClock.js'
import type { StateEdit } from '../../../state/editState.js'
import type { DevChain } from '../../backend.js'
import { callMethod, fakeBackend } from '../testing.js'
import { anvilNamespace, evmNamespace, hardhatNamespace } from './cheats.js'

const ADDRESS = `0x${'ab'.repeat(20)}`

/** A dev chain that records what it was asked. */
function recorder(fail?: Error) {
  const calls: unknown[][] = []
  let offset = 0n
  const devChain: DevChain = {
    async mine(blocks, options) {
      calls.push(['mine', blocks, options])
      if (fail !== undefined) throw fail
    },
    increaseTime(seconds) {
      offset += seconds
      return offset
    },
    async setNextBlockTimestamp(timestamp) {
      calls.push(['setNextBlockTimestamp', timestamp])
      if (fail !== undefined) throw fail
    },
    async editState(edits: readonly StateEdit[]) {
      calls.push(['edit', ...edits])
    },
  }
  return { backend: fakeBackend({ devChain }), calls }
}

describe('evm namespace', () => {
  it('evm_mine: nothing, a timestamp, or {timestamp, blocks}; answers "0x0"', async () => {
    const { backend, calls } = recorder()
    expect(await callMethod(evmNamespace, backend, 'evm_mine')).toEqual({ result: '0x0' })
    expect(await callMethod(evmNamespace, backend, 'evm_mine', [1700000000])).toEqual({ result: '0x0' })
    await callMethod(evmNamespace, backend, 'evm_mine', ['0x6553f100'])
    await callMethod(evmNamespace, backend, 'evm_mine', [{ blocks: '0x3' }])
    await callMethod(evmNamespace, backend, 'evm_mine', [{ timestamp: 5, blocks: 2 }])
    expect(calls).toEqual([
      ['mine', 1n, { timestamp: undefined }],
      ['mine', 1n, { timestamp: 1700000000n }],
      ['mine', 1n, { timestamp: 1700000000n }],
      ['mine', 3n, { timestamp: undefined }],
      ['mine', 2n, { timestamp: 5n }],
    ])
    const bad = await callMethod(evmNamespace, backend, 'evm_mine', [{ count: 1 }])
    expect(bad.error).toEqual({
      code: -32602,
      message: 'invalid argument 0: unknown field "count" of evm_mine\'s options',
    })
  })

  it('evm_increaseTime answers the total offset as a JSON number, from hex, decimal or a number', async () => {
    const { backend } = recorder()
    expect(await callMethod(evmNamespace, backend, 'evm_increaseTime', ['0xe10'])).toEqual({ result: 3600 })
    expect(await callMethod(evmNamespace, backend, 'evm_increaseTime', [60])).toEqual({ result: 3660 })
    expect(await callMethod(evmNamespace, backend, 'evm_increaseTime', ['40'])).toEqual({ result: 3700 })
    const negative = await callMethod(evmNamespace, backend, 'evm_increaseTime', [-5])
    expect(negative.error?.code).toBe(-32602)
  })

  it("evm_setNextBlockTimestamp: null; a timestamp not after the head's is anvil's -32602", async () => {
    const { backend, calls } = recorder()
    expect(await callMethod(evmNamespace, backend, 'evm_setNextBlockTimestamp', ['0x10'])).toEqual({ result: null })
    expect(calls).toEqual([['setNextBlockTimestamp', 16n]])
    const refused = recorder(new TimestampNotAfterParentError(16n))
    expect(await callMethod(evmNamespace, refused.backend, 'evm_setNextBlockTimestamp', [16])).toEqual({
      error: { code: -32602, message: "Timestamp error: 16 is lower than previous block's timestamp" },
    })
  })
})

describe('anvil and hardhat namespaces', () => {
  it('anvil_mine / hardhat_mine: count and interval, both optional; null', async () => {
    const { backend, calls } = recorder()
    expect(await callMethod(anvilNamespace, backend, 'anvil_mine', ['0x3', '0xa'])).toEqual({ result: null })
    expect(await callMethod(hardhatNamespace, backend, 'hardhat_mine')).toEqual({ result: null })
    expect(calls).toEqual([
      ['mine', 3n, { intervalSeconds: 10n }],
      ['mine', 1n, { intervalSeconds: undefined }],
    ])
    const limited = recorder(new MineLimitError(100_000n, 10_000))
    expect(await callMethod(anvilNamespace, limited.backend, 'anvil_mine', [100_000])).toEqual({
      error: { code: -32602, message: 'cannot mine 100000 blocks at once: at most 10000 ([dev] mine_max_blocks)' },
    })
  })

  it('state setters: the edits, anvil answers (null; true for setStorageAt)', async () => {
    const { backend, calls } = recorder()
    const word = `0x${'00'.repeat(31)}2a`
    expect(await callMethod(anvilNamespace, backend, 'anvil_setBalance', [ADDRESS, '0xde0b6b3a7640000'])).toEqual({
      result: null,
    })
    expect(await callMethod(hardhatNamespace, backend, 'hardhat_setBalance', [ADDRESS, '1000'])).toEqual({
      result: null,
    })
    expect(await callMethod(anvilNamespace, backend, 'anvil_setCode', [ADDRESS, '0x6000'])).toEqual({ result: null })
    expect(await callMethod(anvilNamespace, backend, 'anvil_setNonce', [ADDRESS, '0x7'])).toEqual({ result: null })
    expect(await callMethod(anvilNamespace, backend, 'anvil_setStorageAt', [ADDRESS, '0x1', word])).toEqual({
      result: true,
    })
    expect(await callMethod(hardhatNamespace, backend, 'hardhat_setStorageAt', [ADDRESS, word, '0x2a'])).toEqual({
      result: true,
    })
    const slot = (n: number) => Uint8Array.from({ length: 32 }, (_, i) => (i === 31 ? n : 0))
    expect(calls).toEqual([
      ['edit', { kind: 'balance', address: ADDRESS, balance: 10n ** 18n }],
      ['edit', { kind: 'balance', address: ADDRESS, balance: 1000n }],
      ['edit', { kind: 'code', address: ADDRESS, code: Uint8Array.of(0x60, 0) }],
      ['edit', { kind: 'nonce', address: ADDRESS, nonce: 7n }],
      ['edit', { kind: 'storage', address: ADDRESS, slot: slot(1), value: slot(42) }],
      ['edit', { kind: 'storage', address: ADDRESS, slot: slot(42), value: slot(42) }],
    ])
  })

  it('refuses what would not be exact or does not fit', async () => {
    const { backend, calls } = recorder()
    const inexact = await callMethod(anvilNamespace, backend, 'anvil_setBalance', [ADDRESS, 1e21])
    expect(inexact.error).toEqual({
      code: -32602,
      message: 'invalid argument 1: invalid U256 1e+21: a JSON number above 2^53 is not exact, send it as a hex string',
    })
    const nonce = await callMethod(anvilNamespace, backend, 'anvil_setNonce', [ADDRESS, '0x10000000000000000'])
    expect(nonce.error).toEqual({
      code: -32602,
      message: 'invalid argument 1: invalid u64 "0x10000000000000000": larger than u64',
    })
    const long = await callMethod(anvilNamespace, backend, 'anvil_setStorageAt', [
      ADDRESS,
      '0x0',
      `0x${'11'.repeat(33)}`,
    ])
    expect(long.error?.code).toBe(-32602)
    const odd = await callMethod(anvilNamespace, backend, 'anvil_setCode', [ADDRESS, '0x6'])
    expect(odd.error?.code).toBe(-32602)
    expect(calls).toEqual([])
  })
})

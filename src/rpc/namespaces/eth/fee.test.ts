/**
 * The fee methods over a fake backend: a genesis, a block of two transfers tipping 2 and 1 gwei
 * at a 1 gwei base fee, and an empty head (next base fee 0.875 gwei).
 */
import { describe, expect, it } from 'vitest'
import type { Backend } from '../../backend.js'
import { callMethod, chainOf, fakeBackend, testBlock, transfer } from '../testing.js'
import { ethNamespace } from './index.js'

const GWEI = 1_000_000_000n
const NEXT_BASE_FEE = '0x342770c0' // 0.875 gwei: the empty head's 1 gwei less an eighth
const mined = [transfer(0n, 3n * GWEI, 2n * GWEI), transfer(1n, 3n * GWEI, GWEI)]

function backend(priceLimit = 0n, withTxs = true): Backend {
  const blocks = [testBlock(0n), testBlock(1n, withTxs ? mined : []), testBlock(2n)]
  return fakeBackend({ ...chainOf(blocks), priceLimit })
}

describe('eth_maxPriorityFeePerGas and eth_gasPrice', () => {
  it("suggest the 60th percentile of recent tips, plus the head's base fee for the price (geth)", async () => {
    expect(await callMethod(ethNamespace, backend(), 'eth_maxPriorityFeePerGas')).toEqual({ result: '0x3b9aca00' })
    // 1 gwei tip + the head's 1 gwei base fee; the next block's (0.875 gwei) would be below the head's
    expect(await callMethod(ethNamespace, backend(), 'eth_gasPrice')).toEqual({ result: '0x77359400' })
  })

  it('suggest 1 gwei when recent blocks are empty', async () => {
    expect(await callMethod(ethNamespace, backend(0n, false), 'eth_maxPriorityFeePerGas')).toEqual({
      result: '0x3b9aca00',
    })
  })

  it("never suggest below the pool's price limit", async () => {
    const b = backend(3n * GWEI)
    expect(await callMethod(ethNamespace, b, 'eth_maxPriorityFeePerGas')).toEqual({ result: '0xb2d05e00' })
    expect(await callMethod(ethNamespace, b, 'eth_gasPrice')).toEqual({ result: '0xee6b2800' })
  })
})

describe('eth_feeHistory', () => {
  it('answers the last blocks up to the newest, with the next base fee and rewards at percentiles', async () => {
    expect(await callMethod(ethNamespace, backend(), 'eth_feeHistory', ['0x2', 'latest', [50]])).toEqual({
      result: {
        oldestBlock: '0x1',
        reward: [['0x3b9aca00'], ['0x0']],
        baseFeePerGas: ['0x3b9aca00', '0x3b9aca00', NEXT_BASE_FEE],
        gasUsedRatio: [0.0014, 0],
        baseFeePerBlobGas: ['0x1', '0x1', '0x1'],
        blobGasUsedRatio: [0, 0],
      },
    })
  })

  it('starts at genesis when asked for more blocks than there are, and leaves out rewards without percentiles', async () => {
    const { result } = await callMethod(ethNamespace, backend(), 'eth_feeHistory', ['0x400', '0x1'])
    expect(result).toEqual({
      oldestBlock: '0x0',
      // after block 1 (42,000 of a 15M target): 1 gwei less (15M - 42,000) / 15M / 8
      baseFeePerGas: ['0x3b9aca00', '0x3b9aca00', '0x342cc7f0'],
      gasUsedRatio: [0, 0.0014],
      baseFeePerBlobGas: ['0x1', '0x1', '0x1'],
      blobGasUsedRatio: [0, 0],
    })
  })

  it('answers an empty history for no blocks', async () => {
    expect(await callMethod(ethNamespace, backend(), 'eth_feeHistory', ['0x0', 'latest'])).toEqual({
      result: { oldestBlock: '0x0', baseFeePerGas: [], gasUsedRatio: [] },
    })
  })

  it("takes the block count as geth's math.HexOrDecimal64: a hex or decimal string, or a bare number", async () => {
    const b = backend()
    const hex = await callMethod(ethNamespace, b, 'eth_feeHistory', ['0x2', 'latest', [25, 50]])
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', [2, 'latest', [25, 50]])).toEqual(hex)
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', ['2', 'latest', [25, 50]])).toEqual(hex)
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', ['two', 'latest'])).toEqual({
      error: { code: -32602, message: 'invalid argument 0: invalid hex or decimal integer "two"' },
    })
  })

  it('floors every reward at a price limit above 1 wei, so idle blocks never suggest a tip the pool refuses', async () => {
    // block 1 tips 2 and 1 gwei, block 2 is empty: geth would answer [[1 gwei, 2 gwei], [0, 0]]
    const { result } = await callMethod(ethNamespace, backend((3n * GWEI) / 2n), 'eth_feeHistory', [
      '0x2',
      'latest',
      [25, 75],
    ])
    expect((result as { reward: string[][] }).reward).toEqual([
      ['0x59682f00', '0x77359400'], // 1.5 gwei (the limit), 2 gwei
      ['0x59682f00', '0x59682f00'],
    ])
  })

  it('answers rewards as geth does without a price limit and under geth-default 1 wei', async () => {
    for (const limit of [0n, 1n]) {
      const { result } = await callMethod(ethNamespace, backend(limit), 'eth_feeHistory', ['0x2', 'latest', [25, 75]])
      expect((result as { reward: string[][] }).reward).toEqual([
        ['0x3b9aca00', '0x77359400'],
        ['0x0', '0x0'],
      ])
    }
  })

  it("refuses bad percentiles and a block past the head with geth's words", async () => {
    const b = backend()
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', ['0x1', 'latest', [101]])).toEqual({
      error: { code: -32602, message: 'invalid reward percentile: 101' },
    })
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', ['0x1', 'latest', [50, 40]])).toEqual({
      error: { code: -32602, message: 'invalid reward percentile: #0:50 >= #1:40' },
    })
    expect(await callMethod(ethNamespace, b, 'eth_feeHistory', ['0x1', '0x9'])).toEqual({
      error: { code: -32602, message: 'requested block is in the future' },
    })
  })
})

describe('eth_baseFee and eth_blobBaseFee', () => {
  it("answer the head's next base fee and its blob base fee", async () => {
    expect(await callMethod(ethNamespace, backend(), 'eth_baseFee')).toEqual({ result: NEXT_BASE_FEE })
    expect(await callMethod(ethNamespace, backend(), 'eth_blobBaseFee')).toEqual({ result: '0x1' })
  })
})

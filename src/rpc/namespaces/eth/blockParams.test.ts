/**
 * The block and index params of the eth_ block and transaction lookups, decoded with the Go types
 * geth (v1.17.5) declares for them: `rpc.BlockNumber` (a tag or a number; no hash, no EIP-1898
 * object) for the ByNumber methods, `hexutil.Uint` for an index, `rpc.BlockNumberOrHash` for
 * eth_getBlockReceipts and the state methods, which refuses an object naming no block.
 */
import { describe, expect, it } from 'vitest'
import type { Backend } from '../../backend.js'
import { toData } from '../../../util/hex.js'
import { callMethod, chainOf, fakeBackend, testBlock, transfer } from '../testing.js'
import { ethNamespace } from './index.js'

const GWEI = 1_000_000_000n
const mined = [transfer(0n, 3n * GWEI, 2n * GWEI)]
const blocks = [testBlock(0n), testBlock(1n, mined)]
const hash = toData((blocks[1] as NonNullable<(typeof blocks)[1]>).hash)

function backend(): Backend {
  return fakeBackend({ ...chainOf(blocks) })
}

const invalid = (message: string) => ({ error: { code: -32602, message } })

/** The methods whose block param is geth's rpc.BlockNumber, with their other params. */
const BY_NUMBER: [string, unknown[]][] = [
  ['eth_getBlockByNumber', [false]],
  ['eth_getBlockTransactionCountByNumber', []],
  ['eth_getUncleCountByBlockNumber', []],
  ['eth_getTransactionByBlockNumberAndIndex', ['0x0']],
  ['eth_getRawTransactionByBlockNumberAndIndex', ['0x0']],
]

describe('rpc.BlockNumber params', () => {
  it('take a tag or a number', async () => {
    for (const [method, rest] of BY_NUMBER) {
      for (const ref of ['0x1', 'latest']) {
        const answer = await callMethod(ethNamespace, backend(), method, [ref, ...rest])
        expect(answer.error, `${method} ${ref}`).toBeUndefined()
        expect(answer.result, `${method} ${ref}`).not.toBeNull()
      }
    }
  })

  it('refuse a block hash with the hexutil number error', async () => {
    for (const [method, rest] of BY_NUMBER) {
      expect(await callMethod(ethNamespace, backend(), method, [hash, ...rest]), method).toEqual(
        invalid('invalid argument 0: hex number > 64 bits'),
      )
    }
  })

  it('refuse an EIP-1898 object, null and numbers as text without 0x', async () => {
    for (const [method, rest] of BY_NUMBER) {
      for (const ref of [{ blockNumber: '0x1' }, { blockHash: hash }, null, 1]) {
        expect(await callMethod(ethNamespace, backend(), method, [ref, ...rest]), method).toEqual(
          invalid('invalid argument 0: hex string without 0x prefix'),
        )
      }
    }
  })
})

describe('hexutil.Uint index params', () => {
  const BY_INDEX: [string, unknown][] = [
    ['eth_getTransactionByBlockNumberAndIndex', '0x1'],
    ['eth_getRawTransactionByBlockNumberAndIndex', '0x1'],
    ['eth_getTransactionByBlockHashAndIndex', hash],
    ['eth_getRawTransactionByBlockHashAndIndex', hash],
  ]

  it('name hexutil.Uint in their errors', async () => {
    for (const [method, ref] of BY_INDEX) {
      expect(await callMethod(ethNamespace, backend(), method, [ref, '0x10000000000000000']), method).toEqual(
        invalid('invalid argument 1: json: cannot unmarshal hex number > 64 bits into Go value of type hexutil.Uint'),
      )
      expect(await callMethod(ethNamespace, backend(), method, [ref, 1]), method).toEqual(
        invalid('invalid argument 1: json: cannot unmarshal non-string into Go value of type hexutil.Uint'),
      )
    }
  })

  it('find the transaction at a valid index, nothing past the end', async () => {
    const tx = await callMethod(ethNamespace, backend(), 'eth_getTransactionByBlockNumberAndIndex', ['0x1', '0x0'])
    expect(tx.result).toMatchObject({ hash: toData(mined[0]?.hash() as Uint8Array) })
    const past = await callMethod(ethNamespace, backend(), 'eth_getTransactionByBlockNumberAndIndex', [
      '0x1',
      '0xffffffffffffffff',
    ])
    expect(past).toEqual({ result: null })
  })
})

describe('rpc.BlockNumberOrHash params (geth #35271)', () => {
  const neither = invalid('invalid argument 0: must specify either BlockHash or BlockNumber')

  it('refuse null, {} and an object naming no block', async () => {
    for (const ref of [null, {}, { requireCanonical: true }, { blockNumber: null }]) {
      expect(await callMethod(ethNamespace, backend(), 'eth_getBlockReceipts', [ref]), JSON.stringify(ref)).toEqual(
        neither,
      )
    }
  })

  it('still take a hash, a number and EIP-1898 objects', async () => {
    for (const ref of [hash, '0x1', { blockNumber: '0x1' }, { blockHash: hash, requireCanonical: true }]) {
      const answer = await callMethod(ethNamespace, backend(), 'eth_getBlockReceipts', [ref])
      expect(answer.error, JSON.stringify(ref)).toBeUndefined()
      expect(answer.result, JSON.stringify(ref)).toHaveLength(1)
    }
  })
})

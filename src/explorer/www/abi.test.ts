/**
 * The explorer's browser codecs (abi.js) against viem's ABI encoder and ibex's own IBFT extraData
 * encoder: nested tuples, dynamic arrays, strings and signed integers decode to the values encoded;
 * truncated data, offsets past the end and absurd lengths give undefined (the page shows raw hex),
 * never a throw or a huge allocation.
 */
import { encodeAbiParameters, encodeEventTopics, encodeFunctionData, type Hex, parseAbiParameters } from 'viem'
import { describe, expect, it } from 'vitest'
import { encodeExtra } from '../../chain/ibft/index.js'
import { buildKnown } from '../site.js'
import { AbiBook, decodeIbftExtra, decodeParams, encodeCall } from './abi.js'

const book = new AbiBook(buildKnown('dev'))

describe('decodeParams', () => {
  it('decodes what viem encodes: tuples with dynamic members, arrays, strings, bytes, signed integers', () => {
    const params = [
      { type: 'uint256', name: 'a' },
      { type: 'string', name: 's' },
      {
        type: 'tuple[]',
        name: 't',
        components: [
          { type: 'address', name: 'who' },
          { type: 'bytes', name: 'data' },
          { type: 'int64', name: 'delta' },
        ],
      },
      { type: 'bytes32[2]', name: 'pair' },
      { type: 'bool', name: 'flag' },
    ]
    const who = '0x00000000000000000000000000000000000000aa' as Hex
    const pair = [`0x${'11'.repeat(32)}`, `0x${'22'.repeat(32)}`] as [Hex, Hex]
    const encoded = encodeAbiParameters(parseAbiParameters('uint256, string, (address, bytes, int64)[], bytes32[2], bool'), [
      12345n,
      'héllo',
      [
        [who, '0xdeadbeef', -5n],
        [who, '0x', 7n],
      ],
      pair,
      true,
    ])
    expect(decodeParams(params, encoded)).toEqual([
      12345n,
      'héllo',
      [
        { who, data: '0xdeadbeef', delta: -5n },
        { who, data: '0x', delta: 7n },
      ],
      pair,
      true,
    ])
  })

  it('gives undefined for truncated data, offsets past the end and absurd lengths', () => {
    const params = [{ type: 'string', name: 's' }]
    const good = encodeAbiParameters(parseAbiParameters('string'), ['abc'])
    expect(decodeParams(params, good)).toEqual(['abc'])
    expect(decodeParams(params, good.slice(0, 100))).toBeUndefined()
    expect(decodeParams(params, `0x${'ff'.repeat(32)}`)).toBeUndefined()
    const hugeLength = `0x${'20'.padStart(64, '0')}${'ff'.repeat(32)}`
    expect(decodeParams(params, hugeLength)).toBeUndefined()
    const hugeArray = `0x${'20'.padStart(64, '0')}${(10n ** 9n).toString(16).padStart(64, '0')}`
    expect(decodeParams([{ type: 'uint256[]', name: 'x' }], hugeArray)).toBeUndefined()
    expect(decodeParams([{ type: 'uint256', name: 'x' }], '0x12')).toBeUndefined()
  })
})

describe('AbiBook', () => {
  it('decodes DAO calls, standard events by their indexed pattern, and revert reasons', () => {
    const data = encodeFunctionData({
      abi: [{ type: 'function', name: 'approveApplication', inputs: [{ name: 'id', type: 'uint256' }], outputs: [], stateMutability: 'nonpayable' }],
      args: [42n],
    })
    const call = book.decodeCall(data)
    expect(call?.entry.signature).toBe('approveApplication(uint256)')
    expect(call?.values).toEqual([42n])
    const transfer = {
      type: 'event',
      name: 'Transfer',
      inputs: [
        { name: 'from', type: 'address', indexed: true },
        { name: 'to', type: 'address', indexed: true },
        { name: 'value', type: 'uint256', indexed: false },
      ],
    } as const
    const from = '0x00000000000000000000000000000000000000a1' as Hex
    const to = '0x00000000000000000000000000000000000000b2' as Hex
    const topics = encodeEventTopics({ abi: [transfer], args: { from, to } }) as string[]
    const erc20 = book.decodeLog({ topics, data: encodeAbiParameters(parseAbiParameters('uint256'), [5n]) })
    expect(erc20?.entry.source).toBe('ERC-20')
    expect(erc20?.values).toEqual([from, to, 5n])
    const erc721 = book.decodeLog({ topics: [...topics, `0x${'7'.padStart(64, '0')}`], data: '0x' })
    expect(erc721?.entry.inputs.filter((i) => i.indexed).length).toBe(3)
    expect(erc721?.values).toEqual([from, to, 7n])
    const reason = `0x08c379a0${encodeAbiParameters(parseAbiParameters('string'), ['no']).slice(2)}`
    expect(book.decodeError(reason)?.values).toEqual(['no'])
    expect(book.decodeCall('0x12345678')).toBeUndefined()
    expect(book.decodeCall('0x')).toBeUndefined()
    expect(book.decodeLog({ topics: [], data: '0x' })).toBeUndefined()
  })

  it('encodes the call arguments the pages send', () => {
    expect(encodeCall('0x12345678', ['uint256', 'address', 'bool'], [5n, '0x00000000000000000000000000000000000000AB', true])).toBe(
      `0x12345678${'5'.padStart(64, '0')}${'ab'.padStart(64, '0')}${'1'.padStart(64, '0')}`,
    )
  })
})

describe('decodeIbftExtra', () => {
  it('reads round and seal counts from what src/chain/ibft encodes', () => {
    const extra = encodeExtra({
      vanity: new Uint8Array(32),
      validators: [new Uint8Array(20).fill(1), new Uint8Array(20).fill(2), new Uint8Array(20).fill(3)],
      proposerSeal: new Uint8Array(65).fill(9),
      committedSeals: [new Uint8Array(65).fill(4), new Uint8Array(65).fill(5)],
      parentCommittedSeals: [new Uint8Array(65).fill(6)],
      round: 3n,
    })
    expect(decodeIbftExtra(`0x${Buffer.from(extra).toString('hex')}`)).toEqual({
      validators: 3,
      hasProposerSeal: true,
      committedSeals: 2,
      parentCommittedSeals: 1,
      round: 3n,
    })
    expect(decodeIbftExtra('0x')).toBeUndefined()
    expect(decodeIbftExtra(`0x${'00'.repeat(32)}f9ffff`)).toBeUndefined()
  })
})

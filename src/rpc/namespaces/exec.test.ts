/**
 * The methods that execute (eth_call, eth_estimateGas, eth_createAccessList, debug_trace*) over a
 * fake backend: which block and message they hand to the backend, how they answer its result,
 * and the checks they make before asking.
 */
import { describe, expect, it } from 'vitest'
import type { CallOverrides } from '../../exec/pool/index.js'
import type { Backend } from '../backend.js'
import { toData } from '../../util/hex.js'
import { debugTraceNamespace } from './debugTrace.js'
import { ethNamespace } from './eth/index.js'
import { callMethod, chainOf, fakeBackend, testBlock } from './testing.js'

const blocks = [testBlock(0n), testBlock(1n), testBlock(2n)]
const TO = '0x00000000000000000000000000000000000000cc'
const CALL = { to: TO, data: '0x70a08231', gas: '0x5208' }

function backend(over: Partial<Backend> = {}): { b: Backend; asked: string[] } {
  const asked: string[] = []
  const describeRequest = (
    block: { header: { number: bigint } },
    req: { to?: Uint8Array; data?: Uint8Array; gas?: bigint },
    overrides?: CallOverrides,
  ) =>
    `@${block.header.number} to=${req.to && toData(req.to)} data=${req.data && toData(req.data)} gas=${req.gas}` +
    (overrides === undefined ? '' : ` overrides=${overrides.state?.size ?? 0}/${overrides.block?.gasLimit ?? '-'}`)
  const b = fakeBackend({
    ...chainOf(blocks),
    call: async (block, req, overrides) => {
      asked.push(`call ${describeRequest(block, req, overrides)}`)
      return Uint8Array.of(0xab, 0xcd)
    },
    estimateGas: async (block, req, overrides) => {
      asked.push(`estimateGas ${describeRequest(block, req, overrides)}`)
      return 21_000n
    },
    traceTransaction: async (loc, options) => {
      asked.push(`traceTransaction ${toData(loc.blockHash)}#${loc.index} tracer=${options.tracer}`)
      return [new TextEncoder().encode('{"gas":1}')]
    },
    traceCall: async (block, req, overrides) => {
      asked.push(`traceCall ${describeRequest(block, req, overrides)}`)
      return [new TextEncoder().encode('[]')]
    },
    ...over,
  })
  return { b, asked }
}

describe('eth_call and eth_estimateGas', () => {
  it('hand the block and the decoded message to the backend, and encode its answer', async () => {
    const { b, asked } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, '0x1'])).toEqual({ result: '0xabcd' })
    expect(await callMethod(ethNamespace, b, 'eth_estimateGas', [CALL])).toEqual({ result: '0x5208' })
    expect(asked).toEqual([
      `call @1 to=${TO} data=0x70a08231 gas=21000`,
      `estimateGas @2 to=${TO} data=0x70a08231 gas=21000`,
    ])
  })

  it('run `input` where data and input differ (geth refuses that only when sending), refuse a missing block', async () => {
    const { b, asked } = backend()
    expect(await callMethod(ethNamespace, b, 'eth_call', [{ ...CALL, input: '0x01' }, 'latest'])).toEqual({
      result: '0xabcd',
    })
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, '0x9'])).toEqual({
      error: { code: -32000, message: 'header not found' },
    })
    expect(asked).toEqual([`call @2 to=${TO} data=0x01 gas=21000`])
  })

  it("take geth v1.17's state override (3rd) and block override (4th) parameters", async () => {
    const { b, asked } = backend()
    const state = {
      [TO]: { balance: '0x1' },
      '0x0000000000000000000000000000000000000001': { movePrecompileToAddress: TO },
    }
    const block = { gasLimit: '0x1000' }
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, 'latest', state, block])).toEqual({ result: '0xabcd' })
    expect(await callMethod(ethNamespace, b, 'eth_estimateGas', [CALL, 'latest', state])).toEqual({ result: '0x5208' })
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, 'latest', null, null])).toEqual({ result: '0xabcd' })
    expect(asked).toEqual([
      `call @2 to=${TO} data=0x70a08231 gas=21000 overrides=2/4096`,
      `estimateGas @2 to=${TO} data=0x70a08231 gas=21000 overrides=2/-`,
      `call @2 to=${TO} data=0x70a08231 gas=21000`,
    ])
    const bad = await callMethod(ethNamespace, b, 'eth_call', [CALL, 'latest', { [TO]: { balance: 1 } }])
    expect(bad.error).toEqual({
      code: -32602,
      message:
        'invalid argument 2: json: cannot unmarshal non-string into Go struct field OverrideAccount.balance of type *hexutil.Big',
    })
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, 'latest', null, []])).toEqual({
      error: {
        code: -32602,
        message: 'invalid argument 3: json: cannot unmarshal array into Go value of type override.BlockOverrides',
      },
    })
    expect(await callMethod(ethNamespace, b, 'eth_call', [CALL, 'latest', null, null, 1])).toEqual({
      error: { code: -32602, message: 'too many arguments, want at most 4' },
    })
  })
})

describe('eth_createAccessList', () => {
  it("answers the backend's list, gas and error; hands it the suggested tip and the state override", async () => {
    const asked: string[] = []
    const { b } = backend({
      priceLimit: 0n,
      createAccessList: async (_block, _req, tip, overrides) => {
        asked.push(`tip=${tip} overrides=${overrides?.state?.size ?? 0}`)
        return { accessList: [{ address: TO, storageKeys: [] }], gasUsed: 30_000n, error: 'execution reverted' }
      },
    })
    const tip = (await callMethod(ethNamespace, b, 'eth_maxPriorityFeePerGas', [])).result as string
    expect(
      await callMethod(ethNamespace, b, 'eth_createAccessList', [CALL, 'latest', { [TO]: { nonce: '0x1' } }]),
    ).toEqual({
      result: { accessList: [{ address: TO, storageKeys: [] }], gasUsed: '0x7530', error: 'execution reverted' },
    })
    expect(asked).toEqual([`tip=${BigInt(tip)} overrides=1`])
    expect(await callMethod(ethNamespace, b, 'eth_createAccessList', [CALL, 'latest', null, null])).toEqual({
      error: { code: -32602, message: 'too many arguments, want at most 3' },
    })
  })
})

describe('debug_trace*', () => {
  const txHash = `0x${'77'.repeat(32)}`

  it('traces a mined transaction where it sits, with the given tracer', async () => {
    const { b, asked } = backend({
      txLocation: () => ({ blockHash: blocks[1]?.hash as Uint8Array, blockNumber: 1n, index: 3 }),
    })
    expect(
      await callMethod(debugTraceNamespace, b, 'debug_traceTransaction', [txHash, { tracer: 'callTracer' }]),
    ).toEqual({ result: { gas: 1 } })
    expect(asked).toEqual([`traceTransaction ${toData(blocks[1]?.hash as Uint8Array)}#3 tracer=callTracer`])
  })

  it("answers geth's errors for an unknown or a genesis transaction", async () => {
    const unknown = backend({ txLocation: () => undefined })
    expect(await callMethod(debugTraceNamespace, unknown.b, 'debug_traceTransaction', [txHash])).toEqual({
      error: { code: -32000, message: 'transaction not found' },
    })
    const genesis = backend({
      txLocation: () => ({ blockHash: blocks[0]?.hash as Uint8Array, blockNumber: 0n, index: 0 }),
    })
    expect(await callMethod(debugTraceNamespace, genesis.b, 'debug_traceTransaction', [txHash])).toEqual({
      error: { code: -32000, message: 'genesis is not traceable' },
    })
    expect([...unknown.asked, ...genesis.asked]).toEqual([])
  })

  it('traces a call at the named block with its state overrides', async () => {
    const { b, asked } = backend()
    const overrides = { stateOverrides: { [TO]: { balance: '0x1' } }, blockOverrides: { gasLimit: '0x10' } }
    expect(await callMethod(debugTraceNamespace, b, 'debug_traceCall', [CALL, '0x2', overrides])).toEqual({
      result: [],
    })
    expect(await callMethod(debugTraceNamespace, b, 'debug_traceCall', [CALL, '0x2', {}])).toEqual({ result: [] })
    expect(asked).toEqual([
      `traceCall @2 to=${TO} data=0x70a08231 gas=21000 overrides=1/16`,
      `traceCall @2 to=${TO} data=0x70a08231 gas=21000`,
    ])
  })
})

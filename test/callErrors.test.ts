/**
 * A message's fee errors over real HTTP, worded as geth words them (core/state_transition.go
 * preCheck), never in the EVM library's words: a fee cap below the block's base fee, and a tip
 * above the fee cap (which used to take the worker down), on every method that runs a message.
 */
import { getAddress } from 'viem'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEV_ACCOUNTS } from './helpers/dev.js'
import { cleanupNodes, rpc, rpcResponse, startNode } from './helpers/node.js'

const FROM = DEV_ACCOUNTS[0].address
const TO = DEV_ACCOUNTS[1].address
/** What ethereumjs says about fees; none of it may reach a client. */
const ENGINE_TEXT = /Transaction's|baseFeePerGas \(|vm hf=|cannot be less than/

let url = ''
/** A block pinned by number, so its base fee is the one the message is checked against. */
let blockTag = ''
let baseFee = 0n

beforeAll(async () => {
  const node = await startNode({ args: ['--http.api', 'eth,net,web3,debug'] })
  url = node.url
  const block = await rpc<{ number: string; baseFeePerGas: string }>(url, 'eth_getBlockByNumber', ['latest', false])
  blockTag = block.number
  baseFee = BigInt(block.baseFeePerGas)
})
afterAll(cleanupNodes)

const METHODS: [method: string, prefix: string][] = [
  ['eth_call', ''],
  ['eth_estimateGas', ''],
  ['eth_createAccessList', ''],
  ['debug_traceCall', 'tracing failed: '],
]

describe.each(METHODS)('%s', (method, prefix) => {
  const params = (fees: Record<string, string>) => {
    const msg = { from: FROM, to: TO, value: '0x1', ...fees }
    return method === 'debug_traceCall' ? [msg, blockTag, {}] : [msg, blockTag]
  }

  it('a fee cap below the base fee: -32000 with geth wording', async () => {
    expect(baseFee).toBeGreaterThan(1n)
    const res = await rpcResponse(url, method, params({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1' }))
    expect(res.error).toEqual({
      code: -32000,
      message: `${prefix}max fee per gas less than block base fee: address ${getAddress(FROM)}, maxFeePerGas: 1, baseFee: ${baseFee}`,
    })
    expect(res.error?.message).not.toMatch(ENGINE_TEXT)
  })

  it('a tip above the fee cap: -32000 with geth wording, and the node keeps serving', async () => {
    const res = await rpcResponse(url, method, params({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }))
    expect(res.error).toEqual({
      code: -32000,
      message: `${prefix}max priority fee per gas higher than max fee per gas: address ${getAddress(FROM)}, maxPriorityFeePerGas: 2, maxFeePerGas: 1`,
    })
    expect(await rpc(url, 'eth_call', [{ from: FROM, to: TO }, blockTag])).toBe('0x')
  })
})

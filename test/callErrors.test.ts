/**
 * A message's fee errors over real HTTP, worded as geth v1.17.5 words them (core/state_transition.go
 * preCheck, inside each method's own wrapping), never in the EVM library's words: a fee cap below
 * the block's base fee, and a tip above the fee cap (which used to take the worker down), on every
 * method that runs a message.
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
let gasLimit = 0n
/** The node's RPC gas cap (config default): eth_call's gas when the message names none. */
const GAS_CAP = 50_000_000n

beforeAll(async () => {
  const node = await startNode({ args: ['--http.api', 'eth,net,web3,debug'] })
  url = node.url
  const block = await rpc<{ number: string; baseFeePerGas: string; gasLimit: string }>(url, 'eth_getBlockByNumber', [
    'latest',
    false,
  ])
  blockTag = block.number
  baseFee = BigInt(block.baseFeePerGas)
  gasLimit = BigInt(block.gasLimit)
})
afterAll(cleanupNodes)

/** How each method wraps a message geth's ApplyMessage refused (`why`), as geth v1.17.5 words it. */
const WRAPPED: [method: string, wrap: (why: string) => string | RegExp][] = [
  // internal/ethapi doCall: `err: %w (supplied gas %d)`
  ['eth_call', (why) => `err: ${why} (supplied gas ${GAS_CAP})`],
  // eth/gasestimator run: `failed with %d gas: %w`, at the block's gas limit (funds allow more)
  ['eth_estimateGas', (why) => `failed with ${gasLimit < GAS_CAP ? gasLimit : GAS_CAP} gas: ${why}`],
  // internal/ethapi AccessList: `failed to apply transaction: %v err: %v` (the unsigned transaction's hash)
  [
    'eth_createAccessList',
    (why) => new RegExp(`^failed to apply transaction: 0x[0-9a-f]{64} err: ${escapeRegExp(why)}$`),
  ],
  // eth/tracers TraceCall: `tracing failed: %w`
  ['debug_traceCall', (why) => `tracing failed: ${why}`],
]

function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
}

function expectError(got: { code: number; message: string } | undefined, message: string | RegExp): void {
  expect(got?.code).toBe(-32000)
  if (typeof message === 'string') expect(got?.message).toBe(message)
  else expect(got?.message).toMatch(message)
  expect(got?.message).not.toMatch(ENGINE_TEXT)
}

describe.each(WRAPPED)('%s', (method, wrap) => {
  const params = (fees: Record<string, string>) => {
    const msg = { from: FROM, to: TO, value: '0x1', ...fees }
    return method === 'debug_traceCall' ? [msg, blockTag, {}] : [msg, blockTag]
  }

  it('a fee cap below the base fee: -32000 with geth wording', async () => {
    expect(baseFee).toBeGreaterThan(1n)
    const res = await rpcResponse(url, method, params({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x1' }))
    expectError(
      res.error,
      wrap(
        `max fee per gas less than block base fee: address ${getAddress(FROM)}, maxFeePerGas: 1, baseFee: ${baseFee}`,
      ),
    )
  })

  it('a tip above the fee cap: -32000 with geth wording, and the node keeps serving', async () => {
    const res = await rpcResponse(url, method, params({ maxFeePerGas: '0x1', maxPriorityFeePerGas: '0x2' }))
    const why = `max priority fee per gas higher than max fee per gas: address ${getAddress(FROM)}, maxPriorityFeePerGas: 2, maxFeePerGas: 1`
    // eth_createAccessList fills and checks the fees first (setFeeDefaults), in its own words
    expectError(
      res.error,
      method === 'eth_createAccessList' ? 'maxFeePerGas (0x1) < maxPriorityFeePerGas (0x2)' : wrap(why),
    )
    expect(await rpc(url, 'eth_call', [{ from: FROM, to: TO }, blockTag])).toBe('0x')
  })
})

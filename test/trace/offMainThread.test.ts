/**
 * eth_simulateV1 and eth_createAccessList run on the call workers, never on the main thread: on
 * a real node, while a 30M-gas loop is being simulated (or its access list built), eth_blockNumber
 * is answered first — on the main thread the loop would hold every other request until it ended.
 * A loop past `--rpc.evmtimeout` answers geth's timeout error and the node keeps serving; errors
 * raised in the worker reach the client with their codes (eth_simulateV1's -380xx).
 *
 * Order, not speed, is asserted: which answer arrives first, never how fast.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode, waitFor, waitForReceipt } from '../helpers/node.js'
import { sendTx } from '../helpers/tx.js'

/** Init code returning the runtime 5b5f56: JUMPDEST PUSH0 JUMP, a loop that only gas ends. */
const SPIN_INITCODE: Hex = '0x625b5f565f526003601df3'
const SPIN_RUNTIME: Hex = '0x5b5f56'
/** Where the simulations put the loop (a state override), so they need no deployment. */
const SIM_SPIN_ADDRESS: Hex = `0x${'5b'.repeat(20)}`
/** A block's worth of gas: seconds of ethereumjs work on the loop, as in the measurement. */
const BLOCK_GAS: Hex = '0x1c9c380'
const EVM_TIMEOUT_MS = 3000
/** Gas cap of this node and gas of the loops meant to time out: minutes of work, so only the timeout ends them. */
const SPIN_GAS: Hex = '0x77359400'
/** Time for a request to reach the node before the next is sent (ordering only, nothing is timed). */
const IN_FLIGHT_MS = 200

let node: IbexNode
let spin: Hex
const sender = DEV_ACCOUNTS[0]

beforeAll(async () => {
  node = await startNode({
    port: 'free',
    args: ['--rpc.evmtimeout', `${EVM_TIMEOUT_MS}ms`, '--rpc.gascap', String(BigInt(SPIN_GAS)), '--exec.workers', '1'],
  })
  const hash = await sendTx(node.url, sender.privateKey, { to: null, data: SPIN_INITCODE, gas: 100_000n })
  spin = (await waitForReceipt(node.url, hash)).contractAddress
  // the call worker boots after the node serves: wait until it answers
  await waitFor(
    () =>
      rpc(node.url, 'eth_call', [{ to: sender.address }, 'latest']).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 30_000, what: 'the call worker' },
  )
}, 60_000)

afterAll(cleanupNodes)

function simulatePayload(gas: Hex, blockGasLimit?: Hex) {
  return {
    blockStateCalls: [
      {
        blockOverrides: blockGasLimit === undefined ? undefined : { gasLimit: blockGasLimit },
        stateOverrides: { [SIM_SPIN_ADDRESS]: { code: SPIN_RUNTIME } },
        calls: [{ from: sender.address, to: SIM_SPIN_ADDRESS, gas }],
      },
    ],
  }
}

/**
 * Sends `method`, then (once it is in flight) eth_blockNumber; the order the two answers arrive in,
 * and the heavy request's answer.
 */
async function raceBlockNumber(method: string, params: unknown[]) {
  const order: string[] = []
  const heavy = rpcResponse(node.url, method, params).then((res) => {
    order.push(method)
    return res
  })
  await new Promise((r) => setTimeout(r, IN_FLIGHT_MS))
  const blockNumber = await rpc(node.url, 'eth_blockNumber')
  order.push('eth_blockNumber')
  return { order, blockNumber, heavy: await heavy }
}

async function stillServing(): Promise<void> {
  expect(await rpc(node.url, 'eth_blockNumber')).toMatch(/^0x[0-9a-f]+$/)
  expect(await rpc(node.url, 'eth_call', [{ to: sender.address }, 'latest'])).toBe('0x')
}

describe('heavy requests run off the main thread', () => {
  it('eth_blockNumber is answered while a 30M-gas eth_simulateV1 runs', async () => {
    const { order, heavy } = await raceBlockNumber('eth_simulateV1', [simulatePayload(BLOCK_GAS), 'latest'])
    expect(order).toEqual(['eth_blockNumber', 'eth_simulateV1'])
    // the loop ran until its gas or the timeout ended it, whichever came first on this box
    if (heavy.error === undefined) {
      const [block] = heavy.result as { calls: { status: string; gasUsed: string; error?: { message: string } }[] }[]
      expect(block?.calls[0]).toMatchObject({ status: '0x0', gasUsed: BLOCK_GAS, error: { message: 'out of gas' } })
    } else {
      expect(heavy.error).toEqual({ code: -32000, message: `execution aborted (timeout = ${EVM_TIMEOUT_MS / 1000}s)` })
    }
    await stillServing()
  })

  it('eth_blockNumber is answered while a 30M-gas eth_createAccessList runs', async () => {
    const { order, heavy } = await raceBlockNumber('eth_createAccessList', [
      { from: sender.address, to: spin, gas: BLOCK_GAS },
      'latest',
    ])
    expect(order).toEqual(['eth_blockNumber', 'eth_createAccessList'])
    if (heavy.error === undefined) {
      expect(heavy.result).toMatchObject({ gasUsed: BLOCK_GAS, error: 'out of gas' })
    } else {
      expect(heavy.error).toEqual({ code: -32000, message: `execution aborted (timeout = ${EVM_TIMEOUT_MS / 1000}s)` })
    }
    await stillServing()
  })
})

describe('deadlines and errors cross the thread boundary', () => {
  it("an eth_simulateV1 loop past the evm timeout answers geth's timeout error", async () => {
    const { order, heavy } = await raceBlockNumber('eth_simulateV1', [simulatePayload(SPIN_GAS, SPIN_GAS), 'latest'])
    expect(order).toEqual(['eth_blockNumber', 'eth_simulateV1'])
    expect(heavy.error).toEqual({ code: -32000, message: `execution aborted (timeout = ${EVM_TIMEOUT_MS / 1000}s)` })
    await stillServing()
  })

  it("an eth_createAccessList loop past the evm timeout answers geth's timeout error", async () => {
    const { order, heavy } = await raceBlockNumber('eth_createAccessList', [
      { from: sender.address, to: spin, gas: SPIN_GAS },
      'latest',
    ])
    expect(order).toEqual(['eth_blockNumber', 'eth_createAccessList'])
    expect(heavy.error).toEqual({ code: -32000, message: `execution aborted (timeout = ${EVM_TIMEOUT_MS / 1000}s)` })
    await stillServing()
  })

  it("eth_simulateV1's request errors keep their -380xx codes and messages", async () => {
    const head = BigInt(await rpc(node.url, 'eth_blockNumber'))
    const res = await rpcResponse(node.url, 'eth_simulateV1', [
      { blockStateCalls: [{ blockOverrides: { number: `0x${head.toString(16)}` } }] },
      'latest',
    ])
    expect(res.error).toEqual({ code: -38020, message: `block numbers must be in order: ${head} <= ${head}` })
    const empty = await rpcResponse(node.url, 'eth_simulateV1', [{ blockStateCalls: [] }, 'latest'])
    expect(empty.error).toEqual({ code: -32602, message: 'empty input' })
  })

  it('a reverting call keeps its revert in the simulated call result', async () => {
    // PUSH1 0 PUSH1 0 REVERT: reverts without data
    const payload = {
      blockStateCalls: [
        {
          stateOverrides: { [SIM_SPIN_ADDRESS]: { code: '0x60006000fd' } },
          calls: [{ from: sender.address, to: SIM_SPIN_ADDRESS }],
        },
      ],
    }
    const [block] = (await rpc(node.url, 'eth_simulateV1', [payload, 'latest'])) as {
      calls: { status: string; error: unknown }[]
    }[]
    expect(block?.calls[0]).toMatchObject({ status: '0x0', error: { code: 3, message: 'execution reverted' } })
  })
})

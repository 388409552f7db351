/**
 * Differential test of the tracers: the same signed transactions go to `ibex start --network dev
 * --http.api eth,net,web3,txpool,debug` and to anvil 1.7.1 (`--steps-tracing --hardfork prague
 * --chain-id 1337`), and every debug_trace* answer must be the same JSON — after rewriting
 * anvil's few departures from geth to geth's form (helpers/normalize.ts lists each, with geth's
 * source as the reason). Both processes run on free loopback ports and are stopped by PID.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { encodeFunctionData, type Hex } from 'viem'
import { cleanupNodes, type IbexNode, rpc, startNode } from '../helpers/node.js'
import { type Anvil, startAnvil } from './helpers/anvil.js'
import {
  dropOutOfGasCost,
  firstDifference,
  gethCallFrame,
  gethPrestate,
  gethStructLogs,
  plainStackErrors,
} from './helpers/normalize.js'
import { runScenario, type Scenario } from './helpers/scenario.js'

/** Struct logger option sets: defaults, each switch alone, all at once. */
const LOGGER_OPTIONS: Record<string, object> = {
  default: {},
  enableMemory: { enableMemory: true },
  disableStack: { disableStack: true },
  disableStorage: { disableStorage: true },
  enableReturnData: { enableReturnData: true },
  all: { enableMemory: true, disableStack: true, disableStorage: true, enableReturnData: true },
}

const SETUP_TIMEOUT_MS = 180_000
const TEST_TIMEOUT_MS = 120_000

let ibex: IbexNode
let anvil: Anvil
let scenario: Scenario

// biome-ignore lint/suspicious/noExplicitAny: trace JSON
type Json = any

async function both(method: string, params: unknown[]): Promise<[Json, Json]> {
  return Promise.all([rpc(ibex.url, method, params), rpc(anvil.url, method, params)])
}

function expectSame(ibexValue: Json, anvilValue: Json, what: string): void {
  const diff = firstDifference(ibexValue, anvilValue)
  expect(diff, `${what}: ${diff}`).toBeUndefined()
}

function expectSameStructLogs(ibexValue: Json, anvilValue: Json, what: string): void {
  const mine = plainStackErrors(structuredClone(ibexValue))
  const theirs = plainStackErrors(gethStructLogs(anvilValue))
  expect(dropOutOfGasCost(mine), `${what}: out-of-gas steps must cost more than the gas left`).toEqual([])
  dropOutOfGasCost(theirs)
  expectSame(mine, theirs, what)
}

beforeAll(async () => {
  ibex = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3,txpool,debug'] })
  anvil = await startAnvil(['--gas-limit', '30000000'])
  scenario = await runScenario(ibex.url, anvil.url)
}, SETUP_TIMEOUT_MS)

afterAll(async () => {
  await anvil?.stop()
  await cleanupNodes()
})

describe('debug_traceTransaction: struct logger', () => {
  for (const [label, options] of Object.entries(LOGGER_OPTIONS)) {
    it(`${label}: same as anvil for every transaction`, { timeout: TEST_TIMEOUT_MS }, async () => {
      for (const tx of scenario.txs) {
        const [mine, theirs] = await both('debug_traceTransaction', [tx.hash, options])
        expectSameStructLogs(mine, theirs, `${tx.name} ${label}`)
      }
    })
  }

  it('reports a failed transaction as geth does', async () => {
    const reverted = scenario.txs.find((t) => t.name === 'reverted transaction')
    const oog = scenario.txs.find((t) => t.name === 'out of gas')
    const r = await rpc(ibex.url, 'debug_traceTransaction', [reverted?.hash])
    expect(r.failed).toBe(true)
    expect(r.returnValue.startsWith('0x08c379a0')).toBe(true)
    expect(r.structLogs.at(-1).op).toBe('REVERT')
    const o = await rpc(ibex.url, 'debug_traceTransaction', [oog?.hash])
    expect(o).toMatchObject({ failed: true, gas: 60_000, returnValue: '0x' })
    expect(o.structLogs.at(-1).error).toBe('out of gas')
  })
})

describe('debug_traceTransaction: native tracers', () => {
  const callConfigs: Record<string, object> = {
    plain: {},
    withLog: { withLog: true },
    onlyTopCall: { onlyTopCall: true, withLog: true },
  }
  for (const [label, tracerConfig] of Object.entries(callConfigs)) {
    it(`callTracer ${label}: same as anvil`, { timeout: TEST_TIMEOUT_MS }, async () => {
      for (const tx of scenario.txs) {
        const [mine, theirs] = await both('debug_traceTransaction', [tx.hash, { tracer: 'callTracer', tracerConfig }])
        if (tx.name === 'stack underflow') expect(mine.error).toBe('stack underflow (1 <=> 2)')
        expectSame(
          plainStackErrors(structuredClone(mine)),
          plainStackErrors(gethCallFrame(theirs, tx.gas, label === 'onlyTopCall')),
          `${tx.name} callTracer ${label}`,
        )
      }
    })
  }

  it('prestateTracer: same as anvil', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const tx of scenario.txs) {
      const [mine, theirs] = await both('debug_traceTransaction', [tx.hash, { tracer: 'prestateTracer' }])
      const frame = await rpc(anvil.url, 'debug_traceTransaction', [tx.hash, { tracer: 'callTracer' }])
      expectSame(mine, gethPrestate(theirs, frame), `${tx.name} prestateTracer`)
    }
  })

  it('prestateTracer diffMode: same as anvil', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const tx of scenario.txs) {
      const [mine, theirs] = await both('debug_traceTransaction', [
        tx.hash,
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      expectSame(mine, theirs, `${tx.name} prestateTracer diffMode`)
    }
  })
})

describe('debug_traceCall', () => {
  const GAS = 1_000_000n
  function calls(): { name: string; call: Record<string, Hex> }[] {
    const { addresses: a, contracts: C, sender } = scenario
    const data = (c: string, fn: string, args: unknown[] = []) =>
      encodeFunctionData({ abi: C[c].abi, functionName: fn, args })
    const gas = `0x${GAS.toString(16)}` as Hex
    return [
      {
        name: 'nested with value',
        call: { from: sender, to: a.parent, data: data('Parent', 'nested'), value: '0x10', gas },
      },
      { name: 'staticcall', call: { from: sender, to: a.parent, data: data('Parent', 'peek'), gas } },
      { name: 'revert', call: { from: sender, to: a.reverter, data: data('Reverter', 'boom'), gas } },
      {
        name: 'token transfer',
        call: { from: sender, to: a.token, data: data('Token', 'transfer', [a.store, 5n]), gas },
      },
    ]
  }

  it('struct logger, callTracer and prestateTracer: same as anvil', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const { name, call } of calls()) {
      for (const [label, options] of Object.entries(LOGGER_OPTIONS)) {
        const [mine, theirs] = await both('debug_traceCall', [call, 'latest', options])
        expectSameStructLogs(mine, theirs, `traceCall ${name} ${label}`)
      }
      const [cMine, cTheirs] = await both('debug_traceCall', [
        call,
        'latest',
        { tracer: 'callTracer', tracerConfig: { withLog: true } },
      ])
      expectSame(cMine, gethCallFrame(cTheirs, GAS), `traceCall ${name} callTracer`)
      const [pMine, pTheirs] = await both('debug_traceCall', [
        call,
        'latest',
        { tracer: 'prestateTracer', tracerConfig: { diffMode: true } },
      ])
      expectSame(pMine, pTheirs, `traceCall ${name} prestateTracer diffMode`)
    }
  })

  it('applies state overrides', async () => {
    const { addresses: a, contracts: C, sender } = scenario
    const call = {
      from: sender,
      to: a.store,
      data: encodeFunctionData({ abi: C.Store.abi, functionName: 'value', args: [] }),
      gas: '0x100000',
    }
    const slot0 = `0x${'0'.repeat(64)}`
    const overrides = { [a.store]: { stateDiff: { [slot0]: `0x${'0'.repeat(62)}07` } } }
    const r = await rpc(ibex.url, 'debug_traceCall', [
      call,
      'latest',
      { tracer: 'callTracer', stateOverrides: overrides },
    ])
    expect(BigInt(r.output)).toBe(7n)
  })
})

describe('debug_traceBlockByNumber / ByHash / traceBlock', () => {
  it('same as anvil, for every block of the scenario', { timeout: TEST_TIMEOUT_MS }, async () => {
    for (const tx of scenario.txs) {
      const n = tx.receipt.blockNumber
      const [mine, theirs] = await both('debug_traceBlockByNumber', [n, {}])
      expect(mine.map((r: Json) => r.txHash)).toEqual([tx.hash])
      expect(theirs.map((r: Json) => r.txHash)).toEqual([tx.hash])
      expectSameStructLogs(mine[0].result, theirs[0].result, `block ${n} struct logger`)
      const [cMine, cTheirs] = await both('debug_traceBlockByNumber', [n, { tracer: 'callTracer' }])
      expectSame(
        plainStackErrors(cMine[0].result),
        plainStackErrors(gethCallFrame(cTheirs[0].result, tx.gas)),
        `block ${n} callTracer`,
      )
      expect(cMine.map((r: Json) => r.txHash)).toEqual([tx.hash])
    }
  })

  it('ByHash and traceBlock(RLP) answer what ByNumber answers', { timeout: TEST_TIMEOUT_MS }, async () => {
    const tx = scenario.txs.find((t) => t.name === 'nested call with value and a caught revert')
    const options = { tracer: 'callTracer', tracerConfig: { withLog: true } }
    const byNumber = await rpc(ibex.url, 'debug_traceBlockByNumber', [tx?.receipt.blockNumber, options])
    const byHash = await rpc(ibex.url, 'debug_traceBlockByHash', [tx?.receipt.blockHash, options])
    const raw = await rpc<Hex>(ibex.url, 'debug_getRawBlock', [tx?.receipt.blockNumber])
    const byRlp = await rpc(ibex.url, 'debug_traceBlock', [raw, options])
    expect(byHash).toEqual(byNumber)
    expect(byRlp).toEqual(byNumber)
  })

  it('refuses the genesis block and unknown blocks with geth errors', async () => {
    await expect(rpc(ibex.url, 'debug_traceBlockByNumber', ['0x0'])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('genesis is not traceable'),
    })
    await expect(rpc(ibex.url, 'debug_traceBlockByNumber', ['0xffffff'])).rejects.toMatchObject({ code: -32000 })
    await expect(rpc(ibex.url, 'debug_traceTransaction', [`0x${'ab'.repeat(32)}`])).rejects.toMatchObject({
      code: -32000,
      message: expect.stringContaining('transaction not found'),
    })
  })
})

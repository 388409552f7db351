/**
 * prestateTracer and opcodes that fail before they run. geth's prestateTracer
 * (eth/tracers/native/prestate.go, OnOpcode) returns at once when the step carries an error: the
 * interpreter (core/vm/interpreter.go) hands OnOpcode an error only for a step that failed its
 * checks before executing — stack bounds, constant or dynamic gas, and the write protection of a
 * static context, which the SSTORE / CREATE / value-CALL gas functions raise. Such a step touched
 * nothing, so neither the slot nor the account it names may appear in the prestate.
 *
 * Each case is a debug_traceCall on code set by `stateOverrides`, traced by ibex and by anvil;
 * the property is asserted on both (anvil agrees with geth here), and the accounts of the
 * contracts involved must be the same JSON on both.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cleanupNodes, type IbexNode, rpc, startNode } from '../helpers/node.js'
import { type Anvil, startAnvil } from './helpers/anvil.js'

const SETUP_TIMEOUT_MS = 120_000
/** The caller of every traced message (no fees are paid: no gas price is given). */
const FROM = '0x1000000000000000000000000000000000000001'
/** The contract each case calls. */
const ENTRY = '0x2000000000000000000000000000000000000002'
/** A contract ENTRY calls into. */
const INNER = '0x3000000000000000000000000000000000000003'
/** A cold account only a failing opcode names. */
const STRANGER = '0x4000000000000000000000000000000000000004'
const TX_GAS = 21_000
const SLOT_7 = `0x${'0'.repeat(63)}7`
const SLOT_5 = `0x${'0'.repeat(63)}5`
const SLOT_1 = `0x${'0'.repeat(63)}1`

let ibex: IbexNode
let anvil: Anvil

// biome-ignore lint/suspicious/noExplicitAny: trace JSON
type Json = any

beforeAll(async () => {
  ibex = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3,txpool,debug'] })
  anvil = await startAnvil()
}, SETUP_TIMEOUT_MS)

afterAll(async () => {
  await anvil?.stop()
  await cleanupNodes()
})

const hex = (n: number) => `0x${n.toString(16)}`
/** PUSH20 `address` */
const push20 = (address: string) => `73${address.slice(2)}`

interface Case {
  name: string
  code: Record<string, string>
  gas: number
}

async function prestates(c: Case): Promise<[Json, Json]> {
  const overrides: Record<string, { code: string; balance: string }> = {}
  for (const [address, code] of Object.entries(c.code)) overrides[address] = { code, balance: '0x1' }
  const call = { from: FROM, to: ENTRY, gas: hex(c.gas) }
  const opts = { tracer: 'prestateTracer', stateOverrides: overrides }
  return Promise.all([
    rpc(ibex.url, 'debug_traceCall', [call, 'latest', opts]),
    rpc(anvil.url, 'debug_traceCall', [call, 'latest', opts]),
  ])
}

function both(mine: Json, theirs: Json): [string, Json][] {
  return [
    ['ibex', mine],
    ['anvil', theirs],
  ]
}

function expectSameContracts(mine: Json, theirs: Json, c: Case): void {
  for (const address of Object.keys(c.code)) expect(mine[address], `${c.name}: ${address}`).toEqual(theirs[address])
}

describe('prestateTracer skips what a failing opcode names', () => {
  it('SLOAD out of gas: the slot is not recorded', async () => {
    // PUSH1 7 SLOAD STOP — 3 gas for the push, then a cold SLOAD (2,100) with 2,000 left
    const c: Case = { name: 'SLOAD oog', code: { [ENTRY]: '0x60075400' }, gas: TX_GAS + 3 + 2_000 }
    const [mine, theirs] = await prestates(c)
    for (const [who, trace] of both(mine, theirs)) expect(trace[ENTRY].storage, who).toBeUndefined()
    expectSameContracts(mine, theirs, c)
  })

  it('SLOAD with enough gas is recorded (the control)', async () => {
    const c: Case = { name: 'SLOAD ok', code: { [ENTRY]: '0x60075400' }, gas: TX_GAS + 3 + 2_100 }
    const [mine, theirs] = await prestates(c)
    for (const [who, trace] of both(mine, theirs))
      expect(trace[ENTRY].storage, who).toEqual({ [SLOT_7]: `0x${'0'.repeat(64)}` })
    expectSameContracts(mine, theirs, c)
  })

  it('BALANCE and EXTCODEHASH out of gas: the cold account is not recorded', async () => {
    for (const op of ['31', '3f']) {
      // PUSH20 STRANGER BALANCE|EXTCODEHASH STOP — a cold account costs 2,600
      const c: Case = {
        name: `op ${op} oog`,
        code: { [ENTRY]: `0x${push20(STRANGER)}${op}00` },
        gas: TX_GAS + 3 + 2_500,
      }
      const [mine, theirs] = await prestates(c)
      for (const [who, trace] of both(mine, theirs)) expect(Object.keys(trace), who).not.toContain(STRANGER)
      expectSameContracts(mine, theirs, c)
    }
  })

  it('SSTORE in a static context: the callee slot is not recorded, the caller goes on', async () => {
    // INNER: PUSH1 1 PUSH1 5 SSTORE STOP (write protection: fails before it runs)
    // ENTRY: STATICCALL(GAS, INNER, 0, 0, 0, 0) POP, then PUSH1 1 SLOAD POP STOP
    const entry = `0x5f5f5f5f${push20(INNER)}5afa50600154500000`
    const c: Case = { name: 'static SSTORE', code: { [ENTRY]: entry, [INNER]: '0x600160055500' }, gas: 200_000 }
    const [mine, theirs] = await prestates(c)
    for (const [who, trace] of both(mine, theirs)) {
      expect(trace[INNER], who).toBeDefined()
      expect(trace[INNER].storage, who).toBeUndefined()
      expect(trace[ENTRY].storage, who).toEqual({ [SLOT_1]: `0x${'0'.repeat(64)}` })
    }
    expectSameContracts(mine, theirs, c)
  })

  it('SSTORE below the EIP-2200 sentry (2,300 gas left): the slot is not recorded', async () => {
    // ENTRY: CALL(1000, INNER, 0, 0, 0, 0, 0) POP STOP; INNER runs SSTORE with < 2,300 gas left
    const entry = `0x5f5f5f5f5f${push20(INNER)}6103e8f15000`
    const c: Case = { name: 'SSTORE sentry', code: { [ENTRY]: entry, [INNER]: '0x600160055500' }, gas: 200_000 }
    const [mine, theirs] = await prestates(c)
    for (const [who, trace] of both(mine, theirs)) {
      expect(trace[INNER], who).toBeDefined()
      expect(trace[INNER].storage?.[SLOT_5], who).toBeUndefined()
    }
    expectSameContracts(mine, theirs, c)
  })

  it('CALL out of gas for a cold callee: the callee is not recorded', async () => {
    // ENTRY: CALL(0, STRANGER, 0, 0, 0, 0, 0) STOP with 2,000 gas left at the CALL (cold: 2,600);
    // the pushes before it cost 5 PUSH0 + PUSH20 + PUSH0
    const entry = `0x5f5f5f5f5f${push20(STRANGER)}5ff100`
    const c: Case = { name: 'CALL oog', code: { [ENTRY]: entry }, gas: TX_GAS + 5 * 2 + 3 + 2 + 2_000 }
    const [mine, theirs] = await prestates(c)
    for (const [who, trace] of both(mine, theirs)) expect(Object.keys(trace), who).not.toContain(STRANGER)
    expectSameContracts(mine, theirs, c)
  })
})

/**
 * Where anvil 1.7.1 (revm-inspectors) prints a trace differently from geth, rewrite anvil's answer
 * to geth's form, one documented rule each, so the differential test compares everything else
 * exactly. ibex follows geth (eth/tracers/logger/logger.go, eth/tracers/native/{call,prestate}.go):
 *
 *  struct logger
 *   S1 `refund` 0 — geth: `json:"refund,omitempty"`, anvil prints `"refund":0`.
 *   S2 `returnData` "0x", `memory` [] — geth writes them only when not empty (toLegacyJSON).
 *   S3 out-of-gas step — anvil: `"error":"Some(OutOfGas)"` and gasCost = the gas left; geth:
 *      `"error":"out of gas"` and gasCost = the opcode's full cost (interpreter.go logs `cost`
 *      before failing). The error is mapped; the cost is checked on ibex's side instead
 *      (dropOutOfGasCost: it must exceed the gas left).
 *   S5 an opcode that fails while it runs (INVALID, a bad jump …) — anvil puts the failure on the
 *      step (`"error":"Some(InvalidFEOpcode)"`); geth logs the step before running it and has no
 *      OnFault hook in the struct logger, so the step carries no error.
 *   S6 stack underflow — anvil: `"error":"Some(StackUnderflow)"` on the step, `"StackUnderflow"`
 *      on the call frame; geth: ErrStackUnderflow, `stack underflow (<height> <=> <needed>)`, on
 *      both. Mapped exactly where the step shows its stack; without the stack (disableStack)
 *      and on call frames, both sides are compared as `stack underflow`.
 *   S4 CREATE / CREATE2 gasCost — anvil adds the gas handed to the new contract; geth's opCreate
 *      charges that after the step is logged, so gasCost is 32000 + memory + initcode words. The
 *      callee's gas is the next (deeper) step's `gas`.
 *  callTracer
 *   C1 top frame `gas` — geth: the transaction's gas limit (OnEnter: `if depth == 0 { call.Gas =
 *      t.gasLimit }`); anvil: the gas left after intrinsic gas.
 *   C2 `position` of a log with `onlyTopCall` — geth counts the calls recorded in the frame (none:
 *      OnEnter returns early for depth > 0), so 0; anvil counts the calls made before the log.
 *  prestateTracer
 *   P1 accounts the transaction created that did not exist before — geth drops them from the
 *      prestate (OnTxEnd: `if s := t.pre[a]; s != nil && s.empty { delete(t.pre, a) }`), also
 *      when the CREATE failed; anvil lists them as `{"balance":"0x0"}` (plus any slots read).
 */

import { getContractAddress } from 'viem'

// biome-ignore lint/suspicious/noExplicitAny: trace JSON
type Json = any

const ANVIL_ERRORS: Record<string, string> = {
  'Some(OutOfGas)': 'out of gas',
  'Some(MemoryOOG)': 'out of gas',
  'Some(MemoryLimitOOG)': 'out of gas',
  'Some(InvalidOperandOOG)': 'out of gas',
  'Some(PrecompileOOG)': 'out of gas',
}

/** Stack items an opcode needs (geth's minStack), for the opcodes the scenario underflows. */
const STACK_NEEDS: Record<string, number> = { ADD: 2, MUL: 2, SUB: 2, POP: 1, SSTORE: 2, JUMP: 1 }

/** S6 on either side: a stack error of a step without its stack, or of a call frame, without its numbers. */
export function plainStackErrors(trace: Json): Json {
  const strip = (e: unknown) => (typeof e === 'string' && /^stack underflow/.test(e) ? 'stack underflow' : e)
  if (Array.isArray(trace?.structLogs)) {
    for (const e of trace.structLogs) if (!Array.isArray(e.stack) && e.error !== undefined) e.error = strip(e.error)
    return trace
  }
  const walk = (f: Json) => {
    if (f.error !== undefined) f.error = f.error === 'StackUnderflow' ? 'stack underflow' : strip(f.error)
    for (const c of f.calls ?? []) walk(c)
  }
  walk(trace)
  return trace
}

/** S1–S6 applied to a struct logger result (`{failed, gas, returnValue, structLogs}`). */
export function gethStructLogs(trace: Json): Json {
  const logs: Json[] = trace.structLogs.map((e: Json) => ({ ...e }))
  for (let i = 0; i < logs.length; i++) {
    const e = logs[i]
    if (e.refund === 0) delete e.refund
    if (e.returnData === '0x') delete e.returnData
    if (Array.isArray(e.memory) && e.memory.length === 0) delete e.memory
    if (e.error === 'Some(StackUnderflow)')
      e.error = Array.isArray(e.stack)
        ? `stack underflow (${e.stack.length} <=> ${STACK_NEEDS[e.op] ?? '?'})`
        : 'stack underflow'
    else if (typeof e.error === 'string' && e.error in ANVIL_ERRORS) e.error = ANVIL_ERRORS[e.error]
    else if (typeof e.error === 'string' && e.error.startsWith('Some(')) delete e.error
    const next = logs[i + 1]
    if ((e.op === 'CREATE' || e.op === 'CREATE2') && next !== undefined && next.depth > e.depth) e.gasCost -= next.gas
  }
  return { ...trace, structLogs: logs }
}

/** S3 on either side: removes gasCost of out-of-gas steps; returns the steps whose cost did not exceed the gas left. */
export function dropOutOfGasCost(trace: Json): Json[] {
  const bad: Json[] = []
  for (const e of trace.structLogs) {
    if (e.error !== 'out of gas') continue
    if (typeof e.gasCost === 'number' && e.gasCost <= e.gas) bad.push({ ...e })
    delete e.gasCost
  }
  return bad
}

/** C1 (and C2 with `onlyTopCall`): the top frame as geth writes it. */
export function gethCallFrame(frame: Json, gasLimit: bigint, onlyTopCall = false): Json {
  const top = { ...frame, gas: `0x${gasLimit.toString(16)}` }
  if (onlyTopCall && Array.isArray(top.logs)) top.logs = top.logs.map((l: Json) => ({ ...l, position: '0x0' }))
  return top
}

/**
 * Addresses the call tree creates: a CREATE frame's `to`, or — for a failed CREATE, which geth
 * and anvil print without `to` — the address from the creator's nonce (its prestate nonce plus
 * the CREATEs it made before, in call order).
 */
function createdBy(frame: Json, pre: Json, nonces: Map<string, bigint>, out: Set<string>): Set<string> {
  if (frame.type === 'CREATE' || frame.type === 'CREATE2') {
    const from = frame.from.toLowerCase()
    const nonce = nonces.get(from) ?? BigInt(pre[from]?.nonce ?? 0)
    nonces.set(from, nonce + 1n)
    if (typeof frame.to === 'string') out.add(frame.to.toLowerCase())
    else if (frame.type === 'CREATE') out.add(getContractAddress({ from, nonce }).toLowerCase())
  }
  for (const c of frame.calls ?? []) createdBy(c, pre, nonces, out)
  return out
}

/** P1: drops from a (non-diff) prestate the accounts `callFrame` shows created, if they were empty. */
export function gethPrestate(pre: Json, callFrame: Json): Json {
  // the top frame of a contract-creating transaction is made by the sender, whose nonce it used
  const nonces = new Map<string, bigint>()
  if (callFrame.type === 'CREATE')
    nonces.set(callFrame.from.toLowerCase(), BigInt(pre[callFrame.from.toLowerCase()]?.nonce ?? 0))
  const created = createdBy(callFrame, pre, nonces, new Set())
  const out: Json = {}
  for (const [addr, acc] of Object.entries<Json>(pre)) {
    const empty =
      (acc.balance === '0x0' || acc.balance === undefined) &&
      !acc.nonce &&
      (acc.code === undefined || acc.code === '0x')
    if (created.has(addr.toLowerCase()) && empty) continue
    out[addr] = acc
  }
  return out
}

/** The path and both values of the first difference between two JSON values, or undefined. */
export function firstDifference(a: Json, b: Json, path = '$'): string | undefined {
  if (a === b) return undefined
  const show = (v: Json) => JSON.stringify(v)?.slice(0, 300)
  if (
    typeof a !== 'object' ||
    typeof b !== 'object' ||
    a === null ||
    b === null ||
    Array.isArray(a) !== Array.isArray(b)
  ) {
    return `${path}: ibex ${show(a)} ≠ anvil ${show(b)}`
  }
  if (Array.isArray(a) && a.length !== b.length) {
    for (let i = 0; i < Math.min(a.length, b.length); i++) {
      const d = firstDifference(a[i], b[i], `${path}[${i}]`)
      if (d !== undefined) return d
    }
    return `${path}: ibex has ${a.length} items, anvil ${b.length}`
  }
  const keys = new Set([...Object.keys(a), ...Object.keys(b)])
  for (const k of keys) {
    const d = firstDifference(a[k], b[k], Array.isArray(a) ? `${path}[${k}]` : `${path}.${k}`)
    if (d !== undefined) return d
  }
  return undefined
}

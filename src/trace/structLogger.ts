/**
 * geth's struct logger (eth/tracers/logger/logger.go) over ethereumjs step events, writing the
 * legacy JSON geth's debug_trace* methods answer:
 *
 *   {"failed":bool,"gas":N,"returnValue":"0x…","structLogs":[
 *     {"pc":N,"op":"NAME","gas":N,"gasCost":N,"depth":N,"error":"…","stack":["0x…"],
 *      "returnData":"0x…","memory":["0x<32 bytes>",…],"storage":{"0x<key>":"0x<value>"},"refund":N},…]}
 *
 * geth's rules for each member: `error` only on the opcode that failed before it ran (out of gas,
 * stack under/overflow); `stack` unless disableStack (an empty stack is `[]`); `returnData` with
 * enableReturnData when the last call returned data; `memory` with enableMemory when memory is
 * not empty, as 32-byte words; `storage` (unless disableStorage) on SLOAD/SSTORE only: every slot
 * of the executing contract seen so far in the transaction, keys sorted; `refund` when not zero;
 * `gasCost` of a CALL-family opcode includes the gas handed to the callee. With `limit`, steps
 * after the entries passed that many bytes are left out.
 *
 * Entries are written to the sink as they happen; the newest one stays pending until the next
 * step or frame exit, because its error (ethereumjs reports failures after the step) and an
 * SLOAD's value (on the stack at the next step) are learnt only then.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { toData } from '../util/hex.js'
import { gethOpName, isCallOp, OP_SLOAD, OP_SSTORE, stackErrorMessage } from './opcodes.js'
import type { StructLoggerConfig } from './options.js'
import { stackLength } from '../evm/stepHook.js'
import type { JsonSink } from './sink.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

const EMPTY = new Uint8Array(0)

interface Entry {
  pc: number
  code: number
  op: string
  gas: bigint
  gasCost: bigint
  /** geth's depth: 1 for the transaction's own frame. */
  depth: number
  error: string | undefined
  stack: bigint[] | undefined
  /** Stack height (geth words stack errors with it, also when the stack is not shown). */
  stackLen: number
  memory: Uint8Array | undefined
  returnData: Uint8Array | undefined
  refund: bigint
  /** Storage map of the executing contract, when this entry shows storage. */
  storage: Map<string, string> | undefined
  /** SLOAD: the slot whose value is read from the next step's stack. */
  sloadKey: string | undefined
}

interface Frame {
  isCreate: boolean
  returnData: Uint8Array
  /** Refund counter before the frame's next opcode (geth's StateDB.GetRefund at OnOpcode). */
  refund: bigint
}

function word(v: bigint): string {
  return `0x${v.toString(16).padStart(64, '0')}`
}

/** Gas handed to the callee, as geth's callGas computes it (EIP-150: all but one 64th of what is left). */
function calleeGas(stack: bigint[], gasLeft: bigint, cost: bigint): bigint {
  const available = gasLeft - cost
  if (available < 0n) return 0n
  const cap = available - available / 64n
  const requested = stack[stack.length - 1] ?? 0n
  return requested < cap ? requested : cap
}

export class StructLogger implements Tracer {
  readonly asyncSteps = false
  readonly #cfg: StructLoggerConfig
  readonly #sink: JsonSink
  readonly #frames: Frame[] = []
  /** Contract address (lowercase hex) → slot → value, as seen by SLOAD/SSTORE. */
  readonly #storage = new Map<string, Map<string, string>>()
  #pending: Entry | undefined
  #count = 0
  /** Bytes of entries written (geth's resultSize, for `limit`). */
  #written = 0
  #header: ReturnType<JsonSink['reserve']> | undefined

  constructor(cfg: StructLoggerConfig, sink: JsonSink) {
    this.#cfg = cfg
    this.#sink = sink
  }

  async txStart(_ctx: TxStartContext): Promise<void> {
    this.#sink.write('{')
    this.#header = this.#sink.reserve()
    this.#sink.write('"structLogs":[')
  }

  enter(message: Message): void {
    const parent = this.#frames[this.#frames.length - 1]
    if (parent !== undefined) parent.returnData = EMPTY
    this.#frames.push({ isCreate: message.to === undefined, returnData: EMPTY, refund: parent?.refund ?? 0n })
  }

  step(step: InterpreterStep): void {
    const code = step.opcode.code
    const depth = step.depth + 1
    const cfg = this.#cfg
    // a copy of the stack is made at most once per step, and only when something reads it
    let stackCopy: bigint[] | undefined
    const stackOf = (): bigint[] => {
      stackCopy ??= step.stack
      return stackCopy
    }
    const pending = this.#pending
    if (pending !== undefined)
      this.#flush(pending.sloadKey !== undefined && depth === pending.depth ? stackOf() : undefined)
    // geth's `limit`: past it, steps are no longer logged (nor tracked)
    if (cfg.limit > 0 && this.#written > cfg.limit) return
    let gasCost = step.opcode.dynamicFee ?? BigInt(step.opcode.fee)
    if (isCallOp(code)) gasCost += calleeGas(stackOf(), step.gasLeft, gasCost)
    let storage: Map<string, string> | undefined
    let sloadKey: string | undefined
    if (!cfg.disableStorage && (code === OP_SLOAD || code === OP_SSTORE)) {
      const stack = stackOf()
      const n = stack.length
      const address = step.address.toString()
      storage = this.#storage.get(address)
      if (storage === undefined) {
        storage = new Map()
        this.#storage.set(address, storage)
      }
      if (code === OP_SLOAD && n >= 1) sloadKey = word(stack[n - 1])
      else if (code === OP_SSTORE && n >= 2) storage.set(word(stack[n - 1]), word(stack[n - 2]))
      else storage = undefined
    }
    const frame = this.#frames[this.#frames.length - 1]
    // ethereumjs reports the refund after this opcode's gas was computed, which for SSTORE
    // already holds the SSTORE's own refund; geth reports the counter before the opcode
    const refund = frame === undefined ? step.gasRefund : frame.refund
    if (frame !== undefined) frame.refund = step.gasRefund
    this.#pending = {
      pc: step.pc,
      code,
      op: gethOpName(step.opcode.name, code),
      gas: step.gasLeft,
      gasCost,
      depth,
      error: undefined,
      stack: cfg.disableStack ? undefined : stackOf(),
      stackLen: stackCopy?.length ?? stackLength(step),
      memory: cfg.enableMemory && step.memory.length > 0 ? step.memory : undefined,
      returnData:
        cfg.enableReturnData && frame !== undefined && frame.returnData.length > 0 ? frame.returnData : undefined,
      refund,
      storage,
      sloadKey,
    }
  }

  exit(result: EVMResult): void {
    const frame = this.#frames.pop()
    const depth = this.#frames.length + 1
    const err = result.execResult.exceptionError?.error
    const pending = this.#pending
    if (err !== undefined && pending !== undefined && pending.depth === depth && pending.error === undefined) {
      if (err === 'out of gas') pending.error = 'out of gas'
      else if (err === 'stack underflow' || err === 'stack overflow') {
        pending.error = stackErrorMessage(
          err === 'stack underflow' ? 'underflow' : 'overflow',
          pending.code,
          pending.stackLen,
        )
      }
    }
    const parent = this.#frames[this.#frames.length - 1]
    if (parent !== undefined) {
      // geth keeps a callee's output as return data, except a successful CREATE's code
      const ok = err === undefined
      const keep = err === 'revert' || (ok && frame?.isCreate !== true)
      parent.returnData = keep ? result.execResult.returnValue : EMPTY
      // a successful callee's refunds count; a failed one's are rolled back with its state
      if (ok) parent.refund = result.execResult.gasRefund ?? parent.refund
    }
  }

  async txEnd(ctx: TxEndContext): Promise<void> {
    if (this.#pending !== undefined) this.#flush(undefined)
    const failed = ctx.error !== undefined
    const returnValue = failed && ctx.error !== 'revert' ? EMPTY : ctx.returnValue
    if (this.#header === undefined) throw new Error('StructLogger: txEnd before txStart')
    this.#sink.fill(this.#header, `"failed":${failed},"gas":${ctx.gasUsed},"returnValue":"${toData(returnValue)}",`)
  }

  finish(): void {
    this.#sink.write(']}')
  }

  /** Writes the pending entry; `nextStack` is the stack of the step that followed it in its frame. */
  #flush(nextStack: bigint[] | undefined): void {
    const e = this.#pending as Entry
    this.#pending = undefined
    if (e.sloadKey !== undefined && e.storage !== undefined) {
      const value = nextStack?.[nextStack.length - 1]
      if (value !== undefined) e.storage.set(e.sloadKey, word(value))
      else if (!e.storage.has(e.sloadKey)) e.storage = undefined
    }
    let s = this.#count++ === 0 ? '{"pc":' : ',{"pc":'
    s += `${e.pc},"op":"${e.op}","gas":${e.gas},"gasCost":${e.gasCost},"depth":${e.depth}`
    if (e.error !== undefined) s += `,"error":"${e.error.replace(/</g, '\\u003c').replace(/>/g, '\\u003e')}"`
    if (e.stack !== undefined) {
      s += ',"stack":['
      const st = e.stack
      for (let i = 0; i < st.length; i++) s += i === 0 ? `"0x${st[i].toString(16)}"` : `,"0x${st[i].toString(16)}"`
      s += ']'
    }
    if (e.returnData !== undefined) s += `,"returnData":"${toData(e.returnData)}"`
    if (e.memory !== undefined) s += `,"memory":[${memoryWords(e.memory)}]`
    if (e.storage !== undefined) s += `,"storage":${storageJson(e.storage)}`
    if (e.refund !== 0n) s += `,"refund":${e.refund}`
    this.#written += s.length + 1
    this.#sink.write(`${s}}`)
  }
}

/** Memory as geth's quoted 32-byte words, 0x-prefixed. */
function memoryWords(memory: Uint8Array): string {
  const hex = Buffer.from(memory.buffer, memory.byteOffset, memory.byteLength).toString('hex')
  let out = ''
  for (let i = 0; i < hex.length; i += 64)
    out += i === 0 ? `"0x${hex.slice(i, i + 64)}"` : `,"0x${hex.slice(i, i + 64)}"`
  return out
}

function storageJson(storage: Map<string, string>): string {
  const keys = [...storage.keys()].sort()
  let out = '{'
  for (let i = 0; i < keys.length; i++) out += `${i === 0 ? '' : ','}"${keys[i]}":"${storage.get(keys[i])}"`
  return `${out}}`
}

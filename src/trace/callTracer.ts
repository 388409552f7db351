/**
 * geth's native callTracer (eth/tracers/native/call.go): the tree of call frames of a
 * transaction, each
 *
 *   {"from","gas","gasUsed","to","input","output","error","revertReason","calls","logs","value","type"}
 *
 * with geth's rules: the top frame's `gas` is the transaction's gas limit and its `gasUsed` the
 * receipt's; `output` only on success or on a revert that returned data; `revertReason` when that
 * data decodes as Error(string)/Panic(uint256); a failed CREATE has no `to`; STATICCALL carries no
 * `value`, DELEGATECALL its parent's; `onlyTopCall` keeps only the top frame; `withLog` adds each
 * frame's logs ({address, topics, data, index, position}: `position` = calls made before the log,
 * `index` = the log's index in the block), and drops the logs of frames that failed or whose
 * ancestor failed. A SELFDESTRUCT shows as a child frame of type SELFDESTRUCT (gas 0, the balance
 * as value).
 *
 * The frame type comes from the opcode that opened it (the last step of the parent frame).
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { Address } from '@ethereumjs/util'
import { toData, toQuantity } from '../util/hex.js'
import { decodeRevertReason } from '../util/revert.js'
import { gethVmError } from '../evm/errors.js'
import {
  gethOpName,
  goJson,
  stackErrorMessage,
  OP_CALL,
  OP_CALLCODE,
  OP_CREATE,
  OP_CREATE2,
  OP_DELEGATECALL,
  OP_STATICCALL,
} from './opcodes.js'
import type { CallTracerConfig } from './options.js'
import type { JsonSink } from './sink.js'
import { stackLength } from '../evm/stepHook.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

const TYPE_OF_OP: Record<number, string> = {
  [OP_CALL]: 'CALL',
  [OP_CALLCODE]: 'CALLCODE',
  [OP_DELEGATECALL]: 'DELEGATECALL',
  [OP_STATICCALL]: 'STATICCALL',
  [OP_CREATE]: 'CREATE',
  [OP_CREATE2]: 'CREATE2',
}

interface CallLog {
  address: string
  topics: string[]
  data: string
  index: string
  position: string
}

interface Frame {
  type: string
  /** A SELFDESTRUCT this frame ran: geth records it as a child frame once it succeeded. */
  selfdestruct?: Frame
  from: string
  gas: bigint
  gasUsed: bigint
  to: string | undefined
  input: Uint8Array
  output: Uint8Array | undefined
  error: string | undefined
  revertReason: string | undefined
  calls: Frame[]
  logs: CallLog[]
  value: bigint | undefined
  /** Log index when the frame was entered: a failed frame's logs never happened. */
  logIndexAtEntry: number
}

const LOG0 = 0xa0
const LOG4 = 0xa4
const OP_SELFDESTRUCT = 0xff
const ADDRESS_MASK = (1n << 160n) - 1n

function hexAddress(a: Address): string {
  return a.toString()
}

/** Memory[offset, offset+size), zero-padded beyond what the step's memory holds. */
function memorySlice(memory: Uint8Array, offset: bigint, size: bigint): Uint8Array {
  const n = Number(size)
  const out = new Uint8Array(n)
  const start = Number(offset)
  if (start < memory.length) out.set(memory.subarray(start, Math.min(memory.length, start + n)))
  return out
}

export class CallTracer implements Tracer {
  readonly asyncSteps = false
  readonly #cfg: CallTracerConfig
  readonly #sink: JsonSink
  /** Open frames; [0] is the transaction's. */
  readonly #stack: Frame[] = []
  #root: Frame | undefined
  #txGasLimit = 0n
  #txTo: string | undefined
  #lastOp = 0
  /** geth's name of the last opcode run (for `invalid opcode: NAME`). */
  #lastOpName = ''
  /** Stack height at the last opcode (for geth's stack error messages). */
  #lastStackLen = 0
  #logIndex = 0

  constructor(cfg: CallTracerConfig, sink: JsonSink) {
    this.#cfg = cfg
    this.#sink = sink
  }

  async txStart(ctx: TxStartContext): Promise<void> {
    this.#txGasLimit = ctx.gasLimit
    this.#txTo = hexAddress(ctx.to)
    this.#logIndex = ctx.logIndexBase
  }

  step(step: InterpreterStep): void {
    const code = step.opcode.code
    this.#lastOp = code
    this.#lastOpName = step.opcode.name
    this.#lastStackLen = stackLength(step)
    if (code === OP_SELFDESTRUCT) this.#selfdestruct(step)
    if (!this.#cfg.withLog || code < LOG0 || code > LOG4) return
    const stack = step.stack
    const n = stack.length
    const topics = code - LOG0
    if (n < 2 + topics) return
    // every log takes an index, also those of frames onlyTopCall leaves out
    const index = this.#logIndex++
    if (this.#cfg.onlyTopCall && step.depth > 0) return
    const frame = this.#stack[this.#stack.length - 1]
    if (frame === undefined) return
    const log: CallLog = {
      address: hexAddress(step.address),
      topics: [],
      data: toData(memorySlice(step.memory, stack[n - 1], stack[n - 2])),
      index: toQuantity(index),
      position: toQuantity(frame.calls.length),
    }
    for (let i = 0; i < topics; i++) log.topics.push(`0x${stack[n - 3 - i].toString(16).padStart(64, '0')}`)
    frame.logs.push(log)
  }

  enter(message: Message): void {
    const depth = this.#stack.length
    if (depth === 0) {
      const root = this.#newFrame(message.to === undefined ? 'CREATE' : 'CALL', message)
      root.gas = this.#txGasLimit
      root.to = this.#txTo
      this.#root = root
      this.#stack.push(root)
      return
    }
    const type = TYPE_OF_OP[this.#lastOp] ?? 'CALL'
    const frame = this.#newFrame(type, message)
    if (type === 'DELEGATECALL' || type === 'CALLCODE') {
      // ethereumjs runs these as a message to the current contract with the callee's code
      frame.from = message.to === undefined ? frame.from : hexAddress(message.to)
      frame.to = hexAddress(message.codeAddress)
    }
    if (type === 'STATICCALL') frame.value = undefined
    this.#stack.push(frame)
  }

  exit(result: EVMResult): void {
    const frame = this.#stack.pop()
    if (frame === undefined) return
    const exec = result.execResult
    const err = exec.exceptionError?.error
    frame.gasUsed = exec.executionGasUsed
    if (frame.to === undefined && result.createdAddress !== undefined) frame.to = hexAddress(result.createdAddress)
    this.#processOutput(frame, exec.returnValue, err)
    if (err === undefined && frame.selfdestruct !== undefined && !this.#cfg.onlyTopCall)
      frame.calls.push(frame.selfdestruct)
    if (err !== undefined) this.#logIndex = frame.logIndexAtEntry
    const parent = this.#stack[this.#stack.length - 1]
    if (parent !== undefined && !this.#cfg.onlyTopCall) parent.calls.push(frame)
  }

  async txEnd(ctx: TxEndContext): Promise<void> {
    const root = this.#root
    if (root === undefined) return
    root.gasUsed = ctx.gasUsed
  }

  finish(): void {
    const root = this.#root
    if (root === undefined) throw new Error('callTracer: no call frame was recorded')
    if (this.#cfg.withLog) clearFailedLogs(root, false)
    this.#sink.write(goJson(frameJson(root)))
  }

  /** geth's OnEnter/OnExit pair of a SELFDESTRUCT: to the beneficiary, the contract's balance as value. */
  #selfdestruct(step: InterpreterStep): void {
    const frame = this.#stack[this.#stack.length - 1]
    const beneficiary = step.stack[step.stack.length - 1]
    if (frame === undefined || beneficiary === undefined) return
    frame.selfdestruct = {
      type: 'SELFDESTRUCT',
      from: hexAddress(step.address),
      gas: 0n,
      gasUsed: 0n,
      to: `0x${(beneficiary & ADDRESS_MASK).toString(16).padStart(40, '0')}`,
      input: new Uint8Array(0),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: step.account.balance,
      logIndexAtEntry: this.#logIndex,
    }
  }

  #newFrame(type: string, message: Message): Frame {
    return {
      type,
      from: hexAddress(message.caller),
      gas: message.gasLimit,
      gasUsed: 0n,
      to: message.to === undefined ? undefined : hexAddress(message.to),
      // message data may be a view of the caller's memory, which changes later
      input: message.data.slice(),
      output: undefined,
      error: undefined,
      revertReason: undefined,
      calls: [],
      logs: [],
      value: message.value,
      logIndexAtEntry: this.#logIndex,
    }
  }

  /** geth's error text for an ethereumjs error of the frame whose last opcode just ran. */
  #gethError(err: string): string {
    switch (err) {
      case 'revert':
        return 'execution reverted'
      case 'invalid opcode':
        return `invalid opcode: ${gethOpName(this.#lastOpName, this.#lastOp)}`
      case 'stack underflow':
        return stackErrorMessage('underflow', this.#lastOp, this.#lastStackLen)
      case 'stack overflow':
        return stackErrorMessage('overflow', this.#lastOp, this.#lastStackLen)
      default:
        return gethVmError(err)
    }
  }

  /** geth's callFrame.processOutput. */
  #processOutput(frame: Frame, output: Uint8Array, err: string | undefined): void {
    if (err === undefined) {
      frame.output = output
      return
    }
    frame.error = this.#gethError(err)
    if (frame.type === 'CREATE' || frame.type === 'CREATE2') frame.to = undefined
    if (err !== 'revert' || output.length === 0) return
    frame.output = output
    if (output.length >= 4) frame.revertReason = decodeRevertReason(output)
  }
}

function clearFailedLogs(frame: Frame, parentFailed: boolean): void {
  const failed = frame.error !== undefined || parentFailed
  if (failed) frame.logs = []
  for (const c of frame.calls) clearFailedLogs(c, failed)
}

/** The frame as geth's JSON (members in geth's order; empty ones left out). */
function frameJson(f: Frame): Record<string, unknown> {
  const o: Record<string, unknown> = { from: f.from, gas: toQuantity(f.gas), gasUsed: toQuantity(f.gasUsed) }
  if (f.to !== undefined) o.to = f.to
  o.input = toData(f.input)
  if (f.output !== undefined && f.output.length > 0) o.output = toData(f.output)
  if (f.error !== undefined) o.error = f.error
  if (f.revertReason !== undefined) o.revertReason = f.revertReason
  if (f.calls.length > 0) o.calls = f.calls.map(frameJson)
  if (f.logs.length > 0) o.logs = f.logs
  if (f.value !== undefined) o.value = toQuantity(f.value)
  o.type = f.type
  return o
}

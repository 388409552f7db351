/**
 * The tracers behind Otterscan's re-executing methods (src/rpc/namespaces/ots.ts), run on the
 * trace workers like debug_trace*. Each one runs the callTracer (callTracer.ts: frame types,
 * DELEGATECALL's from/to, SELFDESTRUCT frames, revert output) into a private sink and rewrites its
 * tree at the end into what Erigon's ots_ methods answer:
 *
 *   otsTrace     ots_traceTransaction: the frames depth-first, flat,
 *                [{type, depth, from, to, value, input, output}]; `value` null for STATICCALL and
 *                DELEGATECALL (they move none), frames to precompiles left out
 *   otsInternal  ots_getInternalOperations: [{type, from, to, value}] for every frame below the
 *                top one that moves value (CALL with value: 0), creates (CREATE: 2, CREATE2: 3) or
 *                self-destructs (1), in the order they happened
 *   otsError     ots_getTransactionError: the top frame's return data when the transaction
 *                failed, "0x" otherwise
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { CallTracer } from './callTracer.js'
import { goJson } from './opcodes.js'
import { decodeParts, JsonSink } from './sink.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

export type OtsTracerKind = 'otsTrace' | 'otsInternal' | 'otsError'

/** Otterscan's internal operation types (Erigon's OperationType). */
export const OTS_OP_TRANSFER = 0
export const OTS_OP_SELF_DESTRUCT = 1
export const OTS_OP_CREATE = 2
export const OTS_OP_CREATE2 = 3

/** The callTracer's frame, as its JSON reads back. */
interface CallFrame {
  type: string
  from: string
  to?: string
  value?: string
  input: string
  output?: string
  error?: string
  calls?: CallFrame[]
}

/** Every precompile sits below 2^16 (0x01…0x11, P256 at 0x100): the address's first 36 hex digits are 0. */
function isPrecompile(address: string | undefined): boolean {
  return address !== undefined && /^0x0{36}/.test(address)
}

export class OtsTracer implements Tracer {
  readonly asyncSteps = false
  readonly #kind: OtsTracerKind
  readonly #sink: JsonSink
  readonly #frames: JsonSink
  readonly #calls: CallTracer
  /**
   * The address of each CREATE/CREATE2 frame in the order they were entered (the callTracer's
   * depth-first order): geth's frame of a failed creation has no `to`, Erigon's names the address.
   */
  readonly #created: (string | undefined)[] = []
  /** Per open frame: its slot in #created, or -1 for a call. */
  readonly #open: number[] = []

  constructor(kind: OtsTracerKind, sink: JsonSink) {
    this.#kind = kind
    this.#sink = sink
    this.#frames = new JsonSink(sink.limitBytes)
    this.#calls = new CallTracer({ onlyTopCall: false, withLog: false }, this.#frames)
  }

  txStart(ctx: TxStartContext): Promise<void> {
    return this.#calls.txStart(ctx)
  }
  step(step: InterpreterStep): void {
    this.#calls.step(step)
  }
  enter(message: Message): void {
    this.#open.push(message.to === undefined ? this.#created.push(undefined) - 1 : -1)
    this.#calls.enter(message)
  }
  exit(result: EVMResult): void {
    const slot = this.#open.pop()
    if (slot !== undefined && slot >= 0) this.#created[slot] = result.createdAddress?.toString()
    this.#calls.exit(result)
  }
  txEnd(ctx: TxEndContext): Promise<void> {
    return this.#calls.txEnd(ctx)
  }

  finish(): void {
    this.#calls.finish()
    const root = JSON.parse(decodeParts(this.#frames.parts())) as CallFrame
    nameCreations(root, this.#created)
    switch (this.#kind) {
      case 'otsTrace':
        this.#sink.write(goJson(flatTrace(root)))
        return
      case 'otsInternal':
        this.#sink.write(goJson(internalOperations(root)))
        return
      case 'otsError':
        this.#sink.write(goJson(root.error !== undefined && root.output !== undefined ? root.output : '0x'))
        return
    }
  }
}

/** Gives each creation frame without `to` (it failed) the address it was to deploy at, in depth-first order. */
function nameCreations(root: CallFrame, created: readonly (string | undefined)[]): void {
  let k = 0
  const walk = (f: CallFrame): void => {
    if (f.type === 'CREATE' || f.type === 'CREATE2') {
      const address = created[k++]
      if (f.to === undefined) f.to = address
    }
    for (const c of f.calls ?? []) walk(c)
  }
  walk(root)
}

/** ots_traceTransaction's entries: depth-first, the top frame at depth 0. */
export function flatTrace(root: CallFrame): unknown[] {
  const out: unknown[] = []
  const walk = (f: CallFrame, depth: number): void => {
    if (depth > 0 && isPrecompile(f.to)) return
    const movesNone = f.type === 'STATICCALL' || f.type === 'DELEGATECALL'
    out.push({
      type: f.type,
      depth,
      from: f.from,
      to: f.to ?? '0x0000000000000000000000000000000000000000',
      value: movesNone ? null : (f.value ?? '0x0'),
      input: f.input,
      output: f.output ?? '0x',
    })
    for (const c of f.calls ?? []) walk(c, depth + 1)
  }
  walk(root, 0)
  return out
}

/** ots_getInternalOperations' entries, below the top frame, in execution order. */
export function internalOperations(root: CallFrame): unknown[] {
  const out: unknown[] = []
  const walk = (f: CallFrame): void => {
    for (const c of f.calls ?? []) {
      const op = operationOf(c)
      if (op !== undefined) out.push(op)
      walk(c)
    }
  }
  walk(root)
  return out
}

function operationOf(f: CallFrame): { type: number; from: string; to: string; value: string } | undefined {
  const value = f.value ?? '0x0'
  const to = f.to ?? '0x0000000000000000000000000000000000000000'
  switch (f.type) {
    case 'CALL':
      return value !== '0x0' ? { type: OTS_OP_TRANSFER, from: f.from, to, value } : undefined
    case 'CREATE':
      return { type: OTS_OP_CREATE, from: f.from, to, value }
    case 'CREATE2':
      return { type: OTS_OP_CREATE2, from: f.from, to, value }
    case 'SELFDESTRUCT':
      return { type: OTS_OP_SELF_DESTRUCT, from: f.from, to, value }
    default:
      return undefined
  }
}

/**
 * The logs of a simulated call as geth's simulation tracer collects them
 * (internal/ethapi/logtracer.go): per call frame, in execution order; a failed frame drops its
 * logs; log indices count across the whole block, dropped logs included.
 *
 * With `traceTransfers`, every ether transfer is also recorded, as an ERC-20 Transfer log of the
 * ERC-7528 address 0xEeee…EEeE: the transaction value, CALL/CREATE values (not DELEGATECALL or
 * CALLCODE) and SELFDESTRUCT balances. That needs the EVM's call and step events; without it the
 * logs are the receipt's.
 *
 *   beforeMessage ─▶ open frame (+ transfer)   step LOGn ─▶ log in frame   step SELFDESTRUCT ─▶ transfer
 *   afterMessage  ─▶ close frame: failed → drop, else append to the parent
 */
import type { EVM, EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { bigIntToBytes, setLengthLeft } from '@ethereumjs/util'
import type { LogTuple } from '../chain/receipt.js'

/** keccak256("Transfer(address,address,uint256)") */
const TRANSFER_TOPIC = Buffer.from('ddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef', 'hex')
/** ERC-7528: the pseudo-address of ether. */
export const ETH_TRANSFER_ADDRESS = Buffer.from('eeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeeee', 'hex')

/** A log with its block-wide index. */
export interface IndexedLog {
  log: LogTuple
  index: number
}

function word(value: bigint): Uint8Array {
  return setLengthLeft(bigIntToBytes(value), 32)
}

function topicOf(address: Uint8Array): Uint8Array {
  return setLengthLeft(address, 32)
}

export class SimulationTracer {
  readonly #traceTransfers: boolean
  /** Logs of the open frames (innermost last). */
  #frames: IndexedLog[][] = []
  /** Logs of the finished top-level call. */
  #result: IndexedLog[] = []
  #count = 0
  /** Frames whose transfer still needs the created address (CREATE with value). */
  readonly #pendingCreates = new Map<number, IndexedLog>()

  constructor(traceTransfers: boolean) {
    this.#traceTransfers = traceTransfers
  }

  get traceTransfers(): boolean {
    return this.#traceTransfers
  }

  /** Next log index of the block. */
  get count(): number {
    return this.#count
  }

  /** Starts a new block: log indices count from 0 again. */
  newBlock(): void {
    this.#count = 0
    this.reset()
  }

  /** Starts a new transaction (log indices keep counting). */
  reset(): void {
    this.#frames = []
    this.#result = []
    this.#pendingCreates.clear()
  }

  /** Logs of the last transaction. */
  logs(): IndexedLog[] {
    return this.#result
  }

  /** Without transfer tracing, the receipt's logs are the tracer's: just number them. */
  takeReceiptLogs(logs: LogTuple[]): IndexedLog[] {
    this.#result = logs.map((log) => ({ log, index: this.#count++ }))
    return this.#result
  }

  attach(evm: EVM): () => void {
    const onBefore = (msg: Message) => this.#enter(msg)
    const onAfter = (result: EVMResult) => this.#exit(result)
    const onStep = (step: InterpreterStep, resolve?: (result?: unknown) => void) => {
      this.#step(step).then(
        () => resolve?.(),
        () => resolve?.(),
      )
    }
    evm.events.on('beforeMessage', onBefore)
    evm.events.on('afterMessage', onAfter)
    evm.events.on('step', onStep)
    return () => {
      evm.events.off('beforeMessage', onBefore)
      evm.events.off('afterMessage', onAfter)
      evm.events.off('step', onStep)
    }
  }

  #capture(address: Uint8Array, topics: Uint8Array[], data: Uint8Array): IndexedLog {
    const entry: IndexedLog = { log: [address, topics, data], index: this.#count++ }
    this.#frames[this.#frames.length - 1]?.push(entry)
    return entry
  }

  #transfer(from: Uint8Array, to: Uint8Array, value: bigint): IndexedLog {
    return this.#capture(ETH_TRANSFER_ADDRESS, [TRANSFER_TOPIC, topicOf(from), topicOf(to)], word(value))
  }

  #enter(msg: Message): void {
    this.#frames.push([])
    const codeAddress = (msg as unknown as { _codeAddress?: { bytes: Uint8Array } })._codeAddress
    const isCallcode =
      codeAddress !== undefined && msg.to !== undefined && Buffer.compare(codeAddress.bytes, msg.to.bytes) !== 0
    if (msg.delegatecall || isCallcode || msg.value <= 0n) return
    const entry = this.#transfer(msg.caller.bytes, msg.to?.bytes ?? new Uint8Array(20), msg.value)
    if (msg.to === undefined) this.#pendingCreates.set(this.#frames.length, entry)
  }

  #exit(result: EVMResult): void {
    const depth = this.#frames.length
    const pending = this.#pendingCreates.get(depth)
    if (pending !== undefined) {
      if (result.createdAddress !== undefined)
        (pending.log[1] as Uint8Array[])[2] = topicOf(result.createdAddress.bytes)
      this.#pendingCreates.delete(depth)
    }
    const frame = this.#frames.pop() ?? []
    // a failed frame's logs are dropped; their indices are not given back (what geth answers)
    const failed = result.execResult.exceptionError !== undefined
    if (this.#frames.length === 0) {
      this.#result = failed ? [] : frame
      return
    }
    if (!failed) this.#frames[this.#frames.length - 1]?.push(...frame)
  }

  async #step(step: InterpreterStep): Promise<void> {
    const name = step.opcode.name
    if (name.startsWith('LOG')) {
      const n = Number(name.slice(3))
      const stack = step.stack
      const top = stack.length - 1
      const offset = Number(stack[top] as bigint)
      const size = Number(stack[top - 1] as bigint)
      const topics: Uint8Array[] = []
      for (let i = 0; i < n; i++) topics.push(word(stack[top - 2 - i] as bigint))
      const data = new Uint8Array(size)
      data.set(step.memory.subarray(offset, offset + size))
      this.#capture(step.address.bytes, topics, data)
    } else if (name === 'SELFDESTRUCT' && this.#traceTransfers) {
      const beneficiary = setLengthLeft(bigIntToBytes(step.stack[step.stack.length - 1] as bigint), 20)
      const balance = (await step.stateManager.getAccount(step.address))?.balance ?? 0n
      if (balance > 0n) this.#transfer(step.address.bytes, beneficiary, balance)
    }
  }
}

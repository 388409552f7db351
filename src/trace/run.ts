/**
 * Re-executes transactions with a tracer attached, as geth's eth/tracers/api.go does:
 *
 *   traceBlockTx:  parent state ─▶ pre-block system calls ─▶ txs[0..i) untraced ─▶ txs[i] traced
 *   traceBlockAll: parent state ─▶ pre-block system calls ─▶ every tx traced, [{txHash, result|error}]
 *   traceMessage:  the block's state (+ overrides) ─▶ one message traced (debug_traceCall)
 *
 * Transactions replay exactly as the block builder ran them (runMessage.ts's runTransaction
 * under BLOCK rules, the block's header as environment), so state before tx i is what the chain had. Each traced transaction gets its own
 * tracer and its own deadline (TraceOptions.timeoutMs, geth's per-transaction `timeout`); the step
 * hook checks the deadline and the sink's size bound, and throwing there stops the EVM at once.
 * The output is the JSON text as byte chunks (JsonSink) ready to transfer from a worker.
 */
import type { Block, BlockHeader } from '@ethereumjs/block'
import type { EVMResult, Message } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { createContractAddress } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import type { Database } from '../db/db.js'
import type { ChainStore } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import { IbexError } from '../util/errors.js'
import { runTransaction, type TxRules } from '../evm/runMessage.js'
import { classifyTxError } from '../evm/errors.js'
import { applyPreBlockSystemCalls } from '../evm/systemCalls.js'
import { createChainVM, envBlock } from '../evm/vm.js'
import { CallTracer } from './callTracer.js'
import { goJson } from './opcodes.js'
import type { TraceOptions } from './options.js'
import { OtsTracer } from './otsTracer.js'
import { PrestateTracer } from './prestateTracer.js'
import { JsonSink, TraceTooLargeError } from './sink.js'
import { setStepConsumer } from '../evm/stepHook.js'
import { StateDiffTracer } from './stateDiffTracer.js'
import { StructLogger } from './structLogger.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

/** Steps between two deadline checks (a clock read per step would cost more than the check is worth). */
const DEADLINE_CHECK_STEPS = 256

export interface TraceChain {
  db: Database
  store: ChainStore
}

/** geth's tracer timeout: the trace stops and the request answers this message. */
export class TraceTimeoutError extends IbexError {
  readonly kind = 'traceTimeout'
  constructor() {
    super('execution timeout')
  }
}

/** A trace that cannot run (unknown block, failed transaction validation …): a -32000 error. */
export class TraceError extends IbexError {
  readonly kind = 'traceFailed'
}

class NoopTracer implements Tracer {
  readonly asyncSteps = false
  readonly #sink: JsonSink
  constructor(sink: JsonSink) {
    this.#sink = sink
  }
  async txStart(): Promise<void> {}
  step(): void {}
  enter(): void {}
  exit(): void {}
  async txEnd(): Promise<void> {}
  finish(): void {
    this.#sink.write('{}')
  }
}

function newTracer(opts: TraceOptions, sink: JsonSink): Tracer {
  switch (opts.tracer) {
    case 'callTracer':
      return new CallTracer(opts.call, sink)
    case 'prestateTracer':
      return new PrestateTracer(opts.prestate, sink)
    case 'noopTracer':
      return new NoopTracer(sink)
    case 'otsTrace':
    case 'otsInternal':
    case 'otsError':
      return new OtsTracer(opts.tracer, sink)
    case 'parityStateDiff':
      return new StateDiffTracer(sink)
    default:
      return new StructLogger(opts.logger, sink)
  }
}

/** Subscribes `tracer` to the VM's EVM events until the returned function is called. */
function attach(vm: VM, tracer: Tracer, deadline: number): () => void {
  const events = vm.evm.events
  if (events === undefined) throw new Error('the EVM emits no events')
  let steps = 0
  const checkDeadline = (): void => {
    if (++steps % DEADLINE_CHECK_STEPS === 0 && performance.now() > deadline) throw new TraceTimeoutError()
  }
  const onEnter = (m: Message): void => tracer.enter(m)
  const onExit = (r: EVMResult): void => {
    const p = tracer.exit(r)
    if (p !== undefined) throw new Error('tracer exit hooks must be synchronous')
  }
  events.on('beforeMessage', onEnter)
  events.on('afterMessage', onExit)
  const detachEvents = () => {
    events.off('beforeMessage', onEnter)
    events.off('afterMessage', onExit)
  }
  // the interpreter calls its step hook only when a `step` listener exists; the patched hook
  // (evmPatches.ts) then hands each step to the consumer instead of emitting it
  const noop = (): void => {}
  events.on('step', noop)
  setStepConsumer((step) => {
    checkDeadline()
    return tracer.step(step)
  })
  return () => {
    setStepConsumer(undefined)
    events.off('step', noop)
    detachEvents()
  }
}

/** A block being re-executed: its VM on the evolving state, and what earlier txs used. */
interface BlockRun {
  vm: VM
  state: MerkleStateManager
  env: Block
  /** BLOCK for a block's transactions, CALL for debug_traceCall's message (runMessage.ts). */
  rules: TxRules
  gasUsed: bigint
  logs: number
}

async function openBlockRun(chain: TraceChain, header: BlockHeader, parentStateRoot: Uint8Array): Promise<BlockRun> {
  const common = header.common.copy()
  const state = stateAt(chain.db, common, parentStateRoot)
  const vm = await createChainVM(chain.store, common, state)
  await applyPreBlockSystemCalls(
    state,
    common,
    header.number,
    header.timestamp,
    header.parentHash,
    header.parentBeaconBlockRoot,
  )
  return { vm, state, env: envBlock(header), rules: 'block', gasUsed: 0n, logs: 0 }
}

async function replay(run: BlockRun, tx: TypedTransaction): Promise<void> {
  const result = await runTransaction(run.vm, tx, run.env, run.rules, { blockGasUsed: run.gasUsed })
  account(run, result)
}

function account(run: BlockRun, result: RunTxResult): void {
  run.gasUsed += result.totalGasSpent
  run.logs += result.receipt.logs.length
}

function messageOf(err: unknown): string {
  const msg = err instanceof Error ? err.message : String(err)
  return msg.split(' -> ')[0]?.split('\n')[0] ?? msg
}

/** Runs `tx` on `run` with a fresh tracer writing into `sink`. */
async function traceOne(run: BlockRun, tx: TypedTransaction, opts: TraceOptions, sink: JsonSink): Promise<void> {
  const tracer = newTracer(opts, sink)
  const from = tx.getSenderAddress()
  const nonce = (await run.state.getAccount(from))?.nonce ?? 0n
  const start: TxStartContext = {
    from,
    to: tx.to ?? createContractAddress(from, nonce),
    isCreate: tx.to === undefined,
    gasLimit: tx.gasLimit,
    coinbase: run.env.header.coinbase,
    state: run.state,
    logIndexBase: run.logs,
  }
  await tracer.txStart(start)
  const detach = attach(run.vm, tracer, performance.now() + opts.timeoutMs)
  let result: RunTxResult
  try {
    result = await runTransaction(run.vm, tx, run.env, run.rules, { blockGasUsed: run.gasUsed })
  } catch (err) {
    if (err instanceof TraceTimeoutError || err instanceof TraceTooLargeError) throw err
    const why = classifyTxError(err, tx, run.env.header.baseFeePerGas)
    throw new TraceError(`tracing failed: ${why.shortMessage}`, { cause: err, details: why.details })
  } finally {
    detach()
  }
  account(run, result)
  const end: TxEndContext = {
    gasUsed: result.totalGasSpent,
    error: result.execResult.exceptionError?.error,
    returnValue: result.execResult.returnValue,
    state: run.state,
  }
  await tracer.txEnd(end)
  tracer.finish()
}

export interface BlockToTrace {
  header: BlockHeader
  transactions: TypedTransaction[]
  /** State root of the parent block (the state the block starts from). */
  parentStateRoot: Uint8Array
}

/** The trace of transaction `index` of `block`. */
export async function traceBlockTx(
  chain: TraceChain,
  block: BlockToTrace,
  index: number,
  opts: TraceOptions,
  maxBytes: number,
): Promise<Uint8Array[]> {
  const run = await openBlockRun(chain, block.header, block.parentStateRoot)
  for (let i = 0; i < index; i++) await replay(run, block.transactions[i] as TypedTransaction)
  const sink = new JsonSink(maxBytes)
  await traceOne(run, block.transactions[index] as TypedTransaction, opts, sink)
  return sink.parts()
}

/** `[{"txHash","result"}…]` for every transaction of `block`; a transaction whose trace fails gets `{"txHash","error"}`. */
export async function traceBlockAll(
  chain: TraceChain,
  block: BlockToTrace,
  opts: TraceOptions,
  maxBytes: number,
): Promise<Uint8Array[]> {
  const sink = new JsonSink(maxBytes)
  sink.write('[')
  let run = await openBlockRun(chain, block.header, block.parentStateRoot)
  const txs = block.transactions
  for (let i = 0; i < txs.length; i++) {
    const tx = txs[i] as TypedTransaction
    const hash = `0x${Buffer.from(tx.hash()).toString('hex')}`
    if (i > 0) sink.write(',')
    const mark = sink.mark()
    sink.write(`{"txHash":"${hash}","result":`)
    try {
      await traceOne(run, tx, opts, sink)
      sink.write('}')
    } catch (err) {
      if (err instanceof TraceTooLargeError) throw err
      sink.rewind(mark)
      sink.write(`{"txHash":"${hash}","error":${goJson(messageOf(err))}}`)
      // an aborted run leaves the EVM mid-transaction: start over and replay through this one
      run = await openBlockRun(chain, block.header, block.parentStateRoot)
      for (let j = 0; j <= i; j++) await replay(run, txs[j] as TypedTransaction)
    }
  }
  sink.write(']')
  return sink.parts()
}

export interface MessageToTrace {
  tx: TypedTransaction
  header: BlockHeader
  state: MerkleStateManager
  vm: VM
}

/** debug_traceCall: one unsigned message on a prepared state (see traceCall.ts). */
export async function traceMessage(msg: MessageToTrace, opts: TraceOptions, maxBytes: number): Promise<Uint8Array[]> {
  const run: BlockRun = {
    vm: msg.vm,
    state: msg.state,
    env: envBlock(msg.header),
    rules: 'call',
    gasUsed: 0n,
    logs: 0,
  }
  const sink = new JsonSink(maxBytes)
  await traceOne(run, msg.tx, opts, sink)
  return sink.parts()
}

/**
 * The contract between the trace runner (run.ts) and a tracer. The runner subscribes to the
 * ethereumjs EVM's events and forwards them in order:
 *
 *   txStart ─▶ enter(depth 0) ─▶ step … enter(child) step … exit(child) … ─▶ exit(depth 0) ─▶ txEnd ─▶ finish
 *
 * geth's hooks map onto these: OnTxStart = txStart, OnEnter = enter, OnOpcode = step,
 * OnExit = exit, OnTxEnd = txEnd, GetResult = finish. A tracer writes into the JsonSink it is
 * constructed with (the struct logger while the EVM runs, the others at the end). Unlike geth's
 * OnOpcode, `step` sees the opcode before its gas is charged, and failures arrive at `exit` as
 * ethereumjs error strings.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { Address } from '@ethereumjs/util'

export interface TxStartContext {
  from: Address
  /** The recipient, or the address a contract-creating transaction deploys to. */
  to: Address
  isCreate: boolean
  gasLimit: bigint
  coinbase: Address
  /** The state the transaction runs on; reads see its changes as they happen. */
  state: MerkleStateManager
  /** geth's log index of the transaction's first log (logs of earlier transactions in the block). */
  logIndexBase: number
}

export interface TxEndContext {
  /** Gas charged to the sender after refunds (the receipt's gasUsed). */
  gasUsed: bigint
  /** The top frame's ethereumjs error ('revert', 'out of gas', …), undefined on success. */
  error: string | undefined
  returnValue: Uint8Array
  state: MerkleStateManager
}

export interface Tracer {
  /** True when `step` may return a promise the EVM must wait for (state reads). */
  readonly asyncSteps: boolean
  txStart(ctx: TxStartContext): Promise<void>
  step(step: InterpreterStep): void | Promise<void>
  enter(message: Message): void
  exit(result: EVMResult): void | Promise<void>
  txEnd(ctx: TxEndContext): Promise<void>
  /** Completes the transaction's trace (one JSON value) in the sink the tracer was made with. */
  finish(): void
}

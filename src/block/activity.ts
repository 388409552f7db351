/**
 * ActivityCollector: what a transaction's execution did, for the explorer indexes
 * (src/chain/explorerIndex.ts), gathered while the block runs — no second execution. It listens
 * to the EVM's `beforeMessage` / `afterMessage` events, which ethereumjs awaits for every message
 * whether anyone listens or not, so the price is one synchronous call per call frame (not per
 * opcode: no step hook):
 *
 *   begin(tx) ─▶ beforeMessage: caller, callee, code address (DELEGATECALL/CALLCODE) ─▶ touched
 *             ─▶ afterMessage:  a created contract that exists ─▶ touched, created (creator = caller)
 *   end(result) ─▶ TxActivity (+ the return data of a failed transaction)
 *
 * Precompiles (addresses below 2^16) are left out, as Otterscan's trace leaves them out. A SELFDESTRUCT's beneficiary is
 * not a message, so it is not seen; nor is the block's coinbase (paid in every block).
 */
import type { EVMResult, Message } from '@ethereumjs/evm'
import type { RunTxResult } from '@ethereumjs/vm'
import type { TxActivity } from '../chain/explorerIndex.js'

/** Leading zero bytes of a precompile's address: every precompile (0x01…0x11, P256 at 0x100) sits below 2^16. */
const PRECOMPILE_ZERO_BYTES = 18

function isPrecompile(address: Uint8Array): boolean {
  for (let i = 0; i < PRECOMPILE_ZERO_BYTES; i++) if (address[i] !== 0) return false
  return true
}

interface EvmEvents {
  on(event: string, listener: (arg: never) => void): void
  off(event: string, listener: (arg: never) => void): void
}

export class ActivityCollector {
  #touched = new Map<string, Uint8Array>()
  #created: TxActivity['created'] = []
  /** Callers of the open frames (afterMessage carries no message). */
  readonly #callers: Uint8Array[] = []
  readonly #onBefore = (m: Message): void => this.#before(m)
  readonly #onAfter = (r: EVMResult): void => this.#after(r)
  #events: EvmEvents | undefined

  /** Starts listening to `evm`'s message events (until detach). */
  attach(evm: { events?: unknown }): void {
    const events = evm.events as EvmEvents | undefined
    if (events === undefined) throw new Error('the EVM emits no events')
    events.on('beforeMessage', this.#onBefore)
    events.on('afterMessage', this.#onAfter)
    this.#events = events
  }

  detach(): void {
    this.#events?.off('beforeMessage', this.#onBefore)
    this.#events?.off('afterMessage', this.#onAfter)
    this.#events = undefined
  }

  /** Starts a transaction: forgets the last one's frames. */
  begin(): void {
    this.#touched = new Map()
    this.#created = []
    this.#callers.length = 0
  }

  /** The activity of the transaction begun last, given its result (undefined: not run by the EVM, a plain transfer). */
  end(result: RunTxResult | undefined, plain?: { from: Uint8Array; to: Uint8Array | undefined }): TxActivity {
    if (plain !== undefined) {
      this.#add(plain.from)
      if (plain.to !== undefined) this.#add(plain.to)
    }
    const exec = result?.execResult
    const failed = exec?.exceptionError !== undefined
    const output = exec?.returnValue
    const activity: TxActivity = {
      touched: [...this.#touched.values()],
      created: this.#created,
      revertOutput: failed && output !== undefined && output.length > 0 ? output.slice() : undefined,
    }
    // messages between transactions (a block's system calls) must not land in this one's activity
    this.begin()
    return activity
  }

  #add(address: Uint8Array): void {
    const id = Buffer.from(address.buffer, address.byteOffset, address.byteLength).toString('latin1')
    if (!this.#touched.has(id)) this.#touched.set(id, address)
  }

  #before(m: Message): void {
    this.#callers.push(m.caller.bytes)
    this.#add(m.caller.bytes)
    if (m.to === undefined) return // a CREATE: its address is known when it returns
    if (!isPrecompile(m.to.bytes)) this.#add(m.to.bytes)
    // DELEGATECALL / CALLCODE run another account's code at `to` (the getter throws when neither is set)
    const code = m.codeAddress
    if (code !== m.to && !isPrecompile(code.bytes)) this.#add(code.bytes)
  }

  #after(r: EVMResult): void {
    const caller = this.#callers.pop()
    const created = r.createdAddress
    if (created === undefined || caller === undefined || r.execResult.exceptionError !== undefined) return
    this.#add(created.bytes)
    this.#created.push({ address: created.bytes, creator: caller })
  }
}

/**
 * The tracer behind trace_replayTransaction's `stateDiff` (OpenEthereum's ad-hoc trace format, as
 * Erigon serves it; Otterscan's State Diff tab reads it). It runs the prestateTracer in diff mode
 * (prestateTracer.ts) into a private sink and rewrites its `{pre, post}` at the end:
 *
 *   {"output": top frame's return data, "stateDiff": {address: {balance, code, nonce, storage}},
 *    "trace": [], "vmTrace": null}
 *
 *   account existed before and after   each of balance, code, nonce: "=" or {"*": {from, to}};
 *                                       storage: the changed slots, {"*": {from, to}}
 *   account born (did not exist, or     {"+": value} for balance, code, nonce and each slot set
 *     was empty: EIP-161)
 *   account gone (destroyed)            {"-": value} for balance, code, nonce; storage {}
 *
 * Balances and nonces are hex quantities, code hex bytes, slots and their values 32-byte words.
 * An account the prestateTracer drops (nothing changed) is not listed, as in Erigon.
 */
import type { EVMResult, InterpreterStep, Message } from '@ethereumjs/evm'
import { toData } from '../util/hex.js'
import { goJson } from './opcodes.js'
import { PrestateTracer } from './prestateTracer.js'
import { decodeParts, JsonSink } from './sink.js'
import type { Tracer, TxEndContext, TxStartContext } from './types.js'

/** One account as the prestateTracer writes it (geth's JSON: nonce a number, members left out when empty). */
export interface PrestateAccount {
  balance?: string
  code?: string
  nonce?: number
  storage?: Record<string, string>
}

export interface PrestateDiff {
  pre: Record<string, PrestateAccount>
  post: Record<string, PrestateAccount>
}

type Change<T> = '=' | { '*': { from: T; to: T } } | { '+': T } | { '-': T }

export interface StateDiffAccount {
  balance: Change<string>
  code: Change<string>
  nonce: Change<string>
  storage: Record<string, Change<string>>
}

const ZERO_WORD = `0x${'0'.repeat(64)}`

const quantity = (n: number | undefined): string => `0x${(n ?? 0).toString(16)}`

/** geth's prestate of an account that did not exist: no balance, nonce, code or storage. */
function isEmpty(a: PrestateAccount | undefined): boolean {
  return (
    a === undefined ||
    ((a.balance === undefined || BigInt(a.balance) === 0n) &&
      (a.nonce ?? 0) === 0 &&
      (a.code ?? '0x') === '0x' &&
      Object.keys(a.storage ?? {}).length === 0)
  )
}

function changed<T>(from: T, to: T | undefined): Change<T> {
  return to === undefined || to === from ? '=' : { '*': { from, to } }
}

/** parityStateDiff: the prestateTracer's diff-mode answer as OpenEthereum's stateDiff. */
export function parityStateDiff(diff: PrestateDiff): Record<string, StateDiffAccount> {
  const out: Record<string, StateDiffAccount> = {}
  const addresses = [...new Set([...Object.keys(diff.pre), ...Object.keys(diff.post)])].sort()
  for (const address of addresses) {
    const pre = diff.pre[address]
    const post = diff.post[address]
    if (post === undefined) {
      // in `pre` only: the account was destroyed
      if (pre === undefined || isEmpty(pre)) continue
      out[address] = {
        balance: { '-': pre.balance ?? '0x0' },
        code: { '-': pre.code ?? '0x' },
        nonce: { '-': quantity(pre.nonce) },
        storage: {},
      }
    } else if (isEmpty(pre)) {
      const storage: Record<string, Change<string>> = {}
      for (const [slot, value] of Object.entries(post.storage ?? {})) storage[slot] = { '+': value }
      out[address] = {
        balance: { '+': post.balance ?? '0x0' },
        code: { '+': post.code ?? '0x' },
        nonce: { '+': quantity(post.nonce) },
        storage,
      }
    } else {
      const before = pre as PrestateAccount
      const storage: Record<string, Change<string>> = {}
      const slots = [...new Set([...Object.keys(before.storage ?? {}), ...Object.keys(post.storage ?? {})])].sort()
      for (const slot of slots) {
        storage[slot] = { '*': { from: before.storage?.[slot] ?? ZERO_WORD, to: post.storage?.[slot] ?? ZERO_WORD } }
      }
      out[address] = {
        balance: changed(before.balance ?? '0x0', post.balance),
        code: changed(before.code ?? '0x', post.code),
        nonce: changed(quantity(before.nonce), post.nonce === undefined ? undefined : quantity(post.nonce)),
        storage,
      }
    }
  }
  return out
}

export class StateDiffTracer implements Tracer {
  readonly #sink: JsonSink
  readonly #diff: JsonSink
  readonly #prestate: PrestateTracer
  #output = '0x'

  constructor(sink: JsonSink) {
    this.#sink = sink
    this.#diff = new JsonSink(sink.limitBytes)
    this.#prestate = new PrestateTracer({ diffMode: true, disableCode: false, disableStorage: false }, this.#diff)
  }

  get asyncSteps(): boolean {
    return this.#prestate.asyncSteps
  }
  txStart(ctx: TxStartContext): Promise<void> {
    return this.#prestate.txStart(ctx)
  }
  step(step: InterpreterStep): void | Promise<void> {
    return this.#prestate.step(step)
  }
  enter(message: Message): void {
    this.#prestate.enter(message)
  }
  exit(result: EVMResult): void | Promise<void> {
    return this.#prestate.exit(result)
  }
  txEnd(ctx: TxEndContext): Promise<void> {
    this.#output = toData(ctx.returnValue)
    return this.#prestate.txEnd(ctx)
  }

  finish(): void {
    this.#prestate.finish()
    const diff = JSON.parse(decodeParts(this.#diff.parts())) as PrestateDiff
    this.#sink.write(goJson({ output: this.#output, stateDiff: parityStateDiff(diff), trace: [], vmTrace: null }))
  }
}

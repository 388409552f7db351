/**
 * CallState: the VM and state manager that eth_call / eth_estimateGas / eth_createAccessList
 * attempts at one state root reuse. Building a VM costs milliseconds (opcode tables, fork
 * parameters) and a fresh state starts cold; a view call itself is a few hundred microseconds.
 *
 *   attempt ─▶ callStateFor(store, db, block) ─▶ exclusive: checkpoint ─▶ runTx ─▶ revert
 *
 * What must always hold: every attempt runs between a checkpoint and its revert, one at a time
 * per CallState (attempts interleave at awaits when run in process), so nothing one call writes
 * is seen by the next. An attempt that throws out of runTx (not an EVM error: a deadline, a bug)
 * drops the CallState; the next call builds a fresh one.
 */
import type { Block } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { memoizeParams } from '../chain/commonParams.js'
import type { Database } from '../db/db.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { reusableStateAt, type SharedReadStateManager } from '../state/index.js'
import { runHeader } from './overrides.js'
import { createChainVM, envBlock } from './vm.js'

/** CallStates kept per chain store (the head's root and fork, and one more while readers move on). */
export const CALL_STATES_PER_STORE = 2
/** Environment blocks (per block and fee mode) kept per CallState. */
const ENV_BLOCKS_PER_STATE = 64

export class CallState {
  readonly key: string
  readonly common: Common
  readonly sm: SharedReadStateManager
  readonly vm: VM
  #queue: Promise<void> = Promise.resolve()
  readonly #envBlocks = new Map<string, Block>()

  constructor(key: string, common: Common, sm: SharedReadStateManager, vm: VM) {
    this.key = key
    this.common = common
    this.sm = sm
    this.vm = vm
  }

  /**
   * The block environment of `block`, with a zero base fee when the message pays nothing per gas
   * and a zero blob base fee when its blob fee cap is 0 (as geth lowers both for calls).
   */
  envBlock(block: ChainBlock, zeroBaseFee: boolean, zeroBlobFee = false): Block {
    const key = `${Buffer.from(block.hash).toString('hex')}${zeroBaseFee ? '0' : ''}${zeroBlobFee ? 'b' : ''}`
    let env = this.#envBlocks.get(key)
    if (env === undefined) {
      const header =
        zeroBaseFee || zeroBlobFee
          ? runHeader(block.header, this.common, undefined, zeroBaseFee, zeroBlobFee)
          : block.header
      env = envBlock(header)
      if (this.#envBlocks.size >= ENV_BLOCKS_PER_STATE) this.#envBlocks.clear()
      this.#envBlocks.set(key, env)
    }
    return env
  }

  /** Runs `fn` alone on this state, inside a checkpoint reverted afterwards. */
  async exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.#queue
    let release!: () => void
    this.#queue = new Promise<void>((r) => {
      release = r
    })
    await previous
    try {
      await this.sm.checkpoint()
      try {
        return await fn()
      } finally {
        await this.sm.revert()
        this.sm.forgetWrites()
      }
    } finally {
      release()
    }
  }
}

const byStore = new WeakMap<ChainStore, CallState[]>()
/** The CallState last found for a header (no key to build per call); checked against the store's list. */
const byHeader = new WeakMap<ChainBlock['header'], CallState>()

/** The CallState for `block` when one is kept already (synchronous: the hot path of eth_call). */
export function keptCallState(store: ChainStore, block: ChainBlock): CallState | undefined {
  const list = byStore.get(store)
  const state = byHeader.get(block.header)
  if (state !== undefined && list?.includes(state) === true) return state
  // another object for the same block (a store read): found by its root and fork
  const found = list?.find((s) => s.key === stateKey(block))
  if (found !== undefined) byHeader.set(block.header, found)
  return found
}

function stateKey(block: ChainBlock): string {
  return `${Buffer.from(block.header.stateRoot).toString('hex')}:${block.header.common.hardfork()}`
}

/** CallStates being built, per store and key: concurrent first calls at a new root build one. */
const building = new WeakMap<ChainStore, Map<string, Promise<CallState>>>()

/** The CallState for `block`'s state root and fork (built on first use). */
export async function callStateFor(store: ChainStore, db: Database, block: ChainBlock): Promise<CallState> {
  const kept = keptCallState(store, block)
  if (kept !== undefined) return kept
  const key = stateKey(block)
  let pending = building.get(store)
  if (pending === undefined) {
    pending = new Map()
    building.set(store, pending)
  }
  let build = pending.get(key)
  if (build === undefined) {
    const map = pending
    build = buildCallState(store, db, block, key).finally(() => map.delete(key))
    pending.set(key, build)
  }
  return build
}

async function buildCallState(store: ChainStore, db: Database, block: ChainBlock, key: string): Promise<CallState> {
  const common = block.header.common
  let list = byStore.get(store)
  if (list === undefined) {
    list = []
    byStore.set(store, list)
  }
  const found = list.find((s) => s.key === key)
  if (found !== undefined) {
    byHeader.set(block.header, found)
    return found
  }
  // the rules of the block the call runs in (an imported chain changes forks along the way)
  const own = common.copy()
  memoizeParams(own)
  const sm = reusableStateAt(db, own, block.header.stateRoot)
  const state = new CallState(key, own, sm, await createChainVM(store, own, sm))
  list.unshift(state)
  if (list.length > CALL_STATES_PER_STORE) list.pop()
  byHeader.set(block.header, state)
  return state
}

/** Forgets `state` (after an attempt threw out of the EVM). */
export function dropCallState(store: ChainStore, state: CallState): void {
  const list = byStore.get(store)
  const i = list?.indexOf(state) ?? -1
  if (i >= 0) list?.splice(i, 1)
}

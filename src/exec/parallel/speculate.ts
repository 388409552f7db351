/**
 * The worker's half: run a task's transactions on the parent block's state, each recorded by the
 * RecordingStateManager (recorder.ts), and send back read sets, op logs and results.
 *
 *   task ─▶ state for (root, fork) (kept across tasks: one VM build per block and thread)
 *        ─▶ per chain: checkpoint ─▶ per tx: begin ─▶ runTx ─▶ end ─▶ … ─▶ revert (back to the parent)
 *
 * A chain holds one sender's transactions in nonce order and runs them one after another, so the
 * second sees the first's effects (its reads of the sender then carry the values the first wrote:
 * they hold at the main thread when the first was applied as speculated). Chains never see each
 * other. What must hold: after a chain the state is the parent's again (its checkpoint reverted,
 * its writes forgotten); a state that cannot get back there is dropped and built anew.
 */
import type { Block } from '@ethereumjs/block'
import { createBlockHeaderFromRLP } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { runTx, type VM } from '@ethereumjs/vm'
import { memoizeParams } from '../../chain/commonParams.js'
import type { Database } from '../../chain/db.js'
import type { LogTuple } from '../../chain/receipt.js'
import type { ChainStore } from '../../chain/store.js'
import { headerOptions } from '../blockExec.js'
import { createChainVM, envBlock } from '../vm.js'
import { type RecordingStateManager, recordingStateAt } from './recorder.js'
import type { SpecChain, SpeculatedTx, SpeculateResult, SpeculateTask } from './types.js'
import { hexOf } from '../../util/bytes.js'

/** What speculation runs against: a database and the chain's rules (ExecContext in a worker). */
export interface SpeculationHost {
  readonly db: Database
  readonly common: Common
  store(head: bigint): ChainStore
}

type CachedTx = TypedTransaction & { cache: { senderPubKey?: Uint8Array } }

interface SpecState {
  key: string
  common: Common
  sm: RecordingStateManager
  vm: VM
  headerKey: string
  env: Block | undefined
  coinbase: Uint8Array
}

/** The state each host keeps (one block's parent at a time: tasks of a block come together). */
const states = new WeakMap<SpeculationHost, SpecState>()

async function stateFor(host: SpeculationHost, task: SpeculateTask): Promise<SpecState> {
  const key = `${hexOf(task.root)}:${task.hardfork}`
  let state = states.get(host)
  if (state?.key !== key) {
    const common = host.common.copy()
    common.setHardfork(task.hardfork)
    memoizeParams(common)
    const sm = recordingStateAt(host.db, common, task.root)
    const vm = await createChainVM(host.store(task.head), common, sm)
    // the top-level call returning marks the start of runTx's settlement (refund, tip, cleanup)
    const evm = vm.evm
    const runCall = evm.runCall.bind(evm)
    let depth = 0
    evm.runCall = async (opts) => {
      depth++
      try {
        return await runCall(opts)
      } finally {
        if (--depth === 0) sm.callReturned()
      }
    }
    state = { key, common, sm, vm, headerKey: '', env: undefined, coinbase: new Uint8Array(20) }
    states.set(host, state)
  }
  const headerKey = hexOf(task.header)
  if (state.headerKey !== headerKey) {
    const header = createBlockHeaderFromRLP(task.header, headerOptions(state.common))
    state.env = envBlock(header)
    state.coinbase = header.coinbase.bytes
    state.headerKey = headerKey
  }
  return state
}

function reason(err: unknown): string {
  return err instanceof Error ? (err.message.split('\n')[0] as string) : String(err)
}

async function runChain(state: SpecState, chain: SpecChain): Promise<SpeculatedTx[]> {
  const { sm, vm, common } = state
  const out: SpeculatedTx[] = []
  for (const raw of chain.txs) {
    const tx = createTxFromRLP(raw, { common })
    // the main thread recovered the sender already (the same key ethereumjs' recovery gives)
    if (chain.senderPubKey !== undefined) (tx as CachedTx).cache.senderPubKey = chain.senderPubKey
    sm.begin(state.coinbase)
    let result: Awaited<ReturnType<typeof runTx>>
    try {
      result = await runTx(vm, { tx, block: state.env, skipHardForkValidation: true })
    } catch (err) {
      sm.end()
      // the sender's later transactions would not run after this one either
      out.push({ ok: false, why: `runTx threw: ${reason(err)}` })
      break
    }
    const rec = sm.end()
    if (rec.miss !== undefined) {
      out.push({ ok: false, why: rec.miss })
      continue
    }
    out.push({
      ok: true,
      reads: rec.reads,
      ops: rec.ops,
      gasUsed: result.totalGasSpent,
      status: result.execResult.exceptionError === undefined ? 1 : 0,
      logs: (result.execResult.logs ?? []) as LogTuple[],
      createdAddress: result.createdAddress?.bytes,
    })
  }
  return out
}

/** Runs `task` on `host`: per chain, per transaction, what it read and did on the parent state. */
export async function speculateTask(host: SpeculationHost, task: SpeculateTask): Promise<SpeculateResult> {
  const state = await stateFor(host, task)
  const out: SpeculateResult = []
  for (const chain of task.chains) {
    await state.sm.checkpoint()
    let results: SpeculatedTx[]
    try {
      results = await runChain(state, chain)
    } finally {
      await state.sm.revert()
      try {
        state.sm.forgetWrites()
      } catch {
        // checkpoints left open by a throw deep in the EVM: this state is not the parent's any more
        states.delete(host)
      }
    }
    out.push(results)
    if (states.get(host) !== state) return [...out, ...task.chains.slice(out.length).map(() => [])]
  }
  return out
}

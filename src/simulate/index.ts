/**
 * eth_simulateV1: blocks of calls executed on top of a base block, never committed, answered as
 * full blocks with per-call results — geth's internal/ethapi/simulate.go, step for step.
 *
 *   request ─▶ sanitize chain (numbers and timestamps increase; gaps filled with empty blocks,
 *              12 s apart) ─▶ per block: header fields from the parent and the overrides
 *              (block.ts) ─▶ state overrides, system calls, calls (message.ts: geth's defaults,
 *              type and pre-checks), finalize (finalize.ts) ─▶ header, hash
 *
 * One throw-away state (the base block's root, writes kept in memory) runs through all blocks;
 * one gas pool (the RPC gas cap) is shared by all calls. A call that reverts or runs out of gas is
 * a call result; a call that cannot be a valid transaction aborts with geth's -380xx code.
 */
import type { Common } from '@ethereumjs/common'
import type { Database } from '../db/db.js'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import { stateAt } from '../state/index.js'
import { processBlock, type SimulatedBlock } from './block.js'
import { SIM_ERROR, SimulationError } from './errors.js'
import { SimulationTracer } from './tracer.js'
import { type BlockOverrides, emptyBlockOverrides, type SimBlock, type SimulateRequest } from './types.js'

export { SimulationError } from './errors.js'
export type { SimulatedBlock, SimulatedCall } from './block.js'

/** Most blocks one request may span from its base (geth maxSimulateBlocks). */
export const MAX_SIMULATE_BLOCKS = 256n
/** Most calls one simulated block may hold (geth maxSimulateCallsPerBlock): bounds one block's work. */
export const MAX_SIMULATE_CALLS_PER_BLOCK = 5_000
/** Most calls one request may hold across its blocks (geth maxSimulateTotalCalls). */
export const MAX_SIMULATE_TOTAL_CALLS = 10_000
/** Seconds between simulated blocks whose time is not given (geth timestampIncrement). */
export const TIMESTAMP_INCREMENT = 12n

export interface SimulateEnv {
  db: Database
  store: ChainStore
  common: Common
  base: ChainBlock
  /** The request's gas pool (0 = unlimited). */
  gasCap: bigint
  timeoutMs: number
  /** EIP-6110 deposit contract of the chain. */
  depositContract: Uint8Array
}

type Sanitized = { block: SimBlock; overrides: BlockOverrides & { number: bigint; time: bigint } }

/** geth sanitizeChain: numbers and times strictly increasing, gaps filled with empty blocks. */
export function sanitizeChain(blocks: SimBlock[], baseNumber: bigint, baseTime: bigint): Sanitized[] {
  const out: Sanitized[] = []
  let prevNumber = baseNumber
  let prevTime = baseTime
  for (const block of blocks) {
    const o = block.blockOverrides ?? emptyBlockOverrides()
    const number = o.number ?? prevNumber + 1n
    if (number <= prevNumber) {
      throw new SimulationError(
        SIM_ERROR.blockNumberInvalid,
        `block numbers must be in order: ${number} <= ${prevNumber}`,
      )
    }
    if (number - baseNumber > MAX_SIMULATE_BLOCKS)
      throw new SimulationError(SIM_ERROR.clientLimitExceeded, 'too many blocks')
    for (let n = prevNumber + 1n; n < number; n++) {
      prevTime += TIMESTAMP_INCREMENT
      out.push({
        block: { blockOverrides: undefined, stateOverrides: undefined, calls: [] },
        overrides: { ...emptyBlockOverrides(), number: n, time: prevTime, withdrawals: [] },
      })
    }
    prevNumber = number
    const time = o.time ?? prevTime + TIMESTAMP_INCREMENT
    if (time <= prevTime) {
      throw new SimulationError(
        SIM_ERROR.blockTimestampInvalid,
        `block timestamps must be in order: ${time} <= ${prevTime}`,
      )
    }
    prevTime = time
    out.push({ block, overrides: { ...o, number, time } })
  }
  return out
}

/** geth's call-count limits, checked before anything runs. */
export function checkCallCounts(blocks: SimBlock[]): void {
  let total = 0
  for (const block of blocks) {
    const n = block.calls.length
    if (n > MAX_SIMULATE_CALLS_PER_BLOCK) {
      throw new SimulationError(
        SIM_ERROR.clientLimitExceeded,
        `too many calls in block: ${n} > ${MAX_SIMULATE_CALLS_PER_BLOCK}`,
      )
    }
    total += n
    if (total > MAX_SIMULATE_TOTAL_CALLS) {
      throw new SimulationError(SIM_ERROR.clientLimitExceeded, `too many calls: ${total} > ${MAX_SIMULATE_TOTAL_CALLS}`)
    }
  }
}

export async function simulate(env: SimulateEnv, req: SimulateRequest): Promise<SimulatedBlock[]> {
  if (req.blockStateCalls.length === 0) throw new SimulationError(SIM_ERROR.invalidParams, 'empty input')
  if (BigInt(req.blockStateCalls.length) > MAX_SIMULATE_BLOCKS) {
    throw new SimulationError(SIM_ERROR.clientLimitExceeded, 'too many blocks')
  }
  checkCallCounts(req.blockStateCalls)
  const base = env.base
  const blocks = sanitizeChain(req.blockStateCalls, base.header.number, base.header.timestamp)
  const simulated = new Map<bigint, Uint8Array>()
  const ctx = {
    sm: stateAt(env.db, env.common, base.header.stateRoot),
    baseCommon: env.common,
    validate: req.validation,
    tracer: new SimulationTracer(req.traceTransfers),
    gasPool: { remaining: env.gasCap === 0n ? (1n << 64n) - 1n : env.gasCap },
    hashOf: (n: bigint) => simulated.get(n) ?? (n <= base.header.number ? env.store.getHashByNumber(n) : undefined),
    depositContract: env.depositContract,
  }
  const template = {
    coinbase: base.header.coinbase.bytes,
    gasLimit: base.header.gasLimit,
    difficulty: base.header.difficulty,
  }
  const results: SimulatedBlock[] = []
  let parent = base.header
  let parentHash = base.hash
  for (const { block, overrides } of blocks) {
    if (overrides.gasLimit !== undefined) template.gasLimit = overrides.gasLimit
    if (overrides.feeRecipient !== undefined) template.coinbase = overrides.feeRecipient
    if (overrides.difficulty !== undefined) template.difficulty = overrides.difficulty
    ctx.tracer.newBlock()
    const result = await processBlock(ctx, block, overrides, template, parent, parentHash)
    simulated.set(overrides.number, result.hash)
    results.push(result)
    parent = result.header
    parentHash = result.hash
  }
  return results
}

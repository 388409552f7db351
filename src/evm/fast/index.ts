/**
 * The fast interpreter: a lean, exact EVM for plain eth_call messages (fee-less, a `to`, no access
 * list), run synchronously on the state at the block's root instead of through ethereumjs' async
 * interpreter, journal and trie walker — which cost most of a view call.
 *
 *   runMessage (runMessage.ts) ─▶ fast layer: intrinsic gas ─▶ fastCall ─┬─ answer ─▶ CallOutcome
 *                                                                        └─ undefined ─▶ ethereumjs layer: checkpoint ─▶ runTx ─▶ revert
 *   (the fast layer runs outside the CallState's checkpoint: it never writes ethereumjs' state,
 *   and it checks the EVM deadline itself)
 *   fastCall ─▶ World (world.ts: root's flat read caches ─miss─▶ src/state/trieLookup.ts; own writes + journal)
 *            ─▶ message (calls.ts) ─▶ runFrame (interpreter.ts, ops.ts) ─▶ nested messages …
 *
 * What must always hold:
 * - Exactness: the same return data, success / revert / error and gas as ethereumjs gives for the
 *   message (src/evm/fast/*.test.ts compare them). Static fees and which opcodes exist come from
 *   the EVM's own opcode table; gas parameters from its Common; ethereumjs' order of checks is
 *   followed so the same error is reported.
 * - Bail out before answering (return undefined; nothing was written anywhere) on anything not
 *   implemented: a fork other than Cancun or Prague (or with later EIPs), CREATE, CREATE2,
 *   SELFDESTRUCT or any other opcode not implemented, async precompiles (KZG, BLS), EIP-7702
 *   delegated code, EOF code read by EXTCODE*, missing base fee, blob base fee or block hash,
 *   a trie node or code missing from the database, more gas than MAX_FAST_GAS, JS stack exhaustion
 *   in very deep call chains.
 * - Nothing is ever written to the database or to the shared read caches except values AT the
 *   root (which is what those caches hold).
 * - A call checks the EVM deadline (src/evm/deadline.ts) every DEADLINE_CHECK_OPS opcodes and throws
 *   its EvmDeadlineError, which passes through to the task like ethereumjs' does.
 */
import type { BlockHeader } from '@ethereumjs/block'
import type { EVM } from '@ethereumjs/evm'
import type { Database } from '../../db/db.js'
import type { ChainStore } from '../../chain/store.js'
import { isDelegation, lastError, lastGasLeft, lastOutput, message, ST_PRECOMPILE_ERROR } from './calls.js'
import { ST_OK, ST_REVERT, STATUS_ERRORS } from './frame.js'
import type { BlockEnv, CallContext } from './interpreter.js'
import { rulesFor } from './rules.js'
import { addressKey, BailOut, bytesToWord, World } from './world.js'

export { BailOut } from './world.js'

/**
 * Most gas a fast call may carry: keeps every gas and memory-cost value an exact integer in a
 * double (memory of 2^32 bytes costs 2^45 gas, far above it). Calls above it take ethereumjs.
 */
export const MAX_FAST_GAS = 1n << 40n

/** Calls answered here and calls handed back to ethereumjs (for tests and diagnostics). */
export const fastCallStats = { answered: 0, bailed: 0, lastBailReason: '' }

export interface FastCallParams {
  evm: EVM
  db: Database
  store: ChainStore
  /** State root the call reads. */
  stateRoot: Uint8Array
  /** The header of the block the call runs in. */
  header: BlockHeader
  /** BASEFEE reads 0 (a fee-less call, as geth runs it) instead of the header's base fee. */
  zeroBaseFee: boolean
  from: Uint8Array
  to: Uint8Array
  value: bigint
  data: Uint8Array
  /** Gas for execution: the message's gas less its intrinsic gas. */
  gas: bigint
}

export interface FastCallResult {
  returnValue: Uint8Array
  executionGasUsed: bigint
  /** The ethereumjs error string (undefined on success), as evm.runCall reports it. */
  error: string | undefined
}

/** Block environments by header: [as the header says, with a zero base fee]. */
const envs = new WeakMap<BlockHeader, [BlockEnv | undefined, BlockEnv | undefined]>()

function blockEnv(h: BlockHeader, zeroBaseFee: boolean, chainId: bigint): BlockEnv {
  let pair = envs.get(h)
  if (pair === undefined) {
    pair = [undefined, undefined]
    envs.set(h, pair)
  }
  const i = zeroBaseFee ? 1 : 0
  let env = pair[i]
  if (env === undefined) {
    let blobBaseFee: bigint | undefined
    try {
      blobBaseFee = h.getBlobGasPrice()
    } catch {
      blobBaseFee = undefined
    }
    env = {
      number: h.number,
      timestamp: h.timestamp,
      coinbase: bytesToWord(h.coinbase.bytes),
      prevRandao: bytesToWord(h.prevRandao),
      gasLimit: h.gasLimit,
      baseFee: h.baseFeePerGas === undefined ? undefined : zeroBaseFee ? 0n : h.baseFeePerGas,
      blobBaseFee,
      chainId,
    }
    pair[i] = env
  }
  return env
}

/** Runs the message, or returns undefined (bail out: run it through ethereumjs). */
export function fastCall(p: FastCallParams): FastCallResult | undefined {
  if (p.gas > MAX_FAST_GAS || p.gas < 0n) return undefined
  const rules = rulesFor(p.evm)
  if (rules === null) return undefined
  try {
    const result = run(p, rules)
    fastCallStats.answered++
    return result
  } catch (e) {
    if (e instanceof BailOut || e instanceof RangeError) {
      fastCallStats.bailed++
      fastCallStats.lastBailReason = e.message
      return undefined
    }
    throw e
  }
}

function run(p: FastCallParams, rules: NonNullable<ReturnType<typeof rulesFor>>): FastCallResult {
  // the precompiles are warm from the start: the world knows them without inserting them
  const world = new World(p.db, p.stateRoot, rules.precompiles)
  const fromWord = bytesToWord(p.from)
  const toWord = bytesToWord(p.to)
  const fromKey = addressKey(fromWord)
  const toKey = addressKey(toWord)
  world.warmForever(fromKey)
  world.warmForever(toKey)
  const env = blockEnv(p.header, p.zeroBaseFee, rules.chainId)
  if (rules.warmCoinbase) world.warmForever(addressKey(env.coinbase))
  // as runTx: a sender with code (a contract, an EIP-7702 account) has its nonce bumped (an EOA's is not observable)
  const sender = world.account(fromKey)
  if (world.code(sender).length > 0) world.setNonce(sender, sender.nonce + 1n)
  const target = world.account(toKey)
  if (isDelegation(world.code(target))) throw new BailOut('call to an EIP-7702 delegated account')
  const ctx: CallContext = { world, rules, env, origin: fromWord, evm: p.evm, store: p.store }
  const gas = Number(p.gas)
  const status = message(ctx, 0, fromWord, fromKey, toKey, toWord, toKey, p.value, true, p.data, false, gas)
  const used = BigInt(gas - lastGasLeft)
  if (status === ST_OK) return { returnValue: lastOutput, executionGasUsed: used, error: undefined }
  if (status === ST_REVERT) return { returnValue: lastOutput, executionGasUsed: used, error: 'revert' }
  const error = status === ST_PRECOMPILE_ERROR ? lastError : (STATUS_ERRORS[status] as string)
  return { returnValue: new Uint8Array(0), executionGasUsed: used, error }
}

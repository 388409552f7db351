/**
 * One simulated block (geth simulator.processBlock): header fields that follow from the parent
 * (base fee, excess blob gas), state overrides, the pre-block system calls, each call checked
 * and run in order against the block's gas limit and the request's gas pool, then finalization
 * and a real header — roots, bloom, requests hash — whose keccak256 is the block hash.
 */
import { type BlockHeader, createBlockHeader } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import { type EVM, getActivePrecompiles } from '@ethereumjs/evm'
import { RLP } from '@ethereumjs/rlp'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import { Address, bigIntToUnpaddedBytes } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import { BLOOM_BYTES, logsBloom, orBloom } from '../chain/bloom.js'
import { encodeConsensusReceipt, type LogTuple, type StoredReceipt } from '../chain/receipt.js'
import { EMPTY_UNCLES_HASH, orderedTrieRoot } from '../chain/trieRoot.js'
import { keccak256 } from '../util/crypto.js'
import { classifyTxError, gethVmError } from '../evm/errors.js'
import { replacePrecompiles, warmOnFirstUse } from '../evm/patches.js'
import { runTransaction } from '../evm/runMessage.js'
import { applyPreBlockSystemCalls } from '../evm/systemCalls.js'
import { envBlock, newVM } from '../evm/vm.js'
import { SIM_ERROR, SimulationError } from './errors.js'
import { creditWithdrawals, payBlockReward, requestsHash } from './finalize.js'
import { admitMessage, callMessage, type PreparedCall } from './message.js'
import { applyStateOverrides } from './overrides.js'
import type { IndexedLog, SimulationTracer } from './tracer.js'
import type { BlockOverrides, SimBlock } from './types.js'

const MAX_UINT64 = (1n << 64n) - 1n
/** geth's note on a failed call whose gas the request's gas budget lowered. */
const GAS_CAPPED_NOTE = " (gas limit was capped by the RPC server's global gas cap)"

export interface SimulatedCall {
  returnData: Uint8Array
  logs: IndexedLog[]
  gasUsed: bigint
  maxUsedGas: bigint
  status: 0 | 1
  /** Why the call failed: reverted (with its data) or a VM error; rpc/errors.ts gives the code. */
  error: { kind: 'reverted' | typeof SIM_ERROR.vmError; message: string; data?: Uint8Array } | undefined
}

export interface SimulatedBlock {
  hash: Uint8Array
  header: BlockHeader
  headerRaw: Uint8Array[]
  prepared: PreparedCall[]
  withdrawals: Uint8Array[][]
  calls: SimulatedCall[]
  size: number
}

/** What processBlock needs from the simulation (shared across its blocks). */
export interface SimContext {
  sm: MerkleStateManager
  baseCommon: Common
  validate: boolean
  tracer: SimulationTracer
  /** Gas left in the request's pool (geth: the RPC gas cap, shared by all calls). */
  gasPool: { remaining: bigint }
  /** Block hash by number, for BLOCKHASH (canonical below the base, simulated above). */
  hashOf(n: bigint): Uint8Array | undefined
  depositContract: Uint8Array
}

/** The header fields a simulated block starts from (geth makeHeaders): carried over from the previous one. */
export interface HeaderTemplate {
  coinbase: Uint8Array
  gasLimit: bigint
  difficulty: bigint
}

function blockSource(ctx: SimContext) {
  const source = {
    async getBlock(n: number) {
      const hash = ctx.hashOf(BigInt(n))
      if (hash === undefined) throw new Error(`block ${n} not found`)
      return { hash: () => hash }
    },
    shallowCopy: () => source,
  }
  return source
}

export async function processBlock(
  ctx: SimContext,
  block: SimBlock,
  overrides: BlockOverrides & { number: bigint; time: bigint },
  template: HeaderTemplate,
  parent: BlockHeader,
  parentHash: Uint8Array,
): Promise<SimulatedBlock> {
  const common = ctx.baseCommon.copy()
  common.setHardforkBy({ blockNumber: overrides.number, timestamp: overrides.time })
  const london = common.isActivatedEIP(1559)
  const cancun = common.isActivatedEIP(4844)
  let baseFee: bigint | undefined
  if (london) {
    baseFee = overrides.baseFeePerGas ?? (ctx.validate ? nextBaseFee(parent, common) : 0n)
  }
  const excessBlobGas = cancun
    ? parent.common.isActivatedEIP(4844)
      ? parent.calcNextExcessBlobGas(common)
      : 0n
    : undefined
  // geth's simulated blocks have a zero parent beacon root (its header builder ignores the override)
  const beaconRoot = cancun ? new Uint8Array(32) : undefined
  const withdrawals = common.isActivatedEIP(4895) ? (overrides.withdrawals ?? []) : undefined
  const fields = {
    parentHash,
    uncleHash: EMPTY_UNCLES_HASH,
    coinbase: new Address(template.coinbase),
    difficulty: template.difficulty,
    number: overrides.number,
    gasLimit: template.gasLimit,
    timestamp: overrides.time,
    extraData: new Uint8Array(0),
    mixHash: overrides.prevRandao ?? new Uint8Array(32),
    nonce: new Uint8Array(8),
    ...(baseFee !== undefined ? { baseFeePerGas: baseFee } : {}),
    ...(excessBlobGas !== undefined ? { excessBlobGas, blobGasUsed: 0n } : {}),
    ...(beaconRoot !== undefined ? { parentBeaconBlockRoot: beaconRoot } : {}),
  }
  const headerOpts = { common, skipConsensusFormatValidation: true, setHardfork: false }
  /** The block the EVM sees; a blob base fee override replaces the one from excessBlobGas. */
  const makeEnv = (extra: { baseFeePerGas?: bigint }) => {
    const h = createBlockHeader({ ...fields, ...extra }, { ...headerOpts, freeze: false })
    if (overrides.blobBaseFee !== undefined) h.getBlobGasPrice = () => overrides.blobBaseFee as bigint
    return envBlock(h)
  }
  const env = makeEnv({})
  const blobBaseFee = cancun ? env.header.getBlobGasPrice() : undefined
  let zeroFeeEnv: ReturnType<typeof envBlock> | undefined

  const precompiles = new Map(getActivePrecompiles(common))
  // geth warms the fork's precompile addresses, moved or not
  const warmPrecompiles = [...precompiles.keys()]
  await applyStateOverrides(ctx.sm, block.stateOverrides, precompiles)
  // biome-ignore lint/suspicious/noExplicitAny: the EVM only calls getBlock/shallowCopy
  const vm = await newVM({ common, stateManager: ctx.sm, blockchain: blockSource(ctx) as any })
  replacePrecompiles(vm.evm as EVM, precompiles)
  await applyPreBlockSystemCalls(ctx.sm, common, overrides.number, overrides.time, parentHash, beaconRoot)

  const prepared: PreparedCall[] = []
  const calls: SimulatedCall[] = []
  const receipts: StoredReceipt[] = []
  const receiptLogs: LogTuple[] = []
  let gasUsed = 0n
  let blobGasUsed = 0n
  for (const call of block.calls) {
    const from = call.from ?? new Uint8Array(20)
    const nonce = call.nonce ?? (await ctx.sm.getAccount(new Address(from)))?.nonce ?? 0n
    // geth sanitizeCall: the block's gas left is the default and the most a call may ask for
    const remaining = template.gasLimit - gasUsed
    const required = call.gas ?? remaining
    if (remaining < required) {
      throw new SimulationError(
        SIM_ERROR.blockGasLimitReached,
        `block gas limit reached: remaining: ${remaining}, required: ${required}`,
      )
    }
    // then the request's gas budget (the RPC gas cap, shared by all blocks) clamps it
    const gasCapped = ctx.gasPool.remaining < required
    const gas = gasCapped ? ctx.gasPool.remaining : required
    const m = callMessage(call, { chainId: common.chainId(), gas, nonce, baseFee })
    const p = await admitMessage(ctx.sm, m, { common, validate: ctx.validate, baseFee, blobBaseFee })
    let runEnv = env
    if (!ctx.validate && p.feeCap === 0n && p.tipCap === 0n && baseFee !== undefined && baseFee > 0n) {
      zeroFeeEnv ??= makeEnv({ baseFeePerGas: 0n })
      runEnv = zeroFeeEnv
    }
    const result = await runCall(vm, ctx, p, runEnv, gasUsed, warmPrecompiles)
    gasUsed += result.totalGasSpent
    blobGasUsed += p.blobGas
    ctx.gasPool.remaining -= result.totalGasSpent
    const failed = result.execResult.exceptionError
    const logs = (result.execResult.logs ?? []) as LogTuple[]
    const indexed = ctx.tracer.traceTransfers ? ctx.tracer.logs() : ctx.tracer.takeReceiptLogs(logs)
    receiptLogs.push(...logs)
    receipts.push(receiptOf(p, result, gasUsed))
    prepared.push(p)
    calls.push({
      // geth's ExecutionResult.Return(): nothing when the call failed
      returnData: failed === undefined ? result.execResult.returnValue : new Uint8Array(0),
      logs: indexed,
      gasUsed: result.totalGasSpent,
      maxUsedGas: peakGas(result),
      status: failed === undefined ? 1 : 0,
      error:
        failed === undefined
          ? undefined
          : failed.error === 'revert'
            ? { kind: 'reverted', message: 'execution reverted', data: result.execResult.returnValue }
            : { kind: SIM_ERROR.vmError, message: gethVmError(failed.error) + (gasCapped ? GAS_CAPPED_NOTE : '') },
    })
  }

  if (withdrawals !== undefined) await creditWithdrawals(ctx.sm, withdrawals)
  const reqHash = common.isActivatedEIP(7685)
    ? await requestsHash(vm, ctx.sm, receiptLogs, ctx.depositContract, env)
    : undefined
  await payBlockReward(ctx.sm, common, template.coinbase)
  const stateRoot = await ctx.sm.getStateRoot()
  const bloom = new Uint8Array(BLOOM_BYTES)
  for (const r of receipts) orBloom(bloom, logsBloom(r.logs))
  const txBytes = prepared.map((p) => p.tx.serialize())
  const withdrawalsRaw = (withdrawals ?? []).map((w) => [
    bigIntToUnpaddedBytes(w.index),
    bigIntToUnpaddedBytes(w.validatorIndex),
    w.address,
    bigIntToUnpaddedBytes(w.amount),
  ])
  const header = createBlockHeader(
    {
      ...fields,
      stateRoot,
      transactionsTrie: await orderedTrieRoot(txBytes),
      receiptTrie: await orderedTrieRoot(receipts.map((r) => encodeConsensusReceipt(r, logsBloom(r.logs)))),
      logsBloom: bloom,
      gasUsed,
      ...(cancun ? { blobGasUsed } : {}),
      ...(withdrawals !== undefined
        ? { withdrawalsRoot: await orderedTrieRoot(withdrawalsRaw.map((w) => RLP.encode(w))) }
        : {}),
      ...(reqHash !== undefined ? { requestsHash: reqHash } : {}),
    },
    headerOpts,
  )
  const headerRaw = header.raw()
  const body: unknown[] = [headerRaw, txBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t)), []]
  if (withdrawals !== undefined) body.push(withdrawalsRaw)
  return {
    hash: keccak256(RLP.encode(headerRaw)),
    header,
    headerRaw,
    prepared,
    withdrawals: withdrawalsRaw,
    calls,
    size: RLP.encode(body as never).length,
  }
}

function nextBaseFee(parent: BlockHeader, common: Common): bigint {
  // the first London block starts at the initial base fee
  if (!parent.common.isActivatedEIP(1559)) return common.param('initialBaseFee')
  return parent.calcNextBaseFee()
}

/**
 * Runs one prepared call (runMessage.ts, SIMULATE rules: geth's simulator never checks that the
 * sender is an EOA), with the fork's precompiles warm from the start.
 */
async function runCall(
  vm: VM,
  ctx: SimContext,
  p: PreparedCall,
  env: ReturnType<typeof envBlock>,
  gasUsed: bigint,
  warm: string[],
): Promise<RunTxResult> {
  const sm = ctx.sm
  const sender = new Address(p.from)
  const unwarm = warmOnFirstUse(vm.evm as EVM, warm)
  ctx.tracer.reset()
  const detach = ctx.tracer.traceTransfers ? ctx.tracer.attach(vm.evm as EVM) : undefined
  try {
    // geth's buyGas was checked in admitMessage; runTx's own balance check is stricter for a
    // message without a blob fee cap (geth skips the cap but charges the blob base fee)
    const result = await runTransaction(vm, p.run, env, 'call', { blockGasUsed: gasUsed })
    // geth's nonce is a uint64 that wraps
    const account = await sm.getAccount(sender)
    if (account !== undefined && account.nonce > MAX_UINT64) {
      account.nonce &= MAX_UINT64
      await sm.putAccount(sender, account)
    }
    return result
  } catch (err) {
    // geth's wording for what ethereumjs refused; its own text stays out of the answer
    const why = classifyTxError(err, p.run, env.header.baseFeePerGas).shortMessage
    throw new SimulationError(SIM_ERROR.internal, `err: ${why} (supplied gas ${p.gas})`)
  } finally {
    unwarm()
    detach?.()
  }
}

function receiptOf(p: PreparedCall, result: RunTxResult, cumulative: bigint): StoredReceipt {
  const r = result.receipt as { stateRoot?: Uint8Array; status?: 0 | 1 }
  return {
    type: p.tx.type,
    status: r.stateRoot !== undefined ? undefined : (r.status ?? 0),
    root: r.stateRoot,
    cumulativeGasUsed: cumulative,
    gasUsed: result.totalGasSpent,
    logs: (result.execResult.logs ?? []) as LogTuple[],
    from: p.from,
    contractAddress: result.createdAddress?.bytes,
    effectiveGasPrice: p.gasPrice,
    blobGasUsed: p.blobGas,
    blobGasPrice: 0n,
  }
}

/** Gas used before the refund (geth's ExecutionResult.MaxUsedGas). */
function peakGas(result: RunTxResult): bigint {
  const spent = result.totalGasSpent
  const refund = result.gasRefund ?? 0n
  if (refund === 0n) return spent
  // spent = before - min(refund, before / 5): find `before`
  if (4n * refund <= spent) return spent + refund
  let before = (spent * 5n) / 4n
  while (before - before / 5n < spent) before++
  while (before - before / 5n > spent) before--
  return before
}

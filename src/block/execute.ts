/**
 * The pieces of executing an IBFT block on our chain, shared by the BlockBuilder (which picks
 * transactions from the pool and skips what does not fit) and the IBFT block verifier
 * (src/consensus/ibftImport.ts, which must reproduce a proposed block exactly):
 *
 *   nextHeaderFields(parent, coinbase, timestamp, extraData, gasLimit)
 *     ─▶ executeTransactions: one state checkpoint around the block; pre-block system calls,
 *        each transaction in order (plain value transfers without the EVM: the transfers layer,
 *        transfers.ts; the rest through runMessage.ts's runTransaction under BLOCK rules),
 *        receipts, bloom, base fee to its recipient; the commit flushes the state manager's
 *        write caches to the trie once
 *     ─▶ finishHeader: state root, transactions / receipts roots (trieRoot.ts, one pass), bloom,
 *        gas used
 *
 * Both sides run this same code, so a block built by one validator verifies bit for bit on the
 * others.
 */
import { type BlockHeader, createBlockHeader, type HeaderData } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { MerkleStateManager } from '@ethereumjs/statemanager'
import type { TypedTransaction } from '@ethereumjs/tx'
import { Address, createAccount } from '@ethereumjs/util'
import type { RunTxResult, VM } from '@ethereumjs/vm'
import { BLOOM_BYTES, logsBloom, orBloom } from '../chain/bloom.js'
import { encodeConsensusReceipt, type LogTuple, type StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock } from '../chain/store.js'
import { EMPTY_UNCLES_HASH, orderedTrieRoot } from '../chain/trieRoot.js'
import { IBFT_MIX_HASH } from '../chain/ibft/index.js'
import { effectiveGasPrice } from '../chain/fees.js'
import { runTransaction } from '../evm/runMessage.js'
import { applyPreBlockSystemCalls } from '../evm/systemCalls.js'
import { applyTransfer, TRANSFER_GAS, transfersApply } from './transfers.js'
import { ActivityCollector } from './activity.js'
import type { TxActivity } from '../chain/explorerIndex.js'
import { envBlock } from '../evm/vm.js'

const ZERO_HASH = new Uint8Array(32)

/** What varies between blocks on top of one parent: everything else follows from the parent and the fork. */
export interface BlockChoice {
  coinbase: Uint8Array
  timestamp: bigint
  /** Unsealed extraData (seals and round empty). */
  extraData: Uint8Array
  gasLimit: bigint
}

/** The header fields of the next block before execution (roots, bloom and gas used come after). */
export function nextHeaderFields(parent: ChainBlock, common: Common, choice: BlockChoice): HeaderData {
  const baseFee = common.isActivatedEIP(1559) ? parent.header.calcNextBaseFee() : undefined
  return {
    parentHash: parent.hash,
    uncleHash: EMPTY_UNCLES_HASH,
    coinbase: new Address(choice.coinbase),
    number: parent.header.number + 1n,
    gasLimit: choice.gasLimit,
    timestamp: choice.timestamp,
    extraData: choice.extraData,
    mixHash: IBFT_MIX_HASH,
    difficulty: 1n,
    nonce: new Uint8Array(8),
    ...(baseFee !== undefined ? { baseFeePerGas: baseFee } : {}),
    ...(common.isActivatedEIP(4844) ? { blobGasUsed: 0n, excessBlobGas: 0n } : {}),
    ...(common.isActivatedEIP(4788) ? { parentBeaconBlockRoot: ZERO_HASH } : {}),
  }
}

/** The options every header of ours is created with (IBFT headers fail the beacon-chain checks). */
export function headerOptions(common: Common) {
  return { common, skipConsensusFormatValidation: true, setHardfork: false }
}

/** A transaction to run, with its (already recovered) sender. */
export interface ExecTx {
  tx: TypedTransaction
  sender: Uint8Array
  senderHex: string
}

export interface ExecutedTxs<T extends ExecTx> {
  included: T[]
  /** Skipped as invalid (only when not strict). */
  dropped: { ptx: T; reason: string }[]
  receipts: StoredReceipt[]
  bloom: Uint8Array
  gasUsed: bigint
  /** What each included transaction touched (the explorer indexes), when ExecuteOptions.activity asked for it. */
  activity: TxActivity[] | undefined
}

export interface ExecuteOptions {
  /** true: every transaction must run (verifying a block); false: skip what does not fit or fails (building). */
  strict: boolean
  /** When set, the EIP-1559 base fee is credited to this address instead of burned. */
  baseFeeRecipient: Uint8Array | undefined
  /**
   * The transfers layer (transfers.ts: plain value transfers without the EVM); default true,
   * false to compare (blockExec.test.ts, bench/block-exec.ts: 3,882 vs 2,314 tx/s built).
   */
  fastTransfers?: boolean
  /**
   * Record each transaction's activity (call-frame addresses, creations, revert output) for the
   * explorer indexes (src/block/activity.ts): one listener call per call frame.
   */
  activity?: boolean
}

/**
 * executeTransactions runs the block body on `sm` (through `vm`): pre-block system calls, the
 * transactions in order, then the base-fee credit. In strict mode the first transaction that
 * does not fit or fails to apply throws; otherwise it (and the rest of its sender's) is skipped.
 */
export async function executeTransactions<T extends ExecTx>(
  vm: VM,
  sm: MerkleStateManager,
  common: Common,
  fields: HeaderData,
  items: readonly T[],
  opts: ExecuteOptions,
): Promise<ExecutedTxs<T>> {
  const header = createBlockHeader(fields, headerOptions(common))
  const env = envBlock(header)
  // one checkpoint across the block (as ethereumjs' runBlock): the state manager's write caches
  // reach the trie once, at the commit below, instead of after every transaction
  await sm.checkpoint()
  try {
    const out = await executeBody(vm, sm, common, fields, env, items, opts)
    await sm.commit()
    return out
  } catch (err) {
    await sm.revert()
    throw err
  }
}

async function executeBody<T extends ExecTx>(
  vm: VM,
  sm: MerkleStateManager,
  common: Common,
  fields: HeaderData,
  env: ReturnType<typeof envBlock>,
  items: readonly T[],
  opts: ExecuteOptions,
): Promise<ExecutedTxs<T>> {
  const number = fields.number as bigint
  const timestamp = fields.timestamp as bigint
  const baseFee = fields.baseFeePerGas as bigint | undefined
  await applyPreBlockSystemCalls(
    sm,
    common,
    number,
    timestamp,
    fields.parentHash as Uint8Array,
    fields.parentBeaconBlockRoot as Uint8Array | undefined,
  )

  const out: ExecutedTxs<T> = {
    included: [],
    dropped: [],
    receipts: [],
    bloom: new Uint8Array(BLOOM_BYTES),
    gasUsed: 0n,
    activity: opts.activity === true ? [] : undefined,
  }
  const collector = opts.activity === true ? new ActivityCollector() : undefined
  collector?.attach(vm.evm)
  try {
    await executeEach(vm, sm, common, fields, env, items, opts, out, collector)
  } finally {
    collector?.detach()
  }
  if (opts.baseFeeRecipient !== undefined && baseFee !== undefined && out.gasUsed > 0n) {
    const recipient = new Address(opts.baseFeeRecipient)
    const account = (await sm.getAccount(recipient)) ?? createAccount({})
    account.balance += baseFee * out.gasUsed
    await sm.putAccount(recipient, account)
  }
  return out
}

async function executeEach<T extends ExecTx>(
  vm: VM,
  sm: MerkleStateManager,
  common: Common,
  fields: HeaderData,
  env: ReturnType<typeof envBlock>,
  items: readonly T[],
  opts: ExecuteOptions,
  out: ExecutedTxs<T>,
  collector: ActivityCollector | undefined,
): Promise<void> {
  const gasLimit = fields.gasLimit as bigint
  const baseFee = fields.baseFeePerGas as bigint | undefined
  const blocked = new Set<string>()
  const coinbase = fields.coinbase as Address
  const fast = opts.fastTransfers !== false && baseFee !== undefined && transfersApply(common)
  for (let i = 0; i < items.length; i++) {
    const ptx = items[i] as T
    if (blocked.has(ptx.senderHex)) continue
    if (ptx.tx.gasLimit > gasLimit - out.gasUsed) {
      if (opts.strict)
        throw new Error(
          `transaction ${out.included.length} does not fit: gas limit ${ptx.tx.gasLimit}, ${gasLimit - out.gasUsed} left`,
        )
      blocked.add(ptx.senderHex) // a later nonce of this sender cannot go before it
      continue
    }
    if (fast && (await applyTransfer(vm, sm, ptx.tx, new Address(ptx.sender), coinbase, baseFee as bigint))) {
      out.gasUsed += TRANSFER_GAS
      out.receipts.push({
        type: ptx.tx.type,
        status: 1,
        root: undefined,
        cumulativeGasUsed: out.gasUsed,
        gasUsed: TRANSFER_GAS,
        logs: [],
        from: ptx.sender,
        contractAddress: undefined,
        effectiveGasPrice: effectiveGasPrice(ptx.tx, baseFee as bigint),
        blobGasUsed: 0n,
        blobGasPrice: 0n,
      })
      out.included.push(ptx)
      out.activity?.push({
        touched: [ptx.sender, ...(ptx.tx.to ? [ptx.tx.to.bytes] : [])],
        created: [],
        revertOutput: undefined,
      })
      continue
    }
    collector?.begin()
    let result: RunTxResult
    try {
      result = await runTransaction(vm, ptx.tx, env, 'block', { blockGasUsed: out.gasUsed })
    } catch (err) {
      const reason = err instanceof Error ? (err.message.split('\n')[0] as string) : String(err)
      if (opts.strict) throw new Error(`transaction ${out.included.length} is invalid: ${reason}`)
      blocked.add(ptx.senderHex)
      out.dropped.push({ ptx, reason })
      continue
    }
    out.gasUsed += result.totalGasSpent
    const logs = (result.execResult.logs ?? []) as LogTuple[]
    const status = result.execResult.exceptionError === undefined ? 1 : 0
    out.receipts.push(
      receiptOf(ptx, status, result.totalGasSpent, out.gasUsed, logs, result.createdAddress?.bytes, baseFee),
    )
    orBloom(out.bloom, logsBloom(logs))
    out.included.push(ptx)
    out.activity?.push((collector as ActivityCollector).end(result))
  }
}

function receiptOf(
  ptx: ExecTx,
  status: 0 | 1,
  gasUsed: bigint,
  cumulativeGasUsed: bigint,
  logs: LogTuple[],
  contractAddress: Uint8Array | undefined,
  baseFee: bigint | undefined,
): StoredReceipt {
  return {
    type: ptx.tx.type,
    status,
    root: undefined,
    cumulativeGasUsed,
    gasUsed,
    logs,
    from: ptx.sender,
    contractAddress,
    effectiveGasPrice: baseFee === undefined ? txGasPrice(ptx.tx) : effectiveGasPrice(ptx.tx, baseFee),
    blobGasUsed: 0n,
    blobGasPrice: 0n,
  }
}

/** finishHeader completes `fields` with the state root and what the execution produced. */
export async function finishHeader(
  sm: MerkleStateManager,
  common: Common,
  fields: HeaderData,
  executed: ExecutedTxs<ExecTx>,
): Promise<{ header: BlockHeader; transactionBytes: Uint8Array[] }> {
  const stateRoot = await sm.getStateRoot()
  const receiptItems = executed.receipts.map((r) => encodeConsensusReceipt(r, logsBloom(r.logs)))
  const transactionBytes = executed.included.map((p) => p.tx.serialize())
  const header = createBlockHeader(
    {
      ...fields,
      stateRoot,
      transactionsTrie: await orderedTrieRoot(transactionBytes),
      receiptTrie: await orderedTrieRoot(receiptItems),
      logsBloom: executed.bloom,
      gasUsed: executed.gasUsed,
    },
    headerOptions(common),
  )
  return { header, transactionBytes }
}

function txGasPrice(tx: TypedTransaction): bigint {
  return (tx as { gasPrice?: bigint }).gasPrice ?? 0n
}

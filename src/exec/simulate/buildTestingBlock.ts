/**
 * testing_buildBlockV1 (geth eth/catalyst/api_testing.go): the block this node would build on its
 * head from the given transactions, executed by the block executor the sealer uses
 * (src/block/execute.ts) on a throw-away state overlay — never sealed, committed or announced —
 * and answered in geth's ExecutionPayloadEnvelope shape. Runs on a call worker (src/exec/pool).
 *
 *   head ─▶ header fields (IBFT: parent's validators, extraData as the vanity) ─▶ pre-block
 *   system calls ─▶ transactions (given: every one must apply; from the pool: what fails is left
 *   out, as geth's miner does) ─▶ roots ─▶ { executionPayload, blockValue, blobsBundle, … }
 *
 * Where an IBFT chain cannot follow a payload attribute: `prevRandao` does not become the mixHash
 * (an IBFT header's mixHash is the IBFT digest, which PREVRANDAO then reads), and `extraData`
 * (geth: at most 32 bytes, the header's whole extraData) becomes the IBFT vanity, left-aligned
 * and zero-padded, with the parent's validator list after it. `blockHash` is the IBFT hash, the
 * one the block would keep once sealed.
 */
import type { Common } from '@ethereumjs/common'
import { createTxFromRLP, type TypedTransaction } from '@ethereumjs/tx'
import { effectiveTip } from '../../chain/fees.js'
import { decodeExtra, encodeExtra, ibftBlockHash, VANITY_BYTES } from '../../chain/ibft/index.js'
import type { ChainBlock } from '../../chain/store.js'
import { executeTransactions, finishHeader, nextHeaderFields, type ExecTx } from '../../block/execute.js'
import type { Database } from '../../db/db.js'
import { createChainVM } from '../../evm/vm.js'
import type { ChainStore } from '../../chain/store.js'
import { createStateManager, TrieStore } from '../../state/index.js'
import { IbexError } from '../../util/errors.js'
import { toData, toQuantity } from '../../util/hex.js'

/** geth's params.MaximumExtraDataSize: what a header's extraData may hold (here: the IBFT vanity). */
export const MAX_TESTING_EXTRA_BYTES = VANITY_BYTES

/** What testing_buildBlockV1 asks for, decoded (plain data: it crosses to a worker). */
export interface TestingBlockRequest {
  parentHash: Uint8Array
  timestamp: bigint
  /** `payloadAttributes.suggestedFeeRecipient`: the block's coinbase. */
  feeRecipient: Uint8Array
  /** `payloadAttributes.parentBeaconBlockRoot` (EIP-4788), when given. */
  beaconRoot: Uint8Array | undefined
  /** Signed transactions in their binary form; undefined: the pool's pending ones (`rawFromPool`). */
  transactions: Uint8Array[] | undefined
  /** The pool's pending transactions, best first, when `transactions` is undefined. */
  rawFromPool: Uint8Array[]
  extraData: Uint8Array
  /** `[miner] base_fee_recipient` of this node, as its sealer credits the base fee. */
  baseFeeRecipient: Uint8Array | undefined
}

/** A refusal of testing_buildBlockV1 (geth answers these as plain errors, -32000). */
export class TestingBuildError extends IbexError {
  readonly kind = 'testingBuild'
}

interface Env {
  db: Database
  store: ChainStore
  common: Common
}

function decodeTransactions(raws: Uint8Array[], common: Common, strict: boolean): ExecTx[] {
  const out: ExecTx[] = []
  for (let i = 0; i < raws.length; i++) {
    let tx: TypedTransaction
    let sender: Uint8Array
    try {
      tx = createTxFromRLP(raws[i] as Uint8Array, { common })
      sender = tx.getSenderAddress().bytes
    } catch (err) {
      // geth's engine.DecodeTransactions wording
      if (strict) throw new TestingBuildError(`transaction ${i} is not valid: ${(err as Error).message.split('\n')[0]}`)
      continue
    }
    out.push({ tx, sender, senderHex: toData(sender) })
  }
  return out
}

/** The envelope geth's engine.BlockToExecutableData makes of the built block. */
export async function buildTestingBlock(env: Env, parent: ChainBlock, req: TestingBlockRequest): Promise<unknown> {
  const { common: chainCommon, store, db } = env
  if (req.timestamp <= parent.header.timestamp) {
    throw new TestingBuildError(`invalid timestamp, parent ${parent.header.timestamp} given ${req.timestamp}`)
  }
  if (req.extraData.length > MAX_TESTING_EXTRA_BYTES) {
    throw new TestingBuildError(`invalid extradata length: ${req.extraData.length}, max ${MAX_TESTING_EXTRA_BYTES}`)
  }
  const common = chainCommon.copy()
  common.setHardforkBy({ blockNumber: parent.header.number + 1n, timestamp: req.timestamp })
  const parentExtra = decodeExtra(parent.header.extraData)
  const vanity = new Uint8Array(VANITY_BYTES)
  vanity.set(req.extraData)
  const extraData = encodeExtra({
    vanity,
    validators: parentExtra.validators,
    proposerSeal: new Uint8Array(0),
    committedSeals: [],
    parentCommittedSeals: parentExtra.committedSeals,
    round: 0n,
  })
  const fields = nextHeaderFields(parent, common, {
    coinbase: req.feeRecipient,
    timestamp: req.timestamp,
    extraData,
    gasLimit: parent.header.gasLimit,
  })
  if (req.beaconRoot !== undefined && common.isActivatedEIP(4788)) fields.parentBeaconBlockRoot = req.beaconRoot
  const strict = req.transactions !== undefined
  const items = decodeTransactions(req.transactions ?? req.rawFromPool, common, strict)

  const sm = createStateManager(new TrieStore(db), common, parent.header.stateRoot)
  const vm = await createChainVM(store, common, sm)
  let executed: Awaited<ReturnType<typeof executeTransactions<ExecTx>>>
  try {
    executed = await executeTransactions(vm, sm, common, fields, items, {
      strict,
      baseFeeRecipient: req.baseFeeRecipient,
    })
  } catch (err) {
    throw new TestingBuildError(err instanceof Error ? err.message : String(err), { cause: err })
  }
  const { header, transactionBytes } = await finishHeader(sm, common, fields, executed)
  const baseFee = header.baseFeePerGas ?? 0n
  let blockValue = 0n
  for (let i = 0; i < executed.included.length; i++) {
    const tx = (executed.included[i] as ExecTx).tx
    blockValue += effectiveTip(tx, baseFee) * (executed.receipts[i]?.gasUsed ?? 0n)
  }
  const shanghai = common.isActivatedEIP(4895)
  const cancun = common.isActivatedEIP(4844)
  return {
    executionPayload: {
      parentHash: toData(header.parentHash),
      feeRecipient: toData(header.coinbase.bytes),
      stateRoot: toData(header.stateRoot),
      receiptsRoot: toData(header.receiptTrie),
      logsBloom: toData(header.logsBloom),
      prevRandao: toData(header.mixHash),
      blockNumber: toQuantity(header.number),
      gasLimit: toQuantity(header.gasLimit),
      gasUsed: toQuantity(header.gasUsed),
      timestamp: toQuantity(header.timestamp),
      extraData: toData(header.extraData),
      baseFeePerGas: toQuantity(baseFee),
      blockHash: toData(ibftBlockHash(header.raw())),
      transactions: transactionBytes.map((b) => toData(b)),
      withdrawals: shanghai ? [] : null,
      blobGasUsed: cancun ? toQuantity(header.blobGasUsed ?? 0n) : null,
      excessBlobGas: cancun ? toQuantity(header.excessBlobGas ?? 0n) : null,
    },
    blockValue: toQuantity(blockValue),
    blobsBundle: { commitments: [], proofs: [], blobs: [] },
    executionRequests: common.isActivatedEIP(7685) ? [] : null,
    shouldOverrideBuilder: false,
  }
}

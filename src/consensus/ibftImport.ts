/**
 * Executing and verifying an IBFT block received from another validator — a proposal in a round
 * (proposer-sealed only) or a decided block from a peer (with its committed seals) — and
 * committing it the way the BlockBuilder commits its own.
 *
 *   RLP [header, txs, uncles, withdrawals?] ─▶ parent link, number, timestamp, gas limit,
 *   validators = parent's (spans off) or the committee of the block's span, a span record checked
 *   against our own validator set at its reference block (spans on: src/validators) ─▶ seals: proposer seal (proposal) or ≥ quorum committed seals over
 *   (hash, round) (decided block); parent committed seals ─▶ executeTransactions on a fresh state
 *   overlay (src/block/execute.ts, the builder's own code) ─▶ rebuilt header = received header
 *   (state root, receipts root, gas used, bloom, tx root, then every other field via the hash)
 *   ─▶ ExecutedBlock ─▶ IbftBlockImporter (ibftBlockImporter.ts): attach seals, ChainStore.commitBlock (one batch)
 *
 * Commits are serialized: a block is written only on top of the current head, so a block that
 * arrives twice (our own decision and a peer's announcement) is written once.
 */
import { createBlockHeaderFromBytesArray } from '@ethereumjs/block'
import type { Common } from '@ethereumjs/common'
import type { VM } from '@ethereumjs/vm'
import { RLP } from '@ethereumjs/rlp'
import { createTxFromBlockBodyData, type TypedTransaction } from '@ethereumjs/tx'
import { bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util'
import type { ChainBlock, ChainStore } from '../chain/store.js'
import {
  decodeExtra,
  hashWithExtra,
  IbftError,
  recoverProposerSeal,
  verifyCommittedSeals,
  verifySeals,
} from './ibft/index.js'
import { createStateManager, TrieStore, type WriterStateManager } from '../state/index.js'
import type { PoolTx } from '../txpool/index.js'
import type { ExecutedBlock } from './blockBuilder.js'
import { type ExecTx, executeTransactions, finishHeader, nextHeaderFields } from '../block/execute.js'
import { createChainVM } from '../evm/vm.js'
import type { IbftExtra } from '../chain/ibft/extra.js'
import {
  type Committee,
  committeeSigners,
  referenceBlock,
  type SpanCommittees,
  spanOf,
  type ValidatorSet,
  verifySpanRecord,
} from '../validators/index.js'

/** A proposal may be timestamped at most this far ahead of our clock (validators' clocks differ a little). */
export const IBFT_MAX_FUTURE_BLOCK_SECONDS = 5n
/** Rounds tried when a block's parent committed seals were made in another round than our copy of the parent says. */
export const IBFT_PARENT_SEAL_ROUND_SCAN = 16n

/** A received block that is not a valid next block. */
export class IbftBlockError extends Error {
  override name = 'IbftBlockError'
  constructor(number: bigint, hash: Uint8Array, reason: string, options?: { cause?: unknown }) {
    super(`block ${number} (${bytesToHex(hash)}): ${reason}`, options)
  }
}

type BodyItem = Uint8Array | Uint8Array[]
export type WireBlock = [Uint8Array[], BodyItem[], unknown[], Uint8Array[][]?]

/** What a received block must be checked against. */
export interface VerifyParams {
  /** 'proposal': only a proposer seal (by `proposer` when given); 'sealed': ≥ quorum committed seals. */
  kind: 'proposal' | 'sealed'
  /** Lowercase hex address that must have made the proposer seal (a fresh proposal). */
  proposer?: string
  /** Wall clock, seconds (for the future-timestamp bound of proposals). */
  nowSeconds?: bigint
}

export interface IbftImportOptions {
  store: ChainStore
  common: Common
  /** Where the base fee goes instead of being burned (genesis `baseFeeRecipient`). */
  baseFeeRecipient: Uint8Array | undefined
  /** Span committees (issue 19); absent when span_blocks = 0: one validator set, unweighted. */
  spans?: ImportSpans
  /**
   * A transaction the pool holds, by hash (lowercase 0x): its sender was recovered at admission
   * (the same signed bytes, so the same sender), and a block's transactions found here are not
   * recovered again. Absent: every sender is recovered.
   */
  pooled?(hashHex: string): PoolTx | undefined
}

/** What block import needs to follow span committees. */
export interface ImportSpans {
  chainId: bigint
  committees: SpanCommittees
  /** The validator set at a block (readValidatorSet over the exec pool's call lane). */
  readSet(blockHash: Uint8Array): Promise<ValidatorSet>
}

/**
 * committeeRules returns the validators and powers that must finalize block `number` (child of
 * `parent`) and of its parent, checking a span record the block carries (async: the set at R is
 * read from our own state). Throws IbftBlockError-worthy messages as Error.
 */
async function spanCommittee(
  spans: ImportSpans,
  store: ChainStore,
  number: bigint,
  extra: IbftExtra,
): Promise<{ own: Committee; parent: Committee | undefined }> {
  const own = spans.committees.committeeAt(number)
  if (own === undefined)
    throw new Error(`committee of block ${number} is unknown (the block before its span is missing)`)
  const parent = number - 1n === 0n ? undefined : spans.committees.committeeAt(number - 1n)
  if (extra.span !== undefined) {
    const S = spans.committees.params.spanBlocks
    const ref = store.getBlockByNumber(referenceBlock(spanOf(number, S) + 1n, S))
    if (ref === undefined) throw new Error('the span record names a reference block we do not have')
    verifySpanRecord({
      chainId: spans.chainId,
      params: spans.committees.params,
      height: number,
      record: extra.span,
      refBlockHash: ref.hash,
      set: await spans.readSet(ref.hash),
    })
  }
  return { own, parent }
}

/**
 * The state a block was executed on: its overlay, state manager and VM. After the block is
 * committed they stand at its state root with warm caches, and the importer executes the next
 * synced block on them (ExecutionState reuse: a fresh state manager allocates its LRU caches,
 * which cost more than executing a block of transfers).
 */
export interface ExecutionState {
  trie: TrieStore
  sm: WriterStateManager
  vm: VM
  /** The hardfork the VM was made for: a block of another one gets a fresh state. */
  hardfork: string
}

/** executeIbftBlock verifies `bytes` as the next block on `parent` and executes it; throws IbftBlockError. */
export async function executeIbftBlock(
  opts: IbftImportOptions,
  parent: ChainBlock,
  bytes: Uint8Array,
  params: VerifyParams,
): Promise<ExecutedBlock> {
  return (await executeIbftBlockOn(opts, parent, bytes, params, undefined)).executed
}

/**
 * executeIbftBlockOn is executeIbftBlock on `warm` when given (a state standing at the parent's
 * state root, for the same hardfork; else a fresh one), returning the state it used. On a throw
 * the state used may hold part of the block: the caller drops it.
 */
export async function executeIbftBlockOn(
  opts: IbftImportOptions,
  parent: ChainBlock,
  bytes: Uint8Array,
  params: VerifyParams,
  warm: ExecutionState | undefined,
): Promise<{ executed: ExecutedBlock; state: ExecutionState }> {
  let decoded: WireBlock
  try {
    decoded = RLP.decode(bytes) as unknown as WireBlock
    if (!Array.isArray(decoded) || !Array.isArray(decoded[0]) || !Array.isArray(decoded[1]))
      throw new Error('not [header, txs, uncles, …]')
  } catch (err) {
    throw new IbftBlockError(parent.header.number + 1n, new Uint8Array(0), `malformed: ${(err as Error).message}`, {
      cause: err,
    })
  }
  const headerRaw = decoded[0]
  const number = bytesToBigInt(headerRaw[8] ?? new Uint8Array(0))
  let hash: Uint8Array = new Uint8Array(32)
  const fail = (reason: string, cause?: unknown): never => {
    throw new IbftBlockError(number, hash, reason, { cause })
  }
  let extra: ReturnType<typeof decodeExtra>
  let header: ChainBlock['header']
  try {
    extra = decodeExtra(headerRaw[12] ?? new Uint8Array(0))
    hash = hashWithExtra(headerRaw, extra)
    header = createBlockHeaderFromBytesArray(headerRaw, {
      common: opts.common,
      setHardfork: true,
      skipConsensusFormatValidation: true,
    })
  } catch (err) {
    return fail(`malformed header: ${(err as Error).message}`, err)
  }
  const p = parent.header
  if (number !== p.number + 1n) fail(`not the next block (parent is ${p.number})`)
  if (!equalsBytes(header.parentHash, parent.hash))
    fail(`parent hash ${bytesToHex(header.parentHash)} is not ${bytesToHex(parent.hash)}`)
  if (header.timestamp <= p.timestamp) fail(`timestamp ${header.timestamp} not after the parent's ${p.timestamp}`)
  if (
    params.kind === 'proposal' &&
    params.nowSeconds !== undefined &&
    header.timestamp > params.nowSeconds + IBFT_MAX_FUTURE_BLOCK_SECONDS
  ) {
    fail(`timestamp ${header.timestamp} is in the future (now ${params.nowSeconds})`)
  }
  try {
    header.validateGasLimit(p)
  } catch (err) {
    fail((err as Error).message.split('\n')[0] as string, err)
  }
  let validators = decodeExtra(p.extraData).validators
  let powers: bigint[] | undefined
  let parentValidators = validators
  let parentPowers: bigint[] | undefined
  if (opts.spans !== undefined) {
    try {
      const c = await spanCommittee(opts.spans, opts.store, number, extra)
      validators = committeeSigners(c.own)
      powers = c.own.map((m) => m.power)
      if (c.parent !== undefined) {
        parentValidators = committeeSigners(c.parent)
        parentPowers = c.parent.map((m) => m.power)
      }
    } catch (err) {
      fail(`span: ${(err as Error).message}`, err)
    }
  } else if (extra.span !== undefined) fail('carries a span record, but spans are off on this node')
  if (
    extra.validators.length !== validators.length ||
    extra.validators.some((v, i) => !equalsBytes(v, validators[i] as Uint8Array))
  ) {
    fail(
      opts.spans === undefined
        ? 'validator set differs from the parent’s (validator changes are not supported)'
        : 'validators are not the committee of the block’s span',
    )
  }
  if ((decoded[2] ?? []).length > 0) fail('IBFT blocks have no uncles')
  if ((decoded[3]?.length ?? 0) > 0) fail('IBFT blocks have no withdrawals')
  try {
    if (params.kind === 'sealed') verifySeals(headerRaw, validators, powers)
    else {
      const proposer = bytesToHex(recoverProposerSeal(hash, extra.proposerSeal))
      if (params.proposer !== undefined && proposer !== params.proposer)
        fail(`proposer seal is by ${proposer}, not ${params.proposer}`)
      if (!validators.some((v) => bytesToHex(v) === proposer)) fail(`proposer ${proposer} is not a validator`)
    }
    verifyParentSeals(parent, extra.parentCommittedSeals, parentValidators, parentPowers)
  } catch (err) {
    if (err instanceof IbftBlockError) throw err
    fail((err as Error).message, err)
  }

  const common = header.common
  const hardfork = common.hardfork()
  const reuse =
    warm !== undefined && warm.hardfork === hardfork && equalsBytes(await warm.sm.getStateRoot(), p.stateRoot)
      ? warm
      : undefined
  const trie = reuse?.trie ?? new TrieStore(opts.store.db)
  const sm = reuse?.sm ?? createStateManager(trie, common, p.stateRoot)
  const vm = reuse?.vm ?? (await createChainVM(opts.store, common, sm))
  const items: ExecTx[] = []
  try {
    for (const t of decoded[1]) {
      const tx = createTxFromBlockBodyData(t, { common })
      const known = opts.pooled?.(bytesToHex(tx.hash()))
      if (known !== undefined) {
        primeSenderKey(tx, known.tx)
        items.push({ tx, sender: known.sender, senderHex: known.senderHex })
        continue
      }
      const sender = tx.getSenderAddress().bytes
      items.push({ tx, sender, senderHex: bytesToHex(sender) })
    }
  } catch (err) {
    fail(`undecodable transaction: ${(err as Error).message}`, err)
  }
  const choice = {
    coinbase: header.coinbase.bytes,
    timestamp: header.timestamp,
    extraData: header.extraData,
    gasLimit: header.gasLimit,
  }
  const fields = nextHeaderFields(parent, common, choice)
  let executed: Awaited<ReturnType<typeof executeTransactions<ExecTx>>>
  try {
    executed = await executeTransactions(vm, sm, common, fields, items, {
      strict: true,
      baseFeeRecipient: opts.baseFeeRecipient,
      activity: opts.store.wantsActivity,
    })
  } catch (err) {
    return fail((err as Error).message, err)
  }
  const rebuilt = (await finishHeader(sm, common, fields, executed)).header
  const compare: [string, Uint8Array | bigint, Uint8Array | bigint][] = [
    ['state root', rebuilt.stateRoot, header.stateRoot],
    ['receipts root', rebuilt.receiptTrie, header.receiptTrie],
    ['gas used', rebuilt.gasUsed, header.gasUsed],
    ['logs bloom', rebuilt.logsBloom, header.logsBloom],
    ['transactions root', rebuilt.transactionsTrie, header.transactionsTrie],
  ]
  for (const [what, have, want] of compare) {
    const same = typeof have === 'bigint' ? have === want : equalsBytes(have, want as Uint8Array)
    if (!same) fail(`${what} mismatch: have ${show(have)}, want ${show(want)}`)
  }
  const rebuiltRaw = rebuilt.raw()
  if (!equalsBytes(hashWithExtra(rebuiltRaw, extra), hash)) {
    const at = rebuiltRaw.findIndex((f, i) => i !== 12 && !equalsBytes(f, headerRaw[i] ?? new Uint8Array(0)))
    fail(
      `header field ${at} is ${bytesToHex(headerRaw[at] ?? new Uint8Array(0))}, expected ${bytesToHex(rebuiltRaw[at] ?? new Uint8Array(0))}`,
    )
  }
  const block: ExecutedBlock = {
    hash,
    number,
    parentHash: parent.hash,
    headerRaw,
    transactionBytes: decoded[1].map((t) => (Array.isArray(t) ? RLP.encode(t) : t)),
    withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
    receipts: executed.receipts,
    trie,
    activity: executed.activity,
  }
  return { executed: block, state: { trie, sm, vm, hardfork } }
}

/**
 * The parent committed seals must be a quorum of the parent's validators over the parent's hash.
 * Our copy of the parent records the round we saw it decided in; a proposer may have seen another
 * round's COMMITs decide the same block, so a few other rounds are tried before refusing.
 */
function verifyParentSeals(
  parent: ChainBlock,
  seals: Uint8Array[],
  validators: Uint8Array[],
  powers: bigint[] | undefined,
): void {
  if (parent.header.number === 0n) {
    if (seals.length > 0) throw new IbftError('parent committed seals of genesis must be empty')
    return
  }
  const localRound = decodeExtra(parent.header.extraData).round
  try {
    verifyCommittedSeals(parent.hash, localRound, seals, validators, powers)
    return
  } catch (first) {
    for (let r = 0n; r < IBFT_PARENT_SEAL_ROUND_SCAN; r++) {
      if (r === localRound) continue
      try {
        verifyCommittedSeals(parent.hash, r, seals, validators, powers)
        return
      } catch {
        // try the next round
      }
    }
    throw first
  }
}

type KeyCache = { cache: { senderPubKey?: Uint8Array } }

/** Gives `tx` the sender key `from` (the same signed transaction) holds, so that runTx does not recover it either. */
function primeSenderKey(tx: TypedTransaction, from: TypedTransaction): void {
  const key = (from as unknown as KeyCache).cache.senderPubKey
  const cache = (tx as unknown as KeyCache).cache
  if (key !== undefined && cache.senderPubKey === undefined) cache.senderPubKey = key
}

function show(v: Uint8Array | bigint): string {
  return typeof v === 'bigint' ? v.toString() : bytesToHex(v)
}

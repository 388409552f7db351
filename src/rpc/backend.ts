/**
 * Backend: what the JSON-RPC namespaces read and ask of the node, as one interface (geth's
 * ethapi.Backend). Namespaces import this file only; the node's implementation over the chain
 * store, state, transaction pool and execution pool is NodeBackend (nodeBackend.ts), and unit
 * tests give a fake (namespaces/testing.ts).
 *
 *   handler(b: Backend, typed params) ─▶ chain reads  (head, blocks, receipts, tx locations)
 *                                      ─▶ state reads  (account at a block, code, storage, proofs)
 *                                      ─▶ pool         (look up, content, nonce, submit)
 *                                      ─▶ accounts     (the keys it signs with: the dev chain's)
 *                                      ─▶ dev chain    (mine now, move time, edit the head's state)
 *                                      ─▶ execution    (call, estimate, access list, simulate, traces:
 *                                                       the implementation sends them off the main thread)
 *                                      ─▶ logs, filters, network, chain config
 *                                      ─▶ span committees (validator layer, issue 19)
 *                                      ─▶ checkpoints on the base chain (issue 20)
 *
 * What always holds:
 *  - the interface speaks the namespaces' language (decoded params: lowercase 0x addresses,
 *    hashes as bytes, blocks as ChainBlock) and never hands out the store, the database or the
 *    pool themselves;
 *  - choosing a block for a BlockRef, and geth's errors when there is none, is decided here once
 *    (resolveBlock, stateBlock) over the interface's reads, so fakes need only those reads.
 */
import type { Proof } from '@ethereumjs/statemanager'
import type { GenesisJson } from '../chain/common.js'
import type { ExplorerIndex } from '../chain/explorerIndex.js'
import type { ReceiptInBlock, StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, TxLocation } from '../chain/store.js'
import type { DevControl } from '../consensus/devControl.js'
import type {
  AccessListResult,
  CallOverrides,
  CallRequest,
  SimulateRequest,
  TraceOptions,
  TraceParts,
} from '../exec/pool/index.js'
import type { FilterSystem } from '../filters/index.js'
import type { NetworkInfo } from '../p2p/network.js'
import type { PoolContent, PoolStats, PoolTx } from '../txpool/index.js'
import type { CheckpointSource } from '../validators/checkpoint/index.js'
import type { CheckpointStatusView } from '../consensus/checkpoints.js'
import type { Committee, SpanParams } from '../validators/index.js'
import { HeaderForHashNotFoundError } from '../filters/errors.js'
import { HeaderNotFoundError, ServerError } from './errors.js'
import type { UnlockedAccounts } from './namespaces/dev/accountsKeys.js'
import type { BlockRef, FilterCriteria } from './params/index.js'

/** testing_buildBlockV1's payload attributes as ibex uses them (geth engine.PayloadAttributes). */
export interface PayloadAttributes {
  timestamp: bigint
  prevRandao: Uint8Array
  /** Lowercase 0x address. */
  suggestedFeeRecipient: string
  withdrawals: unknown[] | undefined
  parentBeaconBlockRoot: Uint8Array | undefined
}

/** testing_buildBlockV1's params, decoded. */
export interface TestingBuildParams {
  parentHash: Uint8Array
  attributes: PayloadAttributes
  /** undefined: the pool's pending transactions. */
  transactions: Uint8Array[] | undefined
  extraData: Uint8Array
}

/** The two account fields the eth_ state methods answer from (an absent account: both 0). */
export interface AccountFields {
  nonce: bigint
  balance: bigint
}

/** Reads of one block's state, for methods that read more than an account's fields. */
export interface StateReader {
  /** The account's code; empty for none. */
  code(address: string): Promise<Uint8Array>
  /** The slot's value as stored (leading zeros dropped; empty for an unset slot). */
  storage(address: string, slot: Uint8Array): Promise<Uint8Array>
  /** The EIP-1186 proof of the account and of each slot. */
  proof(address: string, slots: Uint8Array[]): Promise<Proof>
}

/** The test controls of a dev chain this node seals alone (src/consensus/devControl.ts). */
export type DevChain = Pick<DevControl, 'mine' | 'increaseTime' | 'setNextBlockTimestamp' | 'editState'>

/** The polling filters (eth_newFilter…), as src/filters keeps them. */
export type PollingFilters = Pick<
  FilterSystem,
  'newLogFilter' | 'newBlockFilter' | 'newPendingTransactionFilter' | 'changes' | 'logs' | 'uninstall'
>

/** Logs of a query (eth_getLogs), within the node's range and result limits. */
export type LogsResult = Awaited<ReturnType<FilterSystem['logs']>>

/** Span committees as the chain's headers name them (src/validators SpanCommittees), for the bor_ and validators_ methods. */
export interface SpanView {
  readonly params: SpanParams
  /** The committee of span `spanId`; undefined while the last block of the span before it is not in the chain. */
  committeeOf(spanId: bigint): Committee | undefined
}

export interface Backend {
  // ── chain ────────────────────────────────────────────────────────────────────────────────
  /** The chain id (EIP-155), also the network id. */
  readonly chainId: bigint
  /** The canonical head. */
  head(): ChainBlock
  /** The canonical block at `number`. */
  blockByNumber(number: bigint): ChainBlock | undefined
  /** The hash of the canonical block at `number` (an index read: no block is decoded); undefined beyond the head. */
  canonicalHash(number: bigint): Uint8Array | undefined
  /** Any stored block with this hash, canonical or not. */
  blockByHash(hash: Uint8Array): ChainBlock | undefined
  isCanonical(block: ChainBlock): boolean
  /** The receipts of a stored block, in transaction order. */
  receipts(blockHash: Uint8Array): StoredReceipt[] | undefined
  /** One receipt of a stored block, with where its logs sit among the block's (decodes that one only). */
  receiptAt(blockHash: Uint8Array, index: number): ReceiptInBlock | undefined
  /** Where a mined transaction sits. */
  txLocation(hash: Uint8Array): TxLocation | undefined
  /** The genesis.json the chain was initialised from ({} when unknown). */
  genesis(): GenesisJson
  readonly genesisHash: Uint8Array
  /** The explorer indexes written with each block (`[explorer]`; ots_ methods) and their reads. */
  readonly explorer: ExplorerIndex
  /** Largest page of the ots_ paged methods (`[explorer] max_page_size`). */
  readonly otsMaxPageSize: number

  // ── state ────────────────────────────────────────────────────────────────────────────────
  /** Nonce and balance at `block`; a value (no promise) when a cache answers. */
  account(block: ChainBlock, address: string): AccountFields | Promise<AccountFields>
  state(block: ChainBlock): StateReader

  // ── transaction pool ─────────────────────────────────────────────────────────────────────
  poolTransaction(hash: Uint8Array): PoolTx | undefined
  /** The first nonce after the pool's run of `address`, continuing from `stateNonce`. */
  pendingNonce(address: string, stateNonce: bigint): bigint
  poolStats(): PoolStats
  poolContent(): PoolContent
  poolContentFrom(address: string): { pending: PoolTx[]; queued: PoolTx[] }
  /** eth_sendRawTransaction: admission and pool rules; the hash, or a TxPoolError. */
  submitTransaction(raw: Uint8Array): Promise<Uint8Array>
  /** The lowest tip the pool accepts, wei (`[txpool] price_limit`): the fee oracle's floor. */
  readonly priceLimit: bigint

  // ── accounts ─────────────────────────────────────────────────────────────────────────────
  /** Accounts the node signs for (the dev chain's, `[dev] unlocked_accounts`); none elsewhere. */
  readonly accounts: UnlockedAccounts

  // ── dev chain ────────────────────────────────────────────────────────────────────────────
  /** evm_mine, evm_increaseTime, anvil_setBalance…: where `[dev] cheats` is on (src/consensus/devControl.ts). */
  readonly devChain: DevChain | undefined

  // ── execution (off the main thread, within the node's gas cap and time limits) ───────────
  /** eth_call's return data, or an ExecutionError (a revert with its data). */
  call(block: ChainBlock, request: CallRequest, overrides?: CallOverrides): Promise<Uint8Array>
  estimateGas(block: ChainBlock, request: CallRequest, overrides?: CallOverrides): Promise<bigint>
  /** `suggestedTip`: eth_maxPriorityFeePerGas now (geth fills the request's fee defaults with it). */
  createAccessList(
    block: ChainBlock,
    request: CallRequest,
    suggestedTip: bigint,
    overrides?: CallOverrides,
  ): Promise<AccessListResult>
  /** eth_simulateV1 on top of `base`: the JSON-ready list of simulated blocks. */
  simulate(base: ChainBlock, request: SimulateRequest): Promise<unknown>
  /** testing_buildBlockV1: the block built on the head, not inserted, as geth's payload envelope. */
  buildTestingBlock(params: TestingBuildParams): Promise<unknown>
  /** A trace's JSON as ASCII byte chunks, each within the node's trace and response size limits. */
  traceTransaction(location: TxLocation, options: TraceOptions): Promise<TraceParts>
  traceBlock(block: ChainBlock, options: TraceOptions): Promise<TraceParts>
  /** Traces a block given as RLP (debug_traceBlock), on top of its stored parent. */
  traceRawBlock(rlp: Uint8Array, options: TraceOptions): Promise<TraceParts>
  traceCall(
    block: ChainBlock,
    request: CallRequest,
    overrides: CallOverrides | undefined,
    options: TraceOptions,
  ): Promise<TraceParts>

  // ── logs, filters, network ───────────────────────────────────────────────────────────────
  getLogs(criteria: FilterCriteria): Promise<LogsResult>
  readonly filters: PollingFilters
  /** Peers and sync state; undefined when p2p is off. */
  readonly network: NetworkInfo | undefined

  // ── validator layer (issue 19) ───────────────────────────────────────────────────────────
  /** Span settings and committees; undefined when spans are off ([ibft] span_blocks = 0, or not IBFT). */
  readonly spans: SpanView | undefined
  /** Checkpoints committed on the base chain (the checkpoint service, issue 20); undefined when the node runs none. */
  readonly checkpoints: CheckpointSource | undefined
  /** Count, proposals being voted and uptime of checkpoints ([checkpoint] enabled); undefined otherwise. */
  readonly checkpointStatus: CheckpointStatusView | undefined
}

/** The block a reference names, or undefined (block-returning methods answer null). */
export function resolveBlock(b: Backend, ref: BlockRef): ChainBlock | undefined {
  switch (ref.kind) {
    case 'number':
      return b.blockByNumber(ref.number)
    case 'hash': {
      const block = b.blockByHash(ref.hash)
      if (block !== undefined && ref.requireCanonical && !b.isCanonical(block)) return undefined
      return block
    }
    case 'tag':
      // immediate finality: safe and finalized are the head; pending is the head too
      // (transactions waiting in the pool are not executed speculatively)
      return ref.tag === 'earliest' ? b.blockByNumber(0n) : b.head()
  }
}

/** The block whose state a state method reads; geth's errors when there is none. */
export function stateBlock(b: Backend, ref: BlockRef): ChainBlock {
  if (ref.kind === 'hash') {
    const block = b.blockByHash(ref.hash)
    if (block === undefined) throw new HeaderForHashNotFoundError()
    if (ref.requireCanonical && !b.isCanonical(block)) throw new ServerError('hash is not currently canonical')
    return block
  }
  const block = resolveBlock(b, ref)
  if (block === undefined) throw new HeaderNotFoundError()
  return block
}

/** Senders of a block's transactions, from its stored receipts. */
export function sendersOf(b: Backend, block: ChainBlock): Uint8Array[] {
  if (block.transactionBytes.length === 0 && block.transactions.length === 0) return []
  const receipts = b.receipts(block.hash) ?? []
  return receipts.map((r) => r.from)
}

/**
 * NodeBackend: the Backend (backend.ts) of a running node, over its chain store, state database,
 * transaction pool, execution pool, filters and network. Namespaces never see this class, only
 * the interface; src/rpc/index.ts builds one per server.
 *
 * Execution requests become execution-pool tasks here: the block travels as its hash with the
 * head the main thread knew, and the node's limits (`[jsonrpc] gas_cap`, `evm_timeout`,
 * `[exec] trace_max_bytes`, the response cap) are added, so a namespace only names the block
 * and the message.
 */
import type { CheckpointStatusView } from '../consensus/checkpoints.js'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import type { ExplorerIndex } from '../chain/explorerIndex.js'
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { bytesToBigInt, createAddressFromString, hexToBytes } from '@ethereumjs/util'
import type { GenesisJson } from '../chain/common.js'
import type { Database } from '../db/db.js'
import { depositContractAddress } from '../chain/forks.js'
import type { Engine } from '../chain/hash.js'
import type { ReceiptInBlock, StoredReceipt } from '../chain/receipt.js'
import type { ChainBlock, ChainStore, TxLocation } from '../chain/store.js'
import { devAccounts } from '../config/accounts.js'
import type { IbexConfig } from '../config/types.js'
import type { SingleValidatorSealer } from '../consensus/sealer.js'
import { spanParamsOf } from '../consensus/spanParams.js'
import {
  type AccessListResult,
  type CallOverrides,
  type CallLimits,
  type CallRequest,
  ExecPool,
  type SimulateRequest,
  type TraceJob,
  type TraceOptions,
  type TraceParts,
} from '../exec/pool/index.js'
import { type ChainEvents, FilterSystem, queryLogs, SubscriptionHub } from '../filters/index.js'
import type { Logger } from '../log.js'
import type { NetworkInfo } from '../p2p/network.js'
import { accountAt, stateAt, storageAt } from '../state/index.js'
import type { PoolContent, PoolStats, PoolTx, TxPool } from '../txpool/index.js'
import { toData } from '../util/hex.js'
import { decodeRlp } from '../util/rlp.js'
import type { CheckpointSource } from '../validators/checkpoint/index.js'
import { SpanCommittees } from '../validators/index.js'
import type {
  AccountFields,
  Backend,
  DevChain,
  LogsResult,
  SpanView,
  StateReader,
  TestingBuildParams,
} from './backend.js'
import { ServerError } from './errors.js'
import { formatSimulatedBlocks } from './format/simulated.js'
import { UnlockedAccounts } from './namespaces/dev/accountsKeys.js'
import type { FilterCriteria } from './params/index.js'

export interface BackendDeps {
  config: IbexConfig
  db: Database
  store: ChainStore
  common: Common
  pool: TxPool
  engine: Engine
  sealer: SingleValidatorSealer | undefined
  log: Logger
  /** New blocks and pending transactions, for filters and subscriptions. */
  events: ChainEvents
  /** EVM work (eth_call, eth_estimateGas, debug_trace*); default: run in process. */
  exec?: ExecPool
  /** Peers and sync state (net_peerCount, net_listening, eth_syncing); undefined without p2p. */
  network?: NetworkInfo
  /** The dev chain's test controls, where `[dev] cheats` is on (src/consensus/devControl.ts). */
  devChain?: DevChain
  /** Committed checkpoints, from the checkpoint service; undefined when the node runs none. */
  checkpoints?: CheckpointSource
  /** Checkpoint count, proposals and uptime ([checkpoint] enabled, src/consensus/checkpoints.ts). */
  checkpointStatus?: CheckpointStatusView
}

/** Meta key under which the node keeps the genesis it was initialised from (src/node.ts). */
const GENESIS_JSON_KEY = 'genesis.json'

/** Room the JSON-RPC envelope takes around a result (`{"jsonrpc":"2.0","id":…,"result":…}`). */
const ENVELOPE_BYTES = 256

/** Field of an account's RLP [nonce, balance, storageRoot, codeHash]. */
const ACCOUNT_NONCE = 0
const ACCOUNT_BALANCE = 1

const NO_ACCOUNT: AccountFields = Object.freeze({ nonce: 0n, balance: 0n })

/** Transactions in an RLP block, for the trace's deadline (0 when it does not decode: the worker says why). */
function txCountOf(rlp: Uint8Array): number {
  try {
    const decoded = RLP.decode(rlp) as unknown[]
    return Array.isArray(decoded[1]) ? decoded[1].length : 0
  } catch {
    return 0
  }
}

export class NodeBackend implements Backend {
  readonly chainId: bigint
  readonly genesisHash: Uint8Array
  readonly priceLimit: bigint
  readonly accounts: UnlockedAccounts
  readonly devChain: DevChain | undefined
  /** Polling filters (eth_newFilter…) and the log-query limits. */
  readonly filters: FilterSystem
  readonly network: NetworkInfo | undefined
  /** Span committees from the chain's headers (issue 19); undefined when spans are off. */
  readonly spans: SpanView | undefined
  readonly checkpoints: CheckpointSource | undefined
  readonly checkpointStatus: CheckpointStatusView | undefined
  /** New blocks and pending transactions (WebSocket subscriptions). */
  readonly events: ChainEvents
  /** Every WebSocket connection's subscriptions, behind one listener on `events`. */
  readonly subscriptions: SubscriptionHub
  readonly #config: IbexConfig
  readonly #db: Database
  readonly #store: ChainStore
  readonly #common: Common
  readonly #pool: TxPool
  /** The execution pool: calls and traces on worker threads (src/exec/pool). */
  readonly #exec: ExecPool
  readonly #callLimits: CallLimits
  /** The most bytes a trace may write (traceLimit). */
  readonly #traceMaxBytes: number
  #genesis: GenesisJson | undefined
  #deposit: Uint8Array | undefined

  constructor(deps: BackendDeps) {
    this.#config = deps.config
    this.#db = deps.db
    this.#store = deps.store
    this.#common = deps.common
    this.#pool = deps.pool
    this.#exec = deps.exec ?? ExecPool.inProcess(deps.db, deps.store, deps.common, formatSimulatedBlocks)
    this.chainId = deps.common.chainId()
    this.genesisHash = deps.store.genesisHash
    this.priceLimit = deps.config.txpool.priceLimit
    // the node refuses unlocked accounts on the public chain ids before it gets here (settleChainDefaults)
    this.accounts = deps.config.dev.unlockedAccounts ? new UnlockedAccounts(devAccounts()) : UnlockedAccounts.none()
    this.devChain = deps.devChain
    this.network = deps.network
    this.events = deps.events
    this.checkpoints = deps.checkpoints
    this.checkpointStatus = deps.checkpointStatus
    const spanParams = deps.engine === 'ibft' ? spanParamsOf(deps.config) : undefined
    this.spans =
      spanParams === undefined
        ? undefined
        : new SpanCommittees(spanParams, { extraDataAt: (n) => deps.store.getBlockByNumber(n)?.header.extraData })
    const rpc = deps.config.jsonrpc
    this.#callLimits = Object.freeze({ gasCap: rpc.gasCap, timeoutMs: rpc.evmTimeoutMs })
    this.#traceMaxBytes = traceLimit(deps.config)
    this.#genesis = undefined
    this.#deposit = undefined
    this.filters = new FilterSystem({
      store: deps.store,
      events: deps.events,
      timeoutMs: rpc.filterTimeoutMs,
      limits: { maxBlockRange: rpc.maxLogBlockRange, maxResults: rpc.maxLogResults },
      maxFilters: rpc.maxFilters,
      maxFiltersPerClient: rpc.maxFiltersPerIp,
      maxChanges: rpc.maxFilterChanges,
    })
    this.subscriptions = new SubscriptionHub(deps.events, {
      maxTotal: rpc.maxSubscriptions,
      maxPerClient: rpc.maxSubscriptionsPerIp,
    })
  }

  head(): ChainBlock {
    return this.#store.head
  }

  blockByNumber(number: bigint): ChainBlock | undefined {
    return this.#store.getBlockByNumber(number)
  }

  blockByHash(hash: Uint8Array): ChainBlock | undefined {
    return this.#store.getBlockByHash(hash)
  }

  get explorer(): ExplorerIndex {
    return this.#store.explorer
  }

  get otsMaxPageSize(): number {
    return this.#config.explorer.maxPageSize
  }

  canonicalHash(number: bigint): Uint8Array | undefined {
    return this.#store.getHashByNumber(number)
  }

  isCanonical(block: ChainBlock): boolean {
    return this.#store.isCanonical(block)
  }

  receipts(blockHash: Uint8Array): StoredReceipt[] | undefined {
    return this.#store.getReceipts(blockHash)
  }

  receiptAt(blockHash: Uint8Array, index: number): ReceiptInBlock | undefined {
    return this.#store.getReceipt(blockHash, index)
  }

  txLocation(hash: Uint8Array): TxLocation | undefined {
    return this.#store.getTxLocation(hash)
  }

  genesis(): GenesisJson {
    if (this.#genesis === undefined) {
      const raw = this.#store.getMeta(GENESIS_JSON_KEY)
      this.#genesis = raw === undefined ? {} : (JSON.parse(Buffer.from(raw).toString('utf8')) as GenesisJson)
    }
    return this.#genesis
  }

  /**
   * Read without building a state manager when it can be (the root's flat cache, else its
   * committed trie nodes: src/state/index.ts accountAt), else through one.
   */
  account(block: ChainBlock, address: string): AccountFields | Promise<AccountFields> {
    const rlp = accountAt(this.#db, block.header.stateRoot, address.slice(2).toLowerCase())
    if (rlp === null) return NO_ACCOUNT
    if (rlp !== undefined) {
      const fields = decodeRlp(rlp) as Uint8Array[]
      return {
        nonce: bytesToBigInt(fields[ACCOUNT_NONCE] as Uint8Array),
        balance: bytesToBigInt(fields[ACCOUNT_BALANCE] as Uint8Array),
      }
    }
    return stateAt(this.#db, this.#common, block.header.stateRoot)
      .getAccount(createAddressFromString(address))
      .then((a) => (a === undefined ? NO_ACCOUNT : { nonce: a.nonce, balance: a.balance }))
  }

  state(block: ChainBlock): StateReader {
    const root = block.header.stateRoot
    let manager: ReturnType<typeof stateAt> | undefined
    const sm = (): ReturnType<typeof stateAt> => {
      manager ??= stateAt(this.#db, this.#common, root)
      return manager
    }
    return {
      code: (address) => sm().getCode(createAddressFromString(address)),
      // a slot without a state manager when it can be (the root's flat cache, else its committed nodes)
      storage: async (address, slot) =>
        storageAt(this.#db, root, address.slice(2).toLowerCase(), slot) ??
        sm().getStorage(createAddressFromString(address), slot),
      proof: (address, slots) => getMerkleStateProof(sm(), createAddressFromString(address), slots),
    }
  }

  poolTransaction(hash: Uint8Array): PoolTx | undefined {
    return this.#pool.get(toData(hash))
  }

  pendingNonce(address: string, stateNonce: bigint): bigint {
    return this.#pool.nextNonce(address, stateNonce)
  }

  poolStats(): PoolStats {
    return this.#pool.stats()
  }

  poolContent(): PoolContent {
    return this.#pool.content()
  }

  poolContentFrom(address: string): { pending: PoolTx[]; queued: PoolTx[] } {
    return this.#pool.contentFrom(address)
  }

  async submitTransaction(raw: Uint8Array): Promise<Uint8Array> {
    return (await this.#pool.submit(raw)).hash
  }

  async call(block: ChainBlock, request: CallRequest, overrides?: CallOverrides): Promise<Uint8Array> {
    const head = this.#store.head.header.number
    return (await this.#exec.call({
      kind: 'call',
      head,
      blockHash: block.hash,
      request,
      overrides,
      limits: this.#callLimits,
    })) as Uint8Array
  }

  async estimateGas(block: ChainBlock, request: CallRequest, overrides?: CallOverrides): Promise<bigint> {
    const head = this.#store.head.header.number
    return (await this.#exec.call({
      kind: 'estimateGas',
      head,
      blockHash: block.hash,
      request,
      overrides,
      limits: this.#callLimits,
    })) as bigint
  }

  createAccessList(
    block: ChainBlock,
    request: CallRequest,
    suggestedTip: bigint,
    overrides?: CallOverrides,
  ): Promise<AccessListResult> {
    return this.#exec.createAccessList({
      kind: 'createAccessList',
      head: this.#headNumber(),
      blockHash: block.hash,
      request,
      suggestedTip,
      overrides,
      limits: this.#callLimits,
    })
  }

  simulate(base: ChainBlock, request: SimulateRequest): Promise<unknown> {
    return this.#exec.simulate({
      kind: 'simulate',
      head: this.#headNumber(),
      blockHash: base.hash,
      request,
      gasCap: this.#callLimits.gasCap,
      timeoutMs: this.#callLimits.timeoutMs,
      depositContract: this.#depositContract(),
    })
  }

  buildTestingBlock(params: TestingBuildParams): Promise<unknown> {
    const head = this.#store.head
    if (Buffer.compare(head.hash, params.parentHash) !== 0) throw new ServerError('parentHash is not current head')
    if ((params.attributes.withdrawals?.length ?? 0) > 0) {
      throw new ServerError('withdrawals are not supported: IBFT blocks carry none')
    }
    const nextBaseFee = head.header.baseFeePerGas === undefined ? 0n : head.header.calcNextBaseFee()
    const recipient = this.genesis().config?.baseFeeRecipient as string | undefined
    return this.#exec.buildTestingBlock({
      kind: 'buildTestingBlock',
      head: this.#headNumber(),
      blockHash: head.hash,
      timeoutMs: this.#callLimits.timeoutMs,
      request: {
        parentHash: params.parentHash,
        timestamp: params.attributes.timestamp,
        feeRecipient: Buffer.from(params.attributes.suggestedFeeRecipient.slice(2), 'hex'),
        beaconRoot: params.attributes.parentBeaconBlockRoot,
        transactions: params.transactions,
        rawFromPool:
          params.transactions === undefined ? this.#pool.candidates(nextBaseFee).map((p) => p.tx.serialize()) : [],
        extraData: params.extraData,
        baseFeeRecipient: recipient === undefined ? undefined : Buffer.from(recipient.replace(/^0x/, ''), 'hex'),
      },
    })
  }

  traceTransaction(location: TxLocation, options: TraceOptions): Promise<TraceParts> {
    return this.#trace(
      {
        kind: 'traceTx',
        head: this.#headNumber(),
        blockHash: location.blockHash,
        index: location.index,
        options,
        maxBytes: this.#traceMaxBytes,
      },
      1,
    )
  }

  traceBlock(block: ChainBlock, options: TraceOptions): Promise<TraceParts> {
    const task: TraceJob = {
      kind: 'traceBlock',
      head: this.#headNumber(),
      blockHash: block.hash,
      options,
      maxBytes: this.#traceMaxBytes,
    }
    return this.#trace(task, block.transactions.length)
  }

  traceRawBlock(rlp: Uint8Array, options: TraceOptions): Promise<TraceParts> {
    const task: TraceJob = {
      kind: 'traceRlpBlock',
      head: this.#headNumber(),
      rlp,
      options,
      maxBytes: this.#traceMaxBytes,
    }
    return this.#trace(task, txCountOf(rlp))
  }

  traceCall(
    block: ChainBlock,
    request: CallRequest,
    overrides: CallOverrides | undefined,
    options: TraceOptions,
  ): Promise<TraceParts> {
    const task: TraceJob = {
      kind: 'traceCall',
      head: this.#headNumber(),
      blockHash: block.hash,
      request,
      overrides,
      gasCap: this.#callLimits.gasCap,
      options,
      maxBytes: this.#traceMaxBytes,
    }
    return this.#trace(task, 1)
  }

  getLogs(criteria: FilterCriteria): Promise<LogsResult> {
    return queryLogs(this.#store, criteria, this.filters.limits)
  }

  /** Stops the filters' sweep (the server is stopping). */
  close(): void {
    this.filters.close()
    this.subscriptions.close()
  }

  /** EIP-6110 deposit contract of the chain (eth_simulateV1 builds blocks with its requests). */
  #depositContract(): Uint8Array {
    this.#deposit ??= hexToBytes(depositContractAddress(this.genesis()) as `0x${string}`)
    return this.#deposit
  }

  #headNumber(): bigint {
    return this.#store.head.header.number
  }

  #trace(task: TraceJob, txCount: number): Promise<TraceParts> {
    return this.#exec.trace(task, txCount)
  }
}

/**
 * The most bytes a trace may write: `[exec] trace_max_bytes`, and no more than the response cap
 * lets through — a trace the dispatcher would refuse stops in the worker instead of being built.
 */
function traceLimit(config: IbexConfig): number {
  const cap = config.jsonrpc.maxResponseBytes
  const limit = config.exec.traceMaxBytes
  return cap > 0 ? Math.max(1, Math.min(limit, cap - ENVELOPE_BYTES)) : limit
}

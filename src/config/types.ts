/**
 * The one typed configuration of an ibex node. The TOML file and the CLI flags are both parsed
 * into this shape (src/config/load.ts); defaults live in src/config/defaults.ts beside their
 * reasons. Everything downstream of the CLI reads only this object.
 */

/** Network presets shipped with ibex. */
export type NetworkName = 'dev' | 'testnet' | 'mainnet'

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent'

/** Log line format: `json` (one pino object per line, for journald/Loki) or `text` (for humans). */
export type LogFormat = 'json' | 'text'

/** Namespaces the JSON-RPC server can expose (`bor`, the block-producer layer's, comes with its methods). */
export type RpcNamespace =
  | 'eth'
  | 'net'
  | 'web3'
  | 'txpool'
  | 'debug'
  | 'personal'
  | 'testing'
  | 'evm'
  | 'anvil'
  | 'hardhat'
  | 'bor'
  | 'validators'
  | 'ots'
  | 'erigon'
  | 'trace'

export interface JsonRpcConfig {
  /** Serve HTTP JSON-RPC at all. */
  enabled: boolean
  /** Bind address. */
  host: string
  /** Listening port (0 = pick a free one). */
  port: number
  /** Namespaces served. */
  api: RpcNamespace[]
  /** CORS allowed origins; `*` allows all, empty list sends no CORS headers. */
  corsOrigins: string[]
  /** Largest request body accepted, bytes. */
  maxBodyBytes: number
  /** Largest batch accepted, items. */
  maxBatchItems: number
  /** Items of one batch in progress at once. */
  batchConcurrency: number
  /** Gas cap for eth_call / eth_estimateGas. */
  gasCap: bigint
  /** eth_call / eth_estimateGas wall-clock timeout, ms. */
  evmTimeoutMs: number
  /** Accept WebSocket upgrades on the same port (`--ws`, on by default; `--ws=false` refuses them). */
  ws?: boolean
  /** A polling filter not polled with eth_getFilterChanges for this long is removed, ms. */
  filterTimeoutMs: number
  /** Largest `toBlock - fromBlock` of eth_getLogs / eth_getFilterLogs; 0 = no limit. */
  maxLogBlockRange: number
  /** Most logs in one eth_getLogs / eth_getFilterLogs answer; 0 = no limit. */
  maxLogResults: number
  /** Polling filters installed in all / per client IP; 0 = no limit. */
  maxFilters: number
  maxFiltersPerIp: number
  /** Items one polling filter gathers between two polls before the oldest are dropped. */
  maxFilterChanges: number
  /** WebSocket subscriptions in all / per client IP; 0 = no limit. */
  maxSubscriptions: number
  maxSubscriptionsPerIp: number
  /** A WebSocket client with more than this many bytes still unsent is disconnected. */
  wsMaxBufferedBytes: number
  /** Host header values accepted (geth's --http.vhosts); `*` = any. Requests to an IP address or without Host always pass. */
  vhosts: string[]
  /** Peers (IPs or CIDRs) whose X-Forwarded-For names the client; others are the client themselves. */
  trustedProxies: string[]
  /** Most open HTTP/WS connections; more are closed at once. 0 = no limit. */
  maxConnections: number
  /** Most open HTTP/WS connections from one client address (IPv6: one /64); more are closed at accept. 0 = no limit. */
  maxConnectionsPerIp: number
  /** Time allowed to receive a request's headers, ms. */
  headerTimeoutMs: number
  /** Time allowed to receive a whole request (headers and body), ms. */
  readTimeoutMs: number
  /** An idle keep-alive connection is closed after this long, ms. */
  idleTimeoutMs: number
  /** Plain JSON-RPC POSTs are parsed by ibex's own HTTP/1.1 reader (src/rpc/server/wire.ts); false = node:http parses every request. */
  fastHttp: boolean
  /** Largest answer (a batch's answers together), bytes; past it calls answer -32003 `response too large`. 0 = no limit. */
  maxResponseBytes: number
  /** On shutdown, requests still running after this long are cut, ms. */
  shutdownGraceMs: number
  /** /ready: blocks a node may trail its chain (head age, behind peers) and stay ready (src/ops/health.ts). */
  readyMaxLagBlocks: number
  /** Per-client-IP request budgets (src/rpc/server/limits.ts). */
  rateLimit: RateLimitConfig
}

/** Token-bucket budgets per client IP, in requests per second (each batch item counts); 0 = no limit. */
export interface RateLimitConfig {
  /** Every request. */
  requests: number
  /** eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 (also count in `requests`). */
  call: number
  /** eth_getLogs, eth_getFilterLogs (also count in `requests`). */
  logs: number
  /** debug_* (also count in `requests`). */
  debug: number
  /** A bucket holds this many seconds of its rate: the burst a quiet client may send at once, ms. */
  burstMs: number
  /**
   * True when a `rate_limit*` key or flag set the budgets. Left at the network defaults, budgets
   * apply only to the public networks (chain ids 786 and 7860): a node serving any other chain
   * from its datadir (dev, an imported chain, a test rig) runs without them.
   */
  explicit?: boolean
}

/** The Prometheus endpoint (src/ops/metrics.ts), off by default. */
export interface MetricsConfig {
  enabled: boolean
  host: string
  port: number
}

/** `ibex faucet` (src/ops/faucet): a testnet/dev faucet beside a node. */
export interface FaucetConfig {
  /** JSON-RPC URL of the node the faucet sends through. */
  rpcUrl: string
  /** File holding the faucet's private key (hex); undefined = not configured. */
  keyFile: string | undefined
  /** Wei sent per request. */
  amountWei: bigint
  /** An address, and a client IP, is served at most once per this long, ms. */
  cooldownMs: number
  /** Most wei sent per UTC day. */
  dailyBudgetWei: bigint
  host: string
  port: number
  /** Cooldown and budget state, relative to the datadir (survives restarts). */
  stateFile: string
  /** Peers (IPs or CIDRs) whose X-Forwarded-For names the client. */
  trustedProxies: string[]
}

export interface ChainConfig {
  /** Token symbol shown to wallets. */
  tokenSymbol: string
  /** Block explorer URL, for wallets / chain registries (informational). */
  explorerUrl: string
  /** Public RPC URLs of the network (informational). */
  rpcUrls: string[]
  /** Network name shown to wallets and in the chain registry. */
  name: string
  /** Chain registry short name (EIP-3770 prefix). */
  shortName: string
  /** Name of the native token. */
  tokenName: string
  /** Project web page, for the chain registry. */
  infoUrl: string
  /** Faucet URLs, for the chain registry (testnets). */
  faucetUrls: string[]
}

export interface TxPoolConfig {
  /** Minimum gas price (legacy) / max fee (1559) accepted, wei. Also what eth_gasPrice answers when > 0. */
  priceLimit: bigint
  /** A replacement must raise both fee cap and tip by at least this many percent. */
  priceBump: number
  /** Most queued (future-nonce) transactions per sender. */
  accountQueue: number
  /** Executable transactions the pool is sized for; with globalQueue, the whole pool's capacity. */
  globalSlots: number
  /** Most queued transactions over all senders. */
  globalQueue: number
  /** Queued transactions of a sender idle this long are dropped, ms. */
  lifetimeMs: number
  /** Journal file of accepted transactions, relative to the datadir; "" = no journal. */
  journal: string
  /** How often the journal is rewritten to the pool's content, ms. */
  rejournalMs: number
}

/** Peer-to-peer settings (libp2p: src/p2p). */
export interface P2pConfig {
  /** TCP listening port. */
  port: number
  /** libp2p multiaddrs of peers to dial at start-up. */
  bootnodes: string[]
  /** Pending transactions are announced (by hash) to every peer this often, ms (src/p2p/txSync.ts). */
  txAnnounceIntervalMs: number
}

export interface IbexConfig {
  /** Network preset the chain is initialised from (ignored when `genesisFile` is set). */
  network: NetworkName
  /** A geth-format genesis.json to initialise from instead of a preset. */
  genesisFile: string | undefined
  /** Data directory (RocksDB, keys). */
  datadir: string
  /** Milliseconds between blocks; 0 = seal as soon as transactions arrive. Flags/file take durations (2s, 500ms, 0.5). */
  blockTimeMs: number
  /** File holding the validator's 32-byte secp256k1 private key as hex; default <datadir>/validator.key. */
  validatorKeyFile: string | undefined
  logLevel: LogLevel
  logFormat: LogFormat
  jsonrpc: JsonRpcConfig
  chain: ChainConfig
  txpool: TxPoolConfig
  /** Undefined = no p2p (a single node); set by --p2p.port, --bootnodes or the [p2p] section. */
  p2p?: P2pConfig
  /** Multi-validator IBFT (src/consensus/ibft). */
  ibft: IbftConfig
  /** The execution pool: worker threads for calls and traces (src/exec/pool). */
  exec: ExecConfig
  /** The explorer indexes and the ots_ search limits ([explorer], src/chain/explorerIndex.ts). */
  explorer: ExplorerConfig
  /** Prometheus endpoint. */
  metrics: MetricsConfig
  /** `ibex faucet` settings. */
  faucet: FaucetConfig
  /** Dev-chain comforts ([dev]). */
  dev: DevConfig
  /** Checkpoints to a base chain and uptime (issue 20, src/validators/checkpoint). */
  checkpoint: CheckpointConfig
}

/**
 * Checkpoints ([checkpoint]): a validator signs checkpoints of the chain for the base chain's
 * CheckpointManager and the proposer submits them (VALIDATORS.md, "Checkpoints"). Off by default.
 */
export interface CheckpointConfig {
  enabled: boolean
  /** JSON-RPC URL of the base chain; "" = not configured. */
  baseRpc: string
  /** The base chain's id (part of every checkpoint signature); 0 = not configured. */
  baseChainId: number
  /** CheckpointManager address on the base chain (0x…); "" = not configured. */
  manager: string
  /** ExitVault address on the base chain (0x…); "" = none. */
  vault: string
  /** Key of the account paying for submissions on the base chain; undefined = the validator key. */
  keyFile: string | undefined
  /** A checkpoint is proposed this long after the last one was committed, ms. */
  intervalMs: number
  /** Most blocks in one checkpoint (at most the contract's maxBlocks). */
  maxBlocks: number
  /** Base-chain blocks on top of a submission before it counts as done. */
  baseConfirmations: number
  /** After > 2/3 of the power signed, the proposer waits this long for the rest, ms. */
  graceMs: number
  /** A proposer that has not got its checkpoint committed after this long hands over to the next, ms. */
  proposerTimeoutMs: number
  /** Uptime is measured over this many checkpoints. */
  uptimeWindow: number
  /** The base chain is read this often, ms. */
  pollIntervalMs: number
}

/** Dev-chain comforts ([dev]): what anvil and hardhat users expect of a local chain. */
export interface DevConfig {
  /**
   * The test mnemonic's funded accounts sign for clients (eth_accounts, eth_sendTransaction,
   * eth_sign, eth_signTypedData_v4, personal_sign). Default true on the dev preset only; false on a
   * --genesis chain unless set; refused on the public chain ids.
   */
  unlockedAccounts: boolean
  /**
   * evm_mine, evm_increaseTime, evm_setNextBlockTimestamp, anvil_/hardhat_ mine, setBalance,
   * setCode, setStorageAt, setNonce (src/consensus/devControl.ts). Unset: on for the dev preset
   * only; refused on the public chain ids and on a chain this node does not seal alone.
   */
  cheats: boolean | undefined
  /** Most blocks one anvil_mine / hardhat_mine / evm_mine seals. */
  mineMaxBlocks: number
}

/**
 * The explorer ([explorer]): which indexes are written with each block (each can be turned off on a
 * node that serves no explorer) and the page limit of the ots_ methods.
 */
export interface ExplorerConfig {
  /** Address → transactions it appears in, internal calls included (ots_searchTransactions*). */
  indexAppearances: boolean
  /** Sender + nonce → transaction (ots_getTransactionBySenderAndNonce). */
  indexSenderNonce: boolean
  /** Contract → creator and creation transaction (ots_getContractCreator). */
  indexCreators: boolean
  /** Block → total fees (ots_getBlockDetails). */
  indexFees: boolean
  /** Failed transaction → its return data (ots_getTransactionError). */
  indexReverts: boolean
  /** Largest page of ots_searchTransactions* and ots_getBlockTransactions. */
  maxPageSize: number
  /** Serve the built-in explorer's pages on the JSON-RPC port (src/explorer). */
  enabled: boolean
  /** Where: a path starting and ending with `/`. */
  path: string
}

/** Execution pool settings ([exec]). */
export interface ExecConfig {
  /** Worker threads for eth_call / eth_estimateGas / eth_createAccessList / eth_simulateV1 (at least 1). */
  workers: number
  /** Calls that may wait for a worker; more are refused. */
  callQueue: number
  /** Longest a call or trace waits for a worker before it is refused busy (-32005), ms. */
  queueTimeoutMs: number
  /** Worker threads for debug_trace* (concurrent traces). */
  traceWorkers: number
  /** Traces that may wait for a worker; more are refused. */
  traceQueue: number
  /** Largest trace answer, bytes. */
  traceMaxBytes: number
  /** JS heap limit of each worker, MiB; 0 = Node's default. */
  workerHeapMb: number
  /** Per-worker trie-node cache, MiB. */
  cacheMb: number
  /** Worker threads recovering the senders of submitted transactions; 0 = on the main thread. */
  recoverWorkers: number
}

/** Multi-validator IBFT settings. */
export interface IbftConfig {
  /** Round r times out after roundTimeoutBaseMs · 2^r + block time, ms. */
  roundTimeoutBaseMs: number
  /** Blocks per span (issue 19); 0 = no spans, the genesis validators seal every block. */
  spanBlocks: number
  /** Seats drawn for each span's committee; 0 = the whole validator set. */
  producers: number
}

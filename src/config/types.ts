/**
 * The one typed configuration of an ibex node. The TOML file and the CLI flags are both parsed
 * into this shape (src/config/load.ts); defaults live in src/config/defaults.ts beside their
 * reasons. Everything downstream of the CLI reads only this object.
 */

/** Network presets shipped with ibex. */
export type NetworkName = 'dev' | 'testnet' | 'mainnet'

export type LogLevel = 'trace' | 'debug' | 'info' | 'warn' | 'error' | 'silent'

/** Namespaces the JSON-RPC server can expose. `bor` is the block-producer layer's namespace. */
export type RpcNamespace = 'eth' | 'net' | 'web3' | 'txpool' | 'debug' | 'bor'

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
  /** A WebSocket client with more than this many bytes still unsent is disconnected. */
  wsMaxBufferedBytes: number
}

export interface ChainConfig {
  /** Token symbol shown to wallets. */
  tokenSymbol: string
  /** Block explorer URL, for wallets / chain registries (informational). */
  explorerUrl: string
  /** Public RPC URLs of the network (informational). */
  rpcUrls: string[]
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
  jsonrpc: JsonRpcConfig
  chain: ChainConfig
  txpool: TxPoolConfig
  /** Undefined = no p2p (a single node); set by --p2p.port, --bootnodes or the [p2p] section. */
  p2p?: P2pConfig
  /** Multi-validator IBFT (src/consensus/ibft). */
  ibft: IbftConfig
  /** The execution pool: worker threads for calls and traces (src/exec/pool). */
  exec: ExecConfig
}

/** Execution pool settings ([exec]). */
export interface ExecConfig {
  /** Worker threads for eth_call / eth_estimateGas; 0 = run on the main thread. */
  workers: number
  /** Calls that may wait for a worker; more are refused. */
  callQueue: number
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
}

/** Multi-validator IBFT settings. */
export interface IbftConfig {
  /** Round r times out after roundTimeoutBaseMs · 2^r + block time, ms. */
  roundTimeoutBaseMs: number
}

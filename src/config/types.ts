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
  /** Also accept WebSocket upgrades on the same port (`--ws`); parsed now, served later. */
  ws?: boolean
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
}

/** Peer-to-peer settings (libp2p); parsed now, used once p2p exists. */
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
}

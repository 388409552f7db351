/**
 * Defaults of the node configuration, each beside its reason. `defaultConfig(network)` is the
 * starting point that the TOML file and then the flags override (src/config/load.ts).
 */
import type { IbexConfig, LogLevel, NetworkName, RpcNamespace } from './types.js'

/** DEFAULT_NETWORK is what `ibex start` runs without --network: the production chain, as geth does; the dev chain is asked for explicitly (`npm start` passes --network dev). */
export const DEFAULT_NETWORK: NetworkName = 'mainnet'

/** NETWORK_CHAIN_IDS: dev uses 1337 like other local dev chains; testnet and mainnet ids are the spec's. */
export const NETWORK_CHAIN_IDS: Readonly<Record<NetworkName, number>> = { dev: 1337, testnet: 7860, mainnet: 786 }

/** DEFAULT_HTTP_PORT is the port every Ethereum tool tries first. */
export const DEFAULT_HTTP_PORT = 8545
/** DEFAULT_HTTP_HOST is loopback only: serving the world is a deliberate act (set 0.0.0.0). */
export const DEFAULT_HTTP_HOST = '127.0.0.1'
/** DEFAULT_API leaves `debug` out: tracing is expensive and the spec gates it by configuration. */
export const DEFAULT_API: readonly RpcNamespace[] = ['eth', 'net', 'web3', 'txpool', 'bor']
/** DEV_CORS_ORIGINS lets browser tools (Remix, local dapps) reach a dev node, as anvil does. */
export const DEV_CORS_ORIGINS: readonly string[] = ['*']
/** NETWORK_CORS_ORIGINS is empty (no CORS headers) on public networks until the operator opts in. */
export const NETWORK_CORS_ORIGINS: readonly string[] = []
/** MAX_REQUEST_BODY_BYTES (5 MiB) is geth's limit: fits any batch a wallet sends, bounds memory per request. */
export const MAX_REQUEST_BODY_BYTES = 5 * 1024 * 1024
/** MAX_BATCH_ITEMS (1000) is geth's batch limit: one request cannot queue unbounded work. */
export const MAX_BATCH_ITEMS = 1000
/** RPC_GAS_CAP (50M gas) is geth's eth_call / eth_estimateGas cap: above any block, bounded CPU per call. */
export const RPC_GAS_CAP = 50_000_000n
/** RPC_EVM_TIMEOUT_MS (5 s) is geth's eth_call timeout and the spec's tracer default. */
export const RPC_EVM_TIMEOUT_MS = 5000

/** DEV_BLOCK_TIME_MS = 0: the dev chain seals as soon as transactions arrive (instant receipts for tests). */
export const DEV_BLOCK_TIME_MS = 0
/** NETWORK_BLOCK_TIME_MS (2 s): public networks make a block every 2 s, empty or not, so time advances predictably. */
export const NETWORK_BLOCK_TIME_MS = 2000

/** GWEI in wei. */
export const GWEI = 1_000_000_000n
/** DEV_PRICE_LIMIT_WEI = 0: the dev chain takes any fee the base fee allows. */
export const DEV_PRICE_LIMIT_WEI = 0n
/** NETWORK_PRICE_LIMIT_WEI (1 gwei) equals the genesis base fee: below it a transaction only spams the pool. eth_gasPrice answers it. */
export const NETWORK_PRICE_LIMIT_WEI = GWEI

/** DEFAULT_TOKEN_SYMBOL is a placeholder: the spec leaves the symbol open (<TOKEN_SYMBOL>). */
export const DEFAULT_TOKEN_SYMBOL = 'IBX'
/** DEFAULT_LOG_LEVEL shows start-up, blocks and warnings, not per-request lines. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info'
/** DEFAULT_P2P_PORT is used when p2p is switched on (--p2p.port / --bootnodes / [p2p]) without a port. */
export const DEFAULT_P2P_PORT = 30303

/** DEV_ACCOUNT_COUNT accounts of the test mnemonic are funded on the dev chain. */
export const DEV_ACCOUNT_COUNT = 10
/** DEV_ACCOUNT_BALANCE_WEI: 10,000 coins each, as anvil and hardhat give. */
export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n

/** defaultDatadir: `./data/<network>`, or `./data/custom` for a chain from --genesis, so chains never share a directory by accident. */
export function defaultDatadir(network: NetworkName, genesisFile?: string): string {
  return genesisFile === undefined ? `./data/${network}` : './data/custom'
}

/** defaultConfig returns a fresh configuration holding every default for `network`. */
export function defaultConfig(network: NetworkName): IbexConfig {
  const dev = network === 'dev'
  return {
    network,
    genesisFile: undefined,
    datadir: defaultDatadir(network),
    blockTimeMs: dev ? DEV_BLOCK_TIME_MS : NETWORK_BLOCK_TIME_MS,
    validatorKeyFile: undefined,
    logLevel: DEFAULT_LOG_LEVEL,
    jsonrpc: {
      enabled: true,
      host: DEFAULT_HTTP_HOST,
      port: DEFAULT_HTTP_PORT,
      api: [...DEFAULT_API],
      corsOrigins: [...(dev ? DEV_CORS_ORIGINS : NETWORK_CORS_ORIGINS)],
      maxBodyBytes: MAX_REQUEST_BODY_BYTES,
      maxBatchItems: MAX_BATCH_ITEMS,
      gasCap: RPC_GAS_CAP,
      evmTimeoutMs: RPC_EVM_TIMEOUT_MS,
      ws: false,
    },
    chain: { tokenSymbol: DEFAULT_TOKEN_SYMBOL, explorerUrl: '', rpcUrls: [] },
    txpool: { priceLimit: dev ? DEV_PRICE_LIMIT_WEI : NETWORK_PRICE_LIMIT_WEI },
    p2p: undefined,
  }
}

function deepFreeze<T>(value: T): T {
  if (value !== null && typeof value === 'object') {
    for (const v of Object.values(value)) deepFreeze(v)
    Object.freeze(value)
  }
  return value
}

/** DEFAULT_CONFIG is `defaultConfig(DEFAULT_NETWORK)`, frozen: copy it (structuredClone) before changing. */
export const DEFAULT_CONFIG: Readonly<IbexConfig> = deepFreeze(defaultConfig(DEFAULT_NETWORK))

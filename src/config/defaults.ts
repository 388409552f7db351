/**
 * Defaults of the node configuration, each beside its reason. `defaultConfig(network)` is the
 * starting point that the TOML file and then the flags override (src/config/load.ts).
 */
import { availableParallelism } from 'node:os'
import type { IbexConfig, LogFormat, LogLevel, NetworkName, RateLimitConfig, RpcNamespace } from './types.js'

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
/**
 * BATCH_CONCURRENCY (16): items of one batch in progress at once. geth runs a batch's calls one
 * after another; a few at a time keeps a worker busy without one batch of 1000 eth_calls filling
 * the call queue (then its own items would answer -32005).
 */
export const BATCH_CONCURRENCY = 16
/** RPC_GAS_CAP (50M gas) is geth's eth_call / eth_estimateGas cap: above any block, bounded CPU per call. */
export const RPC_GAS_CAP = 50_000_000n
/** RPC_EVM_TIMEOUT_MS (5 s) is geth's eth_call timeout and the spec's tracer default. */
export const RPC_EVM_TIMEOUT_MS = 5000

/** FILTER_TIMEOUT_MS (5 min) is geth's filter deadline: an idle polling filter is removed after it. */
export const FILTER_TIMEOUT_MS = 5 * 60_000
/** MAX_LOG_BLOCK_RANGE (100,000) is reth's default: a wide eth_getLogs is refused before it scans (geth: --rpc.rangelimit). */
export const MAX_LOG_BLOCK_RANGE = 100_000
/** MAX_LOG_RESULTS (20,000) is reth's default: bounds the memory and size of one eth_getLogs answer. */
export const MAX_LOG_RESULTS = 20_000
/** WS_MAX_BUFFERED_BYTES (16 MiB): a WebSocket reader this far behind is disconnected instead of buffered without limit. */
export const WS_MAX_BUFFERED_BYTES = 16 * 1024 * 1024

/** DEFAULT_VHOSTS is geth's: requests naming the host `localhost` (or any IP address, or no Host) pass; a public name must be listed. */
export const DEFAULT_VHOSTS: readonly string[] = ['localhost']
/** HTTP_MAX_CONNECTIONS (2000): far above what a few thousand clients keep open, far below LimitNOFILE (65536); past it a flood cannot exhaust descriptors. */
export const HTTP_MAX_CONNECTIONS = 2000
/** HTTP_HEADER_TIMEOUT_MS (10 s): a client that has not sent its headers by then is a slowloris, not a slow link. */
export const HTTP_HEADER_TIMEOUT_MS = 10_000
/** HTTP_READ_TIMEOUT_MS (30 s) is geth's ReadTimeout: a whole 5 MiB request arrives well inside it. */
export const HTTP_READ_TIMEOUT_MS = 30_000
/** HTTP_IDLE_TIMEOUT_MS (120 s) is geth's IdleTimeout for keep-alive connections. */
export const HTTP_IDLE_TIMEOUT_MS = 120_000
/** MAX_RESPONSE_BYTES (25 MB) is geth's --rpc.batch-response-max-size: bounds the memory one request can make the node hold. */
export const MAX_RESPONSE_BYTES = 25_000_000
/** SHUTDOWN_GRACE_MS (10 s): twice the eth_call time limit, so running calls finish; well inside systemd's 90 s stop timeout. */
export const SHUTDOWN_GRACE_MS = 10_000
/** RATE_LIMITS_OFF: the dev chain serves its one user without budgets. */
export const RATE_LIMITS_OFF: Readonly<RateLimitConfig> = { requests: 0, call: 0, logs: 0, debug: 0, burstMs: 2000 }
/**
 * PUBLIC_RATE_LIMITS (per client IP, requests/s): 200 for everything — a busy dapp page polls a few
 * per second, an indexer more, and one 4-core node serves ~10k/s in all; 40 eth_call/estimateGas
 * (a few ms of a worker each); 10 getLogs (scans); 2 debug_* (seconds of a worker each). A bucket
 * holds 2 s of its rate, so short bursts pass.
 */
export const PUBLIC_RATE_LIMITS: Readonly<RateLimitConfig> = { requests: 200, call: 40, logs: 10, debug: 2, burstMs: 2000 }

/** METRICS_DEFAULT_HOST: Prometheus scrapes over loopback or a private network, never the public one. */
export const METRICS_DEFAULT_HOST = '127.0.0.1'
/** METRICS_DEFAULT_PORT (6060) is geth's metrics port. */
export const METRICS_DEFAULT_PORT = 6060

/** FAUCET_AMOUNT_WEI (1 coin): enough for thousands of test transactions at the 1 gwei price limit. */
export const FAUCET_AMOUNT_WEI = 10n ** 18n
/** FAUCET_COOLDOWN_MS (24 h): one grant per address and per client IP per day. */
export const FAUCET_COOLDOWN_MS = 24 * 3600_000
/** FAUCET_DAILY_BUDGET_WEI (500 coins): a drained faucet key cannot empty faster than operators notice. */
export const FAUCET_DAILY_BUDGET_WEI = 500n * 10n ** 18n
/** FAUCET_DEFAULT_PORT (8080): the faucet page sits behind the same reverse proxy as the RPC. */
export const FAUCET_DEFAULT_PORT = 8080
/** FAUCET_STATE_FILE: cooldowns and the day's spending, in the datadir, so a restart forgets nothing. */
export const FAUCET_STATE_FILE = 'faucet-state.json'

/** TXPOOL_PRICE_BUMP_PERCENT (10) is geth's: a replacement pays at least 10% more in fee cap and tip. */
export const TXPOOL_PRICE_BUMP_PERCENT = 10
/** TXPOOL_ACCOUNT_QUEUE (64) is geth's: one sender cannot fill the queue with future nonces. */
export const TXPOOL_ACCOUNT_QUEUE = 64
/** TXPOOL_GLOBAL_SLOTS (5120) is geth's (4096 + 1024): several full blocks of executable transactions. */
export const TXPOOL_GLOBAL_SLOTS = 4096 + 1024
/** TXPOOL_GLOBAL_QUEUE (1024) is geth's: future transactions are cheap to send, so they get the smaller share. */
export const TXPOOL_GLOBAL_QUEUE = 1024
/** TXPOOL_LIFETIME_MS (3 h) is geth's: a queued transaction whose gap never fills does not stay for ever. */
export const TXPOOL_LIFETIME_MS = 3 * 3600_000
/** TXPOOL_JOURNAL is geth's file name, in the datadir: accepted transactions survive a restart. */
export const TXPOOL_JOURNAL = 'transactions.rlp'
/** TXPOOL_REJOURNAL_MS (1 h) is geth's: the journal is compacted to the pool's content this often. */
export const TXPOOL_REJOURNAL_MS = 3600_000

/** EXEC_WORKERS_DEFAULT: one call worker per core, leaving one core to the main thread (HTTP, IBFT), at least one. */
export const EXEC_WORKERS_DEFAULT = Math.max(1, availableParallelism() - 1)
/** EXEC_CALL_QUEUE (256): a second of eth_call backlog at a few hundred calls/s; beyond it clients are told to retry. */
export const EXEC_CALL_QUEUE = 256
/** EXEC_TRACE_WORKERS (1): traces run beside calls, never instead of them; one at a time bounds their memory. */
export const EXEC_TRACE_WORKERS = 1
/** EXEC_TRACE_QUEUE (16): traces take seconds each, so a short queue already means a long wait. */
export const EXEC_TRACE_QUEUE = 16
/** EXEC_TRACE_MAX_BYTES (256 MiB): a 30M-gas loop traced with memory is gigabytes; the answer is bounded well under V8's string limit. */
export const EXEC_TRACE_MAX_BYTES = 256 * 1024 * 1024
/** EXEC_WORKER_HEAP_MB (1 GiB): a runaway request kills its worker, not the node (trace text lives off-heap). */
export const EXEC_WORKER_HEAP_MB = 1024
/** EXEC_CACHE_MB (64 MiB): the hot part of the state trie per worker; nodes are immutable so it is never invalidated. */
export const EXEC_CACHE_MB = 64
/**
 * EXEC_RECOVER_WORKERS (1): a thread recovering the senders of eth_sendRawTransaction (ecrecover,
 * the largest cost of admission) so the main thread does not; 0 = on the main thread.
 */
export const EXEC_RECOVER_WORKERS = 1

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
/** FOREIGN_CHAIN_PRICE_LIMIT_WEI (1 wei, geth's txpool.pricelimit): a chain imported from a geth genesis keeps geth's pool rule when no limit is set. */
export const FOREIGN_CHAIN_PRICE_LIMIT_WEI = 1n

/** DEFAULT_TOKEN_SYMBOL is a placeholder: the spec leaves the symbol open (<TOKEN_SYMBOL>). */
export const DEFAULT_TOKEN_SYMBOL = 'IBX'
/** DEFAULT_LOG_LEVEL shows start-up, blocks and warnings, not per-request lines. */
export const DEFAULT_LOG_LEVEL: LogLevel = 'info'
/** DEFAULT_LOG_FORMAT is JSON (pino): journald and log shippers keep the fields; `text` is for a terminal. */
export const DEFAULT_LOG_FORMAT: LogFormat = 'json'
/** CHAIN_NAMES: what wallets show; placeholders like the token symbol, set in [chain] before launch. */
export const CHAIN_NAMES: Readonly<Record<NetworkName, { name: string; shortName: string }>> = {
  dev: { name: 'Ibex Dev', shortName: 'ibex-dev' },
  testnet: { name: 'Ibex Testnet', shortName: 'tibex' },
  mainnet: { name: 'Ibex Mainnet', shortName: 'ibex' },
}
/** DEFAULT_P2P_PORT is used when p2p is switched on (--p2p.port / --bootnodes / [p2p]) without a port. */
export const DEFAULT_P2P_PORT = 30303

/** IBFT_ROUND_TIMEOUT_BASE_MS (10 s): a round waits base·2^round + block time; 10 s rides out a slow proposer or a congested link without needless round changes. */
export const IBFT_ROUND_TIMEOUT_BASE_MS = 10_000
/** IBFT_MIN_ROUND_TIMEOUT_MS (100 ms): below it a round ends before a proposal can cross the network and execute. */
export const IBFT_MIN_ROUND_TIMEOUT_MS = 100

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
    logFormat: DEFAULT_LOG_FORMAT,
    jsonrpc: {
      enabled: true,
      host: DEFAULT_HTTP_HOST,
      port: DEFAULT_HTTP_PORT,
      api: [...DEFAULT_API],
      corsOrigins: [...(dev ? DEV_CORS_ORIGINS : NETWORK_CORS_ORIGINS)],
      maxBodyBytes: MAX_REQUEST_BODY_BYTES,
      maxBatchItems: MAX_BATCH_ITEMS,
      batchConcurrency: BATCH_CONCURRENCY,
      gasCap: RPC_GAS_CAP,
      evmTimeoutMs: RPC_EVM_TIMEOUT_MS,
      ws: true,
      filterTimeoutMs: FILTER_TIMEOUT_MS,
      maxLogBlockRange: MAX_LOG_BLOCK_RANGE,
      maxLogResults: MAX_LOG_RESULTS,
      wsMaxBufferedBytes: WS_MAX_BUFFERED_BYTES,
      vhosts: [...DEFAULT_VHOSTS],
      trustedProxies: [],
      maxConnections: HTTP_MAX_CONNECTIONS,
      headerTimeoutMs: HTTP_HEADER_TIMEOUT_MS,
      readTimeoutMs: HTTP_READ_TIMEOUT_MS,
      idleTimeoutMs: HTTP_IDLE_TIMEOUT_MS,
      fastHttp: true,
      maxResponseBytes: MAX_RESPONSE_BYTES,
      shutdownGraceMs: SHUTDOWN_GRACE_MS,
      rateLimit: { ...(dev ? RATE_LIMITS_OFF : PUBLIC_RATE_LIMITS), explicit: false },
    },
    chain: {
      tokenSymbol: DEFAULT_TOKEN_SYMBOL,
      explorerUrl: '',
      rpcUrls: [],
      name: CHAIN_NAMES[network].name,
      shortName: CHAIN_NAMES[network].shortName,
      tokenName: DEFAULT_TOKEN_SYMBOL,
      infoUrl: '',
      faucetUrls: [],
    },
    txpool: {
      priceLimit: dev ? DEV_PRICE_LIMIT_WEI : NETWORK_PRICE_LIMIT_WEI,
      priceBump: TXPOOL_PRICE_BUMP_PERCENT,
      accountQueue: TXPOOL_ACCOUNT_QUEUE,
      globalSlots: TXPOOL_GLOBAL_SLOTS,
      globalQueue: TXPOOL_GLOBAL_QUEUE,
      lifetimeMs: TXPOOL_LIFETIME_MS,
      journal: TXPOOL_JOURNAL,
      rejournalMs: TXPOOL_REJOURNAL_MS,
    },
    p2p: undefined,
    ibft: { roundTimeoutBaseMs: IBFT_ROUND_TIMEOUT_BASE_MS },
    exec: {
      workers: EXEC_WORKERS_DEFAULT,
      callQueue: EXEC_CALL_QUEUE,
      traceWorkers: EXEC_TRACE_WORKERS,
      traceQueue: EXEC_TRACE_QUEUE,
      traceMaxBytes: EXEC_TRACE_MAX_BYTES,
      workerHeapMb: EXEC_WORKER_HEAP_MB,
      cacheMb: EXEC_CACHE_MB,
      recoverWorkers: EXEC_RECOVER_WORKERS,
    },
    metrics: { enabled: false, host: METRICS_DEFAULT_HOST, port: METRICS_DEFAULT_PORT },
    faucet: {
      rpcUrl: `http://${DEFAULT_HTTP_HOST}:${DEFAULT_HTTP_PORT}`,
      keyFile: undefined,
      amountWei: FAUCET_AMOUNT_WEI,
      cooldownMs: FAUCET_COOLDOWN_MS,
      dailyBudgetWei: FAUCET_DAILY_BUDGET_WEI,
      host: DEFAULT_HTTP_HOST,
      port: FAUCET_DEFAULT_PORT,
      stateFile: FAUCET_STATE_FILE,
      trustedProxies: [],
    },
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

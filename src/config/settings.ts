/**
 * The one table of settings: a row per key — its TOML key, flag, kind of value (src/config/kinds.ts),
 * default and help line — with the reason for the default beside it. Everything else is derived:
 * load.ts parses the file and the flags with it, defaults.ts builds defaultConfig() from it, and
 * `ibex --help` and the README's tables (src/cli/commands/help.ts) print it, defaults included.
 * Defaults that differ between networks come from src/config/presets.ts (byPreset).
 *
 * A row writes to the IbexConfig field named like its key (`max_body_bytes` → `maxBodyBytes`)
 * unless it says `to`; the types check that the field exists and holds the kind's value.
 */
import { availableParallelism } from 'node:os'

import { ValueProblem } from './errors.js'
import {
  type Camel,
  type ConfigPath,
  type Default,
  type Kind,
  type ValueAt,
  bool,
  byPreset,
  bytes,
  camel,
  described,
  duration,
  file,
  gas,
  host,
  int,
  list,
  oneOf,
  port,
  text,
  unset,
  url,
  urls,
  wei,
} from './kinds.js'
import { DEFAULT_NETWORK } from './presets.js'
import type { RpcNamespace } from './types.js'
import {
  LOG_FORMATS,
  LOG_LEVELS,
  NETWORKS,
  parseBootnodes,
  parseInteger,
  parseNamespaces,
  parseOrigins,
  parsePort,
  parseProxies,
  parseString,
  parseTokenSymbol,
  parseUrl,
  parseVhosts,
  parseWei,
} from './values.js'

export type Command =
  | 'start'
  | 'init'
  | 'import'
  | 'export'
  | 'genesis'
  | 'faucet'
  | 'chain-info'
  | 'checkpoint'
  | 'help'
  | 'version'
export const COMMANDS: readonly Command[] = ['start', 'init', 'import', 'export', 'genesis', 'faucet', 'chain-info', 'checkpoint', 'help', 'version']

/** Where a value came from, for resolving relative paths: file values resolve against the file's directory. */
export interface ApplyContext {
  resolvePath(path: string): string
}

export interface Setting<T = unknown> {
  /** TOML key, dotted: `network`, `jsonrpc.port`; undefined for the flag-only `--config`. */
  key: string | undefined
  /** Flag name without `--` (`http.port`); undefined when the setting is file-only. */
  flag: string | undefined
  /** Dotted IbexConfig path written; undefined for `--config`, which the loader reads itself. */
  to: string | undefined
  kind: Kind<T>
  default: Default<T>
  /** One line for --help and the README. */
  help: string
}

type FieldAt<P extends string> = P extends ConfigPath ? ValueAt<P> : never

/** row: one typed setting; `to` defaults to the key's camel-cased field. */
function row<const K extends string, P extends string = Camel<K>>(spec: {
  key: K
  to?: P
  flag?: string
  kind: Kind<NoInfer<NonNullable<FieldAt<P>>>>
  default: Default<NoInfer<FieldAt<P>>>
  help: string
}): Setting {
  const { key, flag, kind, help } = spec
  const to = spec.to ?? camel(key)
  return { key, flag, to, kind: kind as Kind<unknown>, default: spec.default, help }
}

const HTTP_SCHEMES = ['http:', 'https:'] as const
const RPC_SCHEMES = ['http:', 'https:', 'ws:', 'wss:'] as const
const MIB = 1024 * 1024
const HOUR_MS = 3600_000
const ETHER = 10n ** 18n
/** Most worker threads of one kind: far more than cores only adds memory and contention. */
const MAX_EXEC_WORKERS = 256
/** IBFT_MIN_ROUND_TIMEOUT_MS (100 ms): below it a round ends before a proposal can cross the network and execute. */
const IBFT_MIN_ROUND_TIMEOUT_MS = 100
/** MAX_SPAN_PRODUCERS: committee draws per span; IBFT's messages grow with the committee, and the DAO has 150 seats. */
const MAX_SPAN_PRODUCERS = 1000
/** Connections one client address may hold on a public network's RPC port (jsonrpc.max_connections_per_ip). */
const MAX_CONNECTIONS_PER_IP_PUBLIC = 64
/** A per-second request budget: 0 (no limit) to a million. */
const budget = int(0, 1_000_000)
/** Loopback only: serving the world is a deliberate act (set 0.0.0.0). */
const LOOPBACK = '127.0.0.1'
/** Namespaces a public network serves by default, and the dev chain's (jsonrpc.api). */
const PUBLIC_APIS: readonly RpcNamespace[] = ['eth', 'net', 'web3', 'txpool']
const DEV_APIS: readonly RpcNamespace[] = [...PUBLIC_APIS, 'debug', 'personal', 'evm', 'anvil', 'hardhat', 'ots', 'trace']
/** Blocks one anvil_mine may seal: each is a committed, fsynced block (ms each), not one of hardhat's virtual ones. */
const MINE_MAX_BLOCKS = 10_000
/** OTS_DEFAULT_MAX_PAGE_SIZE: Otterscan's page and Erigon's default --ots.search.max.pagesize. */
const OTS_DEFAULT_MAX_PAGE_SIZE = 25
/** OTS_MAX_PAGE_SIZE_LIMIT: a page is read and formatted on the main thread; a thousand transactions is ~1 MB of JSON. */
const OTS_MAX_PAGE_SIZE_LIMIT = 1000
/** The port every Ethereum tool tries first. */
const HTTP_PORT = 8545
/** The port geth and most clients listen for peers on. */
const P2P_PORT = 30303

/**
 * CHECKPOINT_MAX_BLOCKS (1,024, Heimdall's max_checkpoint_length; src/validators/checkpoint/root.ts
 * holds the same bound): a block's proof is at most 10 hashes and a vote recomputes at most 1,024
 * block hashes; 30 minutes of 1 s blocks (1,800) go out as two checkpoints back to back.
 */
const CHECKPOINT_MAX_BLOCKS = 1024
/** MAX_UPTIME_WINDOW: checkpoints read for uptime (three windows are kept for the health rule). */
const MAX_UPTIME_WINDOW = 10_000
const MINUTE_MS = 60_000

/** A 20-byte hex address, or "" (none). */
const ADDRESS: Kind<string> = {
  parse(raw) {
    if (raw === '') return ''
    if (typeof raw !== 'string' || !/^0x[0-9a-fA-F]{40}$/.test(raw))
      throw new ValueProblem('expected a 0x-prefixed 20-byte hex address')
    return raw.toLowerCase()
  },
  show: (v) => (v === '' ? '"" (none)' : v),
  metavar: 'ADDRESS',
}

/** A URL path that starts and ends with `/` (the explorer's mount point); never `/` itself, which is the health probe. */
const URL_PATH: Kind<string> = {
  parse(raw) {
    if (typeof raw !== 'string' || !/^\/(?:[A-Za-z0-9_-]+\/)+$/.test(raw))
      throw new ValueProblem('expected a path such as /explorer/ (starts and ends with /; letters, digits, - and _)')
    return raw
  },
  show: String,
  metavar: 'PATH',
}

const SYMBOL: Kind<string> = { parse: parseTokenSymbol, show: String, metavar: 'SYMBOL' }

/** SETTINGS: every setting, in help order (TOML keys of a section keep this order in messages). */
export const SETTINGS: readonly Setting[] = [
  row({ key: 'network', flag: 'network', kind: oneOf(NETWORKS, 'NAME'), default: DEFAULT_NETWORK, help: `network preset: ${NETWORKS.join(', ')} (picks the defaults marked "dev:" and "testnet:")` }),
  row({ key: 'genesis', to: 'genesisFile', flag: 'genesis', kind: file(), default: unset('the network preset'), help: 'geth-format genesis.json to initialise the chain from, instead of the preset' }),
  // chains never share a directory by accident
  row({ key: 'datadir', flag: 'datadir', kind: file('DIR'), default: byPreset((_, network) => `./data/${network}`), help: 'data directory: database and validator key' }),
  { key: undefined, flag: 'config', to: undefined, kind: file(), default: unset('$IBEX_CONFIG, else none'), help: 'TOML configuration file; flags override it' },
  row({ key: 'block_time', to: 'blockTimeMs', flag: 'block-time', kind: duration(0), default: byPreset((p) => p.blockTimeMs), help: 'time between blocks (2s, 500ms, 1.5); 0 = seal as soon as transactions arrive' }),
  row({ key: 'validator_key', to: 'validatorKeyFile', flag: 'validator-key', kind: file(), default: unset('<datadir>/validator.key'), help: 'file with the validator private key (hex); must exist when given' }),
  // start-up, blocks and warnings, not a line per request
  row({ key: 'log_level', flag: 'log-level', kind: oneOf(LOG_LEVELS, 'LEVEL'), default: 'info', help: `log level: ${LOG_LEVELS.join(', ')}` }),
  // journald and log shippers keep pino's fields; `text` is for a terminal
  row({ key: 'log_format', flag: 'log-format', kind: oneOf(LOG_FORMATS, 'FORMAT'), default: 'json', help: `log line format: ${LOG_FORMATS.join(', ')} (json: one pino object per line; text: for a terminal)` }),

  row({ key: 'jsonrpc.enabled', kind: bool, default: true, help: 'serve HTTP JSON-RPC at all' }),
  row({ key: 'jsonrpc.host', flag: 'http.addr', kind: host, default: LOOPBACK, help: 'JSON-RPC bind address (0.0.0.0 = all interfaces)' }),
  row({ key: 'jsonrpc.port', flag: 'http.port', kind: port, default: HTTP_PORT, help: 'JSON-RPC port (0 = any free port)' }),
  // public networks leave debug_* out (tracing is expensive; the spec gates it by configuration); the dev chain
  // serves it (cast run, forge's traces) and personal_* (the dev accounts sign), as anvil and hardhat do
  row({ key: 'jsonrpc.api', flag: 'http.api', kind: list(parseNamespaces), default: byPreset((_, network) => [...(network === 'dev' ? DEV_APIS : PUBLIC_APIS)]), help: 'namespaces served, from: eth, net, web3, txpool, debug, personal, evm, anvil, hardhat (the last three only where [dev] cheats is on), testing (testing_buildBlockV1, never by default), bor and validators (the validator layer: spans, committees, validators; never by default), ots (Otterscan\'s API; brings erigon, its erigon_getHeaderByNumber; dev: on), trace (trace_replayTransaction with stateDiff, Otterscan\'s State Diff tab; dev: on)' }),
  row({ key: 'jsonrpc.cors_origins', flag: 'http.corsdomain', kind: list(parseOrigins), default: byPreset((p) => [...p.corsOrigins]), help: 'CORS origins allowed (* = any, empty = no CORS headers)' }),
  row({ key: 'jsonrpc.ws', flag: 'ws', kind: bool, default: true, help: 'accept WebSocket connections on the JSON-RPC port (--ws=false refuses them)' }),
  // geth's limits: any batch a wallet sends fits; one request cannot hold unbounded memory or queue unbounded work
  row({ key: 'jsonrpc.max_body_bytes', flag: 'rpc.body-limit', kind: bytes(1), default: 5 * MIB, help: 'largest request body accepted, bytes' }),
  row({ key: 'jsonrpc.max_batch_items', flag: 'rpc.batch-limit', kind: int(1), default: 1000, help: 'largest batch accepted, requests' }),
  // geth runs a batch's calls one by one; a few at a time keep a worker busy without one batch of 1000 eth_calls filling the call queue
  row({ key: 'jsonrpc.batch_concurrency', flag: 'rpc.batch-concurrency', kind: int(1), default: 16, help: 'items of one batch run at once (the rest wait their turn, answers keep request order)' }),
  // geth's cap and timeout: above any block, bounded CPU per call
  row({ key: 'jsonrpc.gas_cap', flag: 'rpc.gascap', kind: gas, default: 50_000_000n, help: 'gas cap of eth_call and eth_estimateGas' }),
  row({ key: 'jsonrpc.evm_timeout', to: 'jsonrpc.evmTimeoutMs', flag: 'rpc.evmtimeout', kind: duration(1), default: 5000, help: 'time limit of eth_call and eth_estimateGas (5s, 500ms)' }),
  // geth's filter deadline; reth's log query limits (geth: --rpc.rangelimit)
  row({ key: 'jsonrpc.filter_timeout', to: 'jsonrpc.filterTimeoutMs', flag: 'rpc.filter-timeout', kind: duration(1), default: 300_000, help: 'a filter not polled with eth_getFilterChanges for this long is removed (3s, 300)' }),
  row({ key: 'jsonrpc.max_log_block_range', flag: 'rpc.rangelimit', kind: int(0), default: 100_000, help: 'largest toBlock - fromBlock of eth_getLogs and eth_getFilterLogs (0 = no limit)' }),
  row({ key: 'jsonrpc.max_log_results', flag: 'rpc.max-logs-per-response', kind: int(0), default: 20_000, help: 'most logs in one eth_getLogs or eth_getFilterLogs answer spanning two or more blocks; a single block (blockHash, or from = to) is always answered whole (0 = no limit)' }),
  // filters and subscriptions: geth has no caps; each one costs memory and work per block, so a public node needs them (issue 18)
  row({ key: 'jsonrpc.max_filters', flag: 'rpc.max-filters', kind: int(0), default: 10_000, help: 'polling filters (eth_new*Filter) installed in all; a new one past it is refused with -32005 (0 = no limit)' }),
  row({ key: 'jsonrpc.max_filters_per_ip', flag: 'rpc.max-filters-per-ip', kind: int(0), default: 500, help: 'polling filters one client IP may have installed (0 = no limit)' }),
  row({ key: 'jsonrpc.max_filter_changes', flag: 'rpc.max-filter-changes', kind: int(1), default: 10_000, help: 'items a filter gathers between two eth_getFilterChanges before the oldest are dropped' }),
  row({ key: 'jsonrpc.max_subscriptions', flag: 'ws.max-subscriptions', kind: int(0), default: 10_000, help: 'eth_subscribe subscriptions over all WebSocket connections; a new one past it is refused with -32005 (0 = no limit)' }),
  row({ key: 'jsonrpc.max_subscriptions_per_ip', flag: 'ws.max-subscriptions-per-ip', kind: int(0), default: 500, help: 'subscriptions one client IP may hold over its connections (0 = no limit)' }),
  // a reader this far behind is cut instead of buffered without limit
  row({ key: 'jsonrpc.ws_max_buffered_bytes', flag: 'ws.max-buffer', kind: bytes(1), default: 16 * MIB, help: 'a WebSocket client with more unsent bytes than this is disconnected' }),
  // geth's: `localhost` (or any IP address, or no Host) passes; a public name must be listed
  row({ key: 'jsonrpc.vhosts', flag: 'http.vhosts', kind: list(parseVhosts), default: ['localhost'], help: 'Host header names accepted (* = any); IP addresses always pass; others get 403 `invalid host specified`' }),
  row({ key: 'jsonrpc.trusted_proxies', flag: 'rpc.trusted-proxies', kind: list(parseProxies), default: [], help: 'reverse proxies (IPs, CIDRs) whose X-Forwarded-For names the client for rate limits' }),
  // far above what a few thousand clients keep open, far below LimitNOFILE (65536)
  row({ key: 'jsonrpc.max_connections', flag: 'rpc.max-connections', kind: int(0), default: 2000, help: 'most open HTTP and WebSocket connections; more are closed at once (0 = no limit)' }),
  // MAX_CONNECTIONS_PER_IP_PUBLIC (64): ten times a browser's six, room for a NAT'd office or an indexer's pool, while
  // one address holds at most 3% of max_connections; the dev chain serves its one user (and load tests) unlimited
  row({ key: 'jsonrpc.max_connections_per_ip', flag: 'rpc.max-connections-per-ip', kind: int(0), default: byPreset((_, network) => (network === 'dev' ? 0 : MAX_CONNECTIONS_PER_IP_PUBLIC)), help: 'most open HTTP and WebSocket connections from one client address (IPv6: one /64); more are closed at accept; trusted proxies are exempt (0 = no limit)' }),
  // 10 s of headers is a slowloris, not a slow link; read and idle timeouts are geth's
  row({ key: 'jsonrpc.header_timeout', to: 'jsonrpc.headerTimeoutMs', flag: 'rpc.header-timeout', kind: duration(100), default: 10_000, help: 'a client must send its request headers within this (slow clients are cut: 408)' }),
  row({ key: 'jsonrpc.read_timeout', to: 'jsonrpc.readTimeoutMs', flag: 'rpc.read-timeout', kind: duration(100), default: 30_000, help: 'a client must send a whole request within this (at least the header timeout)' }),
  row({ key: 'jsonrpc.idle_timeout', to: 'jsonrpc.idleTimeoutMs', flag: 'rpc.idle-timeout', kind: duration(100), default: 120_000, help: 'an idle keep-alive connection is closed after this' }),
  row({ key: 'jsonrpc.fast_http', flag: 'rpc.fast-http', kind: bool, default: true, help: "read plain JSON-RPC POSTs with ibex's own HTTP/1.1 parser, about twice node:http's rate (false = node:http reads every request)" }),
  // geth's --rpc.batch-response-max-size
  row({ key: 'jsonrpc.max_response_bytes', flag: 'rpc.response-limit', kind: bytes(0), default: 25_000_000, help: 'largest answer (a batch counts whole); calls past it answer -32003 `response too large` (0 = no limit)' }),
  // twice the eth_call limit, so running calls finish; well inside systemd's 90 s stop timeout
  row({ key: 'jsonrpc.shutdown_grace', to: 'jsonrpc.shutdownGraceMs', flag: 'rpc.shutdown-grace', kind: duration(0), default: 10_000, help: 'on SIGTERM, requests still running after this are cut (new ones are refused at once)' }),
  // src/ops/health.ts READY_MAX_LAG_BLOCKS: one block behind is a block in flight, three block times without one is a stopped chain
  row({ key: 'jsonrpc.ready_max_lag_blocks', flag: 'rpc.ready-max-lag', kind: int(1, 1_000_000, 'BLOCKS'), default: 3, help: 'GET /ready: blocks a node may trail its chain (head age in block times, blocks behind its peers) and still answer 200' }),
  row({ key: 'jsonrpc.rate_limit', to: 'jsonrpc.rateLimit.requests', flag: 'rpc.ratelimit', kind: budget, default: byPreset((p) => p.budgets.requests), help: 'requests per second per client IP, each batch item counting; over it: 429, -32005 (0 = no limit)' }),
  row({ key: 'jsonrpc.rate_limit_call', to: 'jsonrpc.rateLimit.call', flag: 'rpc.ratelimit.call', kind: budget, default: byPreset((p) => p.budgets.call), help: 'eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 per second per client IP (0 = no own limit)' }),
  row({ key: 'jsonrpc.rate_limit_logs', to: 'jsonrpc.rateLimit.logs', flag: 'rpc.ratelimit.logs', kind: budget, default: byPreset((p) => p.budgets.logs), help: 'eth_getLogs, eth_getFilterLogs, bor_getRootHash (block-range scans) per second per client IP (0 = no own limit)' }),
  row({ key: 'jsonrpc.rate_limit_debug', to: 'jsonrpc.rateLimit.debug', flag: 'rpc.ratelimit.debug', kind: budget, default: byPreset((p) => p.budgets.debug), help: 'debug_* requests per second per client IP (0 = no own limit)' }),
  // a bucket holds 2 s of its rate, so short bursts pass
  row({ key: 'jsonrpc.rate_burst', to: 'jsonrpc.rateLimit.burstMs', flag: 'rpc.ratelimit.burst', kind: duration(1), default: 2000, help: 'a client may burst this many seconds of its rates at once' }),

  // a placeholder: the spec leaves the symbol open (<TOKEN_SYMBOL>)
  row({ key: 'chain.token_symbol', kind: SYMBOL, default: 'IBX', help: 'token symbol shown to wallets (placeholder until the launch name is set)' }),
  row({ key: 'chain.explorer_url', kind: url(HTTP_SCHEMES, true), default: '', help: 'block explorer URL, for wallets and chain registries' }),
  row({ key: 'chain.rpc_urls', kind: urls(RPC_SCHEMES), default: [], help: 'public RPC URLs of the network, for wallets and chain registries' }),
  row({ key: 'chain.name', kind: text(), default: byPreset((p) => p.name), help: 'network name shown to wallets and in the chain registry' }),
  row({ key: 'chain.short_name', kind: text(), default: byPreset((p) => p.shortName), help: 'chain registry short name (EIP-3770 address prefix)' }),
  row({ key: 'chain.token_name', kind: text(), default: 'IBX', help: 'name of the native token, for wallets' }),
  row({ key: 'chain.info_url', kind: url(HTTP_SCHEMES, true), default: '', help: 'project web page, for the chain registry' }),
  row({ key: 'chain.faucet_urls', kind: urls(HTTP_SCHEMES), default: [], help: 'faucet pages, for the chain registry (testnet)' }),

  row({ key: 'txpool.price_limit', flag: 'price-limit', kind: wei, default: byPreset((p) => p.priceLimit), help: 'lowest gas price / max fee accepted into the pool (1000000000, 1gwei); eth_gasPrice answers it' }),
  // geth's pool rules: +10% to replace; 64 future nonces per sender; 4096 + 1024 executable (several full
  // blocks); 1024 future (cheap to send, so the smaller share); queued gaps dropped after 3 h
  row({ key: 'txpool.price_bump', flag: 'txpool.pricebump', kind: int(1, undefined, 'PERCENT'), default: 10, help: 'a replacement must raise both fee cap and tip by at least this many percent' }),
  row({ key: 'txpool.account_queue', flag: 'txpool.accountqueue', kind: int(1), default: 64, help: 'most queued (future-nonce) transactions per sender' }),
  row({ key: 'txpool.global_slots', flag: 'txpool.globalslots', kind: int(1), default: 4096 + 1024, help: 'executable transactions the pool holds; global_slots + global_queue is its capacity' }),
  row({ key: 'txpool.global_queue', flag: 'txpool.globalqueue', kind: int(1), default: 1024, help: 'most queued transactions over all senders' }),
  row({ key: 'txpool.lifetime', to: 'txpool.lifetimeMs', flag: 'txpool.lifetime', kind: duration(1), default: 3 * HOUR_MS, help: 'queued transactions of a sender idle this long are dropped' }),
  // geth's file name and rewrite period: accepted transactions survive a restart
  row({ key: 'txpool.journal', flag: 'txpool.journal', kind: text('FILE', true), default: 'transactions.rlp', help: 'journal of accepted transactions, relative to the datadir, reloaded at start ("" = none)' }),
  row({ key: 'txpool.rejournal', to: 'txpool.rejournalMs', flag: 'txpool.rejournal', kind: duration(1000), default: HOUR_MS, help: 'how often the journal is rewritten to what the pool holds' }),

  // [p2p] is absent (no p2p) until one of its keys or flags is set; then it starts from these
  row({ key: 'p2p.port', flag: 'p2p.port', kind: port, default: P2P_PORT, help: 'libp2p TCP port; setting it switches p2p on' }),
  row({ key: 'p2p.bootnodes', flag: 'bootnodes', kind: list(parseBootnodes), default: [], help: 'libp2p multiaddrs of peers to dial; setting it switches p2p on' }),
  // a few block times: a transaction gossip missed (a validator down, a nonce gap) waits seconds, not forever
  row({ key: 'p2p.tx_announce_interval', to: 'p2p.txAnnounceIntervalMs', flag: 'p2p.tx-announce-interval', kind: duration(100), default: 5_000, help: 'how often pending transactions are announced by hash to every peer, which fetches those it lacks' }),
  // 10 s rides out a slow proposer or a congested link without needless round changes
  row({ key: 'ibft.round_timeout', to: 'ibft.roundTimeoutBaseMs', flag: 'ibft.round-timeout', kind: duration(IBFT_MIN_ROUND_TIMEOUT_MS), default: 10_000, help: 'IBFT round timeout base: round r ends after base·2^r + block time without a decision' }),
  // spans are off until a network asks for them (issue 19; Polygon: 6,400 blocks on mainnet, 1,600 elsewhere);
  // 0 producers = no draw, the whole validator set seals
  row({ key: 'ibft.span_blocks', flag: 'span-blocks', kind: int(0), default: 0, help: 'blocks per span: each span is sealed by a committee drawn from the DAO validator set (0 = no spans: the genesis validators seal)' }),
  row({ key: 'ibft.producers', flag: 'producers', kind: int(0, MAX_SPAN_PRODUCERS), default: 0, help: "seats drawn (power-weighted, with replacement) for each span's committee (0 = the whole validator set)" }),

  // one call worker per core, leaving one core to the main thread (HTTP, IBFT)
  row({ key: 'exec.workers', flag: 'exec.workers', kind: int(1, MAX_EXEC_WORKERS), default: described('cores - 1 (at least 1)', Math.max(1, availableParallelism() - 1)), help: 'worker threads for eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 (no EVM runs on the main thread)' }),
  // a second of backlog at a few hundred calls/s; beyond it clients are told to retry
  row({ key: 'exec.call_queue', flag: 'exec.call-queue', kind: int(0, 1_000_000), default: 256, help: 'eth_call, eth_estimateGas, eth_createAccessList and eth_simulateV1 requests that may wait for a worker; more are refused (-32005)' }),
  // under the evm timeout (5s): a queued call is answered within the two together, inside viem's default 10s
  row({ key: 'exec.queue_timeout', to: 'exec.queueTimeoutMs', flag: 'exec.queue-timeout', kind: duration(1), default: 2000, help: 'longest a call or trace waits for a free worker; then it is refused unrun (-32005 "busy"), never charged as its own timeout, which starts when a worker takes it' }),
  // traces run beside calls, one at a time (bounded memory); they take seconds, so a short queue is already a long wait
  row({ key: 'exec.trace_workers', flag: 'exec.trace-workers', kind: int(1, MAX_EXEC_WORKERS), default: 1, help: 'worker threads for debug_trace* (traces running at once), apart from the call workers' }),
  // an Otterscan address page asks ots_getInternalOperations for each of its 25 transactions at once (unbatched
  // over ws://): two such pages must fit; queue_timeout still bounds every wait
  row({ key: 'exec.trace_queue', flag: 'exec.trace-queue', kind: int(0, 1_000_000), default: 64, help: 'debug_trace*, ots_ and trace_ re-executions that may wait for a trace worker; more are refused (-32005)' }),
  // a 30M-gas loop traced with memory is gigabytes; the answer stays well under V8's string limit
  row({ key: 'exec.trace_max_bytes', flag: 'exec.trace-max-bytes', kind: bytes(1024, 512 * MIB), default: 256 * MIB, help: 'largest trace answer; a trace that grows past it stops with -32005' }),
  // a runaway request kills its worker, not the node; the trie cache holds the hot state (nodes never change)
  row({ key: 'exec.worker_heap_mb', flag: 'exec.worker-heap', kind: int(0, 1_048_576, 'MIB'), default: 1024, help: 'JS heap limit of each worker, MiB (0 = Node default); a worker over it is replaced and its request fails' }),
  row({ key: 'exec.cache_mb', flag: 'exec.cache', kind: int(0, 1_048_576, 'MIB'), default: 64, help: "each worker's cache of state trie nodes, MiB" }),
  // ecrecover is the largest cost of admitting a transaction: off the main thread
  row({ key: 'exec.recover_workers', flag: 'exec.recover-workers', kind: int(0, MAX_EXEC_WORKERS), default: 1, help: 'worker threads recovering the senders of submitted transactions (ecrecover); 0 = on the main thread' }),

  // explorer indexes (issue 21): on by default, so Otterscan and the built-in explorer work on any node; a node that
  // serves neither turns them off (bench/explorer-index.ts measures what they cost block building)
  row({ key: 'explorer.index_appearances', flag: 'explorer.index-appearances', kind: bool, default: true, help: 'index every address a transaction touches (sender, recipient, every internal call frame) for ots_searchTransactionsBefore/After' }),
  row({ key: 'explorer.index_sender_nonce', flag: 'explorer.index-sender-nonce', kind: bool, default: true, help: 'index transactions by sender and nonce for ots_getTransactionBySenderAndNonce' }),
  row({ key: 'explorer.index_creators', flag: 'explorer.index-creators', kind: bool, default: true, help: 'index each contract\'s creator and creation transaction (internal CREATE/CREATE2 too) for ots_getContractCreator' }),
  row({ key: 'explorer.index_fees', flag: 'explorer.index-fees', kind: bool, default: true, help: 'store each block\'s total fees for ots_getBlockDetails (off: summed from the receipts when asked)' }),
  row({ key: 'explorer.index_reverts', flag: 'explorer.index-reverts', kind: bool, default: true, help: 'store the return data of failed transactions for ots_getTransactionError (off: the transaction is re-executed on a trace worker)' }),
  // OTS_MAX_PAGE_SIZE_LIMIT: Erigon's --ots.search.max.pagesize default is 25 (Otterscan's page); a bigger page is a
  // bigger answer built on the main thread
  row({ key: 'explorer.max_page_size', flag: 'explorer.max-page-size', kind: int(1, OTS_MAX_PAGE_SIZE_LIMIT), default: OTS_DEFAULT_MAX_PAGE_SIZE, help: 'largest pageSize of ots_searchTransactionsBefore/After and ots_getBlockTransactions; a larger one is refused with -32602' }),
  // the built-in explorer (src/explorer): pages that read this port's own JSON-RPC; a public node opts in
  row({ key: 'explorer.enabled', flag: 'explorer', kind: bool, default: byPreset((_, network) => network === 'dev'), help: 'serve the built-in block explorer on the JSON-RPC port under explorer.path (static pages that read this port\'s JSON-RPC; dev: on). Its pages use the ots namespace, and bor/validators when served' }),
  row({ key: 'explorer.path', flag: 'explorer.path', kind: URL_PATH, default: '/explorer/', help: 'URL path of the built-in explorer: starts and ends with /, letters, digits, - and _ between' }),

  // Prometheus scrapes over loopback or a private network, never the public one; 6060 is geth's port
  row({ key: 'metrics.enabled', flag: 'metrics', kind: bool, default: false, help: 'serve Prometheus metrics on GET /metrics of --metrics.addr:--metrics.port' }),
  row({ key: 'metrics.host', flag: 'metrics.addr', kind: host, default: LOOPBACK, help: 'metrics bind address (keep it off the public interface)' }),
  row({ key: 'metrics.port', flag: 'metrics.port', kind: port, default: 6060, help: 'metrics port (0 = any free port)' }),

  row({ key: 'faucet.rpc_url', kind: url(HTTP_SCHEMES), default: `http://${LOOPBACK}:${HTTP_PORT}`, help: 'JSON-RPC URL of the node the faucet sends its transactions through' }),
  row({ key: 'faucet.key_file', kind: file(), default: unset('none (required by ibex faucet)'), help: "file with the faucet account's private key (hex)" }),
  // 1 coin: thousands of test transactions at 1 gwei; once a day per address and IP; 500 a day: a leaked
  // key cannot drain the faucet faster than operators notice
  row({ key: 'faucet.amount', to: 'faucet.amountWei', kind: wei, default: ETHER, help: 'amount sent per request (1ether, 0.5ether, wei)' }),
  row({ key: 'faucet.cooldown', to: 'faucet.cooldownMs', kind: duration(1), default: 24 * HOUR_MS, help: 'an address, and a client IP, is served once per this long (kept across restarts)' }),
  row({ key: 'faucet.daily_budget', to: 'faucet.dailyBudgetWei', kind: wei, default: 500n * ETHER, help: 'most sent per UTC day; then requests are refused until midnight UTC' }),
  row({ key: 'faucet.host', kind: host, default: LOOPBACK, help: 'faucet page bind address' }),
  // behind the same reverse proxy as the RPC
  row({ key: 'faucet.port', kind: port, default: 8080, help: 'faucet page port (0 = any free port)' }),
  row({ key: 'faucet.state_file', kind: text('FILE'), default: 'faucet-state.json', help: 'cooldown and budget state, relative to the datadir' }),
  row({ key: 'faucet.trusted_proxies', kind: list(parseProxies), default: [], help: "reverse proxies (IPs, CIDRs) whose X-Forwarded-For names the faucet's client" }),

  // anvil's and hardhat's habit: the dev chain's funded accounts (public keys of the test mnemonic) sign for
  // their users. Never on chain ids 786/7860 (the node refuses to start); off on a --genesis chain unless set
  row({ key: 'dev.unlocked_accounts', flag: 'dev.unlocked-accounts', kind: bool, default: byPreset((_, network) => network === 'dev'), help: 'the test mnemonic\'s ten accounts sign for clients: eth_accounts, eth_sendTransaction, eth_sign, eth_signTypedData_v4, personal_sign (refused on chain ids 786 and 7860)' }),
  // anvil's and hardhat's test controls; they rewrite the chain's state, so only where this node seals alone
  row({ key: 'dev.cheats', flag: 'dev.cheats', kind: bool, default: unset('on for --network dev without --genesis, else off'), help: 'serve evm_mine, evm_increaseTime, evm_setNextBlockTimestamp and anvil_/hardhat_ mine, setBalance, setCode, setStorageAt, setNonce (namespaces evm, anvil, hardhat of [jsonrpc] api); refused on chain ids 786 and 7860 and where this node is not the sole validator' }),
  row({ key: 'dev.mine_max_blocks', flag: 'dev.mine-max-blocks', kind: int(1, 1_000_000), default: MINE_MAX_BLOCKS, help: 'most blocks one anvil_mine / hardhat_mine seals (each is a committed block)' }),

  // checkpoints (issue 20): off until an operator deploys the base-chain contracts and names them here
  row({ key: 'checkpoint.enabled', flag: 'checkpoint', kind: bool, default: false, help: "sign checkpoints of this chain for the base chain's CheckpointManager and submit them when this validator proposes (needs a validator key and the keys below)" }),
  row({ key: 'checkpoint.base_rpc', flag: 'checkpoint.base-rpc', kind: url(HTTP_SCHEMES, true), default: '', help: 'JSON-RPC URL of the base chain the checkpoints go to' }),
  row({ key: 'checkpoint.base_chain_id', flag: 'checkpoint.base-chain-id', kind: int(0), default: 0, help: "the base chain's id, signed into every checkpoint (0 = not set; required when checkpoints are on, checked against the base chain's eth_chainId)" }),
  row({ key: 'checkpoint.manager', flag: 'checkpoint.manager', kind: ADDRESS, default: '', help: 'CheckpointManager address on the base chain (ibex checkpoint deploy prints it)' }),
  row({ key: 'checkpoint.vault', flag: 'checkpoint.vault', kind: ADDRESS, default: '', help: 'ExitVault address on the base chain (for withdrawals; informational to the node)' }),
  // the signer key pays by default: one key per validator to fund, nothing more to keep
  row({ key: 'checkpoint.key_file', flag: 'checkpoint.key', kind: file(), default: unset('the validator key'), help: "file with the private key (hex) of the base-chain account that pays for this validator's submissions; it must hold base-chain coin" }),
  // VALIDATORS.md: about every 30 minutes (Polygon's cadence)
  row({ key: 'checkpoint.interval', to: 'checkpoint.intervalMs', flag: 'checkpoint.interval', kind: duration(1000), default: 30 * MINUTE_MS, help: 'a checkpoint is proposed this long after the last one was committed (sooner when max_blocks blocks wait)' }),
  row({ key: 'checkpoint.max_blocks', flag: 'checkpoint.max-blocks', kind: int(1, CHECKPOINT_MAX_BLOCKS, 'BLOCKS'), default: CHECKPOINT_MAX_BLOCKS, help: "most blocks in one checkpoint (at most 1024 and the contract's maxBlocks; a longer backlog goes out as several checkpoints back to back)" }),
  // Ethereum mainnet: a dozen blocks (~2.5 min) make a reorg of the submission practically impossible
  row({ key: 'checkpoint.base_confirmations', flag: 'checkpoint.confirmations', kind: int(1, 1000, 'BLOCKS'), default: 12, help: 'base-chain blocks including and on top of a submission before it counts as done (1 = included)' }),
  // the seed wants every validator's signature: a few seconds let the late ones in without delaying the cadence
  row({ key: 'checkpoint.grace', to: 'checkpoint.graceMs', flag: 'checkpoint.grace', kind: duration(0), default: 10_000, help: 'once signers holding > 2/3 of the power signed, the proposer waits this long for the other signatures (0 = submit at once)' }),
  // a sixth of the cadence: a dead proposer costs minutes, a slow base chain does not cause needless handovers
  row({ key: 'checkpoint.proposer_timeout', to: 'checkpoint.proposerTimeoutMs', flag: 'checkpoint.proposer-timeout', kind: duration(1000), default: 5 * MINUTE_MS, help: 'a proposer whose checkpoint is not committed this long after it was due hands over to the next in proposer priority' }),
  // Polygon's monitoring period
  row({ key: 'checkpoint.uptime_window', flag: 'checkpoint.uptime-window', kind: int(1, MAX_UPTIME_WINDOW, 'CHECKPOINTS'), default: 700, help: 'uptime = checkpoints signed over the last this many checkpoints (since the validator joined)' }),
  // about Ethereum's block time
  row({ key: 'checkpoint.poll_interval', to: 'checkpoint.pollIntervalMs', flag: 'checkpoint.poll-interval', kind: duration(100), default: 10_000, help: "how often the base chain's CheckpointManager is read (last checkpoint, signers, events)" }),
]

/** OPTIONAL_SECTIONS: sections IbexConfig leaves undefined until one of their keys is set. */
export const OPTIONAL_SECTIONS: readonly string[] = ['p2p']

/** tomlKeyName renders a TOML key for messages and tables: `[jsonrpc] port` or `datadir`. */
export function tomlKeyName(key: string): string {
  const dot = key.indexOf('.')
  return dot === -1 ? key : `[${key.slice(0, dot)}] ${key.slice(dot + 1)}`
}

// ── Flags of one command (they land in CommandExtra, not IbexConfig) ─────────────────────────

export interface CommandFlagDef {
  flag: string
  commands: readonly Command[]
  metavar: string
  help: string
  parse(raw: unknown): unknown
  /** May be given more than once (each value is collected). */
  repeatable?: boolean
}

/** Most full nodes `ibex genesis` lays out next to the validators. */
export const GENESIS_MAX_FULL_NODES = 100

/** A `--prefund ADDR=WEI` entry. */
export interface Prefund {
  address: string
  wei: bigint
}

function parsePrefund(raw: unknown): Prefund {
  const m = typeof raw === 'string' ? /^(0x[0-9a-fA-F]{40})=(.+)$/.exec(raw) : null
  if (m === null)
    throw new ValueProblem('expected ADDRESS=WEI, e.g. 0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266=1000ether')
  return { address: m[1] as string, wei: parseWei(m[2]) }
}

/** `--token NAME:SYMBOL:SUPPLY` of ibex checkpoint deploy. */
export interface TokenSpec {
  name: string
  symbol: string
  supply: bigint
}

function parseTokenSpec(raw: unknown): TokenSpec {
  const m = typeof raw === 'string' ? /^([^:]+):([A-Za-z0-9]{1,11}):([0-9]+)$/.exec(raw) : null
  if (m === null || BigInt(m[3] as string) === 0n)
    throw new ValueProblem('expected NAME:SYMBOL:SUPPLY, e.g. "Test Token:TT:1000000000000000000000" (symbol 1-11 letters or digits, supply > 0)')
  return { name: m[1] as string, symbol: m[2] as string, supply: BigInt(m[3] as string) }
}

function parseAddresses(raw: unknown): string[] {
  const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : []
  if (list.length === 0 || list.some((a) => !/^0x[0-9a-fA-F]{40}$/.test(a))) {
    throw new ValueProblem('expected a comma-separated list of 0x-prefixed 20-byte addresses')
  }
  return list
}

const genesisFlag = (flag: string, metavar: string, help: string, parse: (raw: unknown) => unknown) =>
  ({ flag, commands: ['genesis'], metavar, help, parse }) as const
const checkpointFlag = (flag: string, metavar: string, help: string, parse: (raw: unknown) => unknown) =>
  ({ flag, commands: ['checkpoint'], metavar, help, parse }) as const

export const COMMAND_FLAGS: readonly CommandFlagDef[] = [
  genesisFlag('validators', 'N', 'make N new validator keys (validator-<i>.key), put them in the genesis and seat them in its Validator DAO (at most 150)', (raw) => parseInteger(raw, 1, 1000)),
  genesisFlag('addresses', 'LIST', 'use these validator addresses instead (keys stay with their owners)', parseAddresses),
  genesisFlag('out', 'DIR', 'directory to write genesis.json (and the keys) into; created if missing', parseString),
  genesisFlag('chain-id', 'N', "chain id of the new genesis (default: the --network preset's)", (raw) => parseInteger(raw, 1, Number.MAX_SAFE_INTEGER)),
  genesisFlag('full-nodes', 'M', 'also lay out M full nodes (no validator key) after the validators', (raw) => parseInteger(raw, 0, GENESIS_MAX_FULL_NODES)),
  genesisFlag('http-base-port', 'H', `node i serves JSON-RPC on port H+i-1 [default: ${HTTP_PORT}]`, parsePort),
  genesisFlag('p2p-base-port', 'P', `node i listens for peers on port P+i-1 [default: ${P2P_PORT}]`, parsePort),
  { ...genesisFlag('prefund', 'ADDR=WEI', 'fund an account in the genesis (1000ether, 5gwei or wei); repeatable', parsePrefund), repeatable: true },
  checkpointFlag('key', 'FILE', 'deploy: file with the private key (hex) of the base-chain account that pays for the deployment', parseString),
  checkpointFlag('child-rpc', 'URL', "JSON-RPC URL of a node of the child chain: its chain id, head and DAO validator set (default: http://127.0.0.1:<[jsonrpc] port>)", (raw) => parseUrl(raw, ['http:', 'https:'])),
  checkpointFlag('token', 'NAME:SYMBOL:SUPPLY', 'deploy: also a bridged ERC-20 pair (BaseToken on the base chain, its supply given to the vault; ChildToken on the child chain; mapped in the vault); SUPPLY in smallest units', parseTokenSpec),
  checkpointFlag('child-key', 'FILE', 'deploy --token: file with the private key (hex) of the child-chain account that deploys ChildToken and receives its supply', parseString),
  { ...checkpointFlag('write-config', 'PATH', 'deploy: write [checkpoint] enabled, base_rpc, base_chain_id, manager and vault into this node config, or into every node<i>/config.toml under this directory; repeatable', parseString), repeatable: true },
]

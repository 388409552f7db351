/**
 * Rows of the settings table (settings.ts) for operating a node on a public host: log format,
 * public-endpoint protection of `[jsonrpc]` (virtual hosts, trusted proxies, connection and time
 * limits, response cap, per-IP rate limits), the chain-registry names of `[chain]`, the
 * Prometheus endpoint `[metrics]` and the testnet faucet `[faucet]` (`ibex faucet`, file-only).
 * settings.ts splices them in, so the parser, `ibex --help` and the README table see them.
 */
import { isIP } from 'node:net'

import {
  FAUCET_AMOUNT_WEI,
  FAUCET_COOLDOWN_MS,
  FAUCET_DAILY_BUDGET_WEI,
  FAUCET_DEFAULT_PORT,
  FAUCET_STATE_FILE,
  DEFAULT_LOG_FORMAT,
  HTTP_HEADER_TIMEOUT_MS,
  HTTP_IDLE_TIMEOUT_MS,
  HTTP_MAX_CONNECTIONS,
  HTTP_READ_TIMEOUT_MS,
  MAX_RESPONSE_BYTES,
  METRICS_DEFAULT_HOST,
  METRICS_DEFAULT_PORT,
  PUBLIC_RATE_LIMITS,
  SHUTDOWN_GRACE_MS,
} from './defaults.js'
import { ValueProblem } from './errors.js'
import type { SettingDef } from './settings.js'
import type { IbexConfig, LogFormat } from './types.js'
import {
  parseBoolean,
  parseDurationMs,
  parseEnum,
  parseHost,
  parseInteger,
  parseList,
  parsePort,
  parseString,
  parseUrl,
  parseUrls,
  parseWei,
} from './values.js'

export const LOG_FORMATS: readonly LogFormat[] = ['json', 'text']

/** Longest virtual host name (DNS). */
const MAX_HOST_NAME_LENGTH = 253
const HOST_LABELS = /^[a-z0-9*](?:[a-z0-9-]{0,61}[a-z0-9])?(?:\.[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?)*$/

/** A typed row (settings.ts's own helper is private to it). */
function row<T>(def: {
  flag?: string
  toml: readonly [string, string]
  metavar?: string
  help: string
  defaultText: string
  parse(raw: unknown): T
  apply(config: IbexConfig, value: T, ctx: { resolvePath(path: string): string }): void
}): SettingDef {
  return {
    flag: def.flag,
    toml: def.toml,
    metavar: def.metavar,
    help: def.help,
    defaultText: def.defaultText,
    parse: def.parse,
    apply: def.apply as SettingDef['apply'],
  }
}

const seconds = (ms: number) => `${ms / 1000}s`
const count =
  (min: number, max = Number.MAX_SAFE_INTEGER) =>
  (raw: unknown) =>
    parseInteger(raw, min, max)
/** A per-second rate: an integer, 0 = no limit. */
const rate = (raw: unknown) => parseInteger(raw, 0, 1_000_000)
const HTTP_SCHEMES = ['http:', 'https:'] as const

/** parseProxies reads IP addresses and CIDR ranges (`10.0.0.0/8`, `::1`, `fd00::/8`). */
export function parseProxies(raw: unknown): string[] {
  const list = parseList(raw, 'IP addresses or CIDR ranges')
  for (const item of list) {
    const [ip, bits, more] = item.split('/')
    const family = isIP(ip ?? '')
    const maxBits = family === 4 ? 32 : 128
    const bitsOk = bits === undefined || (/^[0-9]{1,3}$/.test(bits) && Number(bits) <= maxBits)
    if (family === 0 || !bitsOk || more !== undefined) {
      throw new ValueProblem(
        `${JSON.stringify(item)} is not an IP address or CIDR range (e.g. 127.0.0.1, 10.0.0.0/8)`,
        'specific',
      )
    }
  }
  return list
}

/** parseVhosts reads host names for the Host header check: `*`, `localhost`, `rpc.example.org`, `*.example.org`. */
export function parseVhosts(raw: unknown): string[] {
  const list = parseList(raw, 'host names').map((h) => h.toLowerCase())
  for (const host of list) {
    if (host === '*') continue
    if (host.length > MAX_HOST_NAME_LENGTH || !HOST_LABELS.test(host)) {
      throw new ValueProblem(
        `${JSON.stringify(host)} is not a host name (e.g. localhost, rpc.example.org, *)`,
        'specific',
      )
    }
  }
  return list
}

/** Top-level rows placed after `log_level`. */
export const LOG_SETTINGS: readonly SettingDef[] = [
  row({
    flag: 'log-format',
    toml: ['', 'log_format'],
    metavar: 'FORMAT',
    defaultText: DEFAULT_LOG_FORMAT,
    help: `log line format: ${LOG_FORMATS.join(', ')} (json: one pino object per line; text: for a terminal)`,
    parse: (raw) => parseEnum(raw, LOG_FORMATS),
    apply: (c, v) => {
      c.logFormat = v
    },
  }),
]

/** `[jsonrpc]` rows protecting a public endpoint. */
export const JSONRPC_PROTECTION_SETTINGS: readonly SettingDef[] = [
  row({
    flag: 'http.vhosts',
    toml: ['jsonrpc', 'vhosts'],
    metavar: 'LIST',
    defaultText: 'localhost',
    help: 'Host header names accepted (* = any); IP addresses always pass; others get 403 `invalid host specified`',
    parse: parseVhosts,
    apply: (c, v) => {
      c.jsonrpc.vhosts = v
    },
  }),
  row({
    flag: 'rpc.trusted-proxies',
    toml: ['jsonrpc', 'trusted_proxies'],
    metavar: 'LIST',
    defaultText: 'none',
    help: 'reverse proxies (IPs, CIDRs) whose X-Forwarded-For names the client for rate limits',
    parse: parseProxies,
    apply: (c, v) => {
      c.jsonrpc.trustedProxies = v
    },
  }),
  row({
    flag: 'rpc.max-connections',
    toml: ['jsonrpc', 'max_connections'],
    metavar: 'N',
    defaultText: String(HTTP_MAX_CONNECTIONS),
    help: 'most open HTTP and WebSocket connections; more are closed at once (0 = no limit)',
    parse: count(0),
    apply: (c, v) => {
      c.jsonrpc.maxConnections = v
    },
  }),
  row({
    flag: 'rpc.header-timeout',
    toml: ['jsonrpc', 'header_timeout'],
    metavar: 'DURATION',
    defaultText: seconds(HTTP_HEADER_TIMEOUT_MS),
    help: 'a client must send its request headers within this (slow clients are cut: 408)',
    parse: (raw) => parseDurationMs(raw, 100),
    apply: (c, v) => {
      c.jsonrpc.headerTimeoutMs = v
    },
  }),
  row({
    flag: 'rpc.read-timeout',
    toml: ['jsonrpc', 'read_timeout'],
    metavar: 'DURATION',
    defaultText: seconds(HTTP_READ_TIMEOUT_MS),
    help: 'a client must send a whole request within this (at least the header timeout)',
    parse: (raw) => parseDurationMs(raw, 100),
    apply: (c, v) => {
      c.jsonrpc.readTimeoutMs = v
    },
  }),
  row({
    flag: 'rpc.idle-timeout',
    toml: ['jsonrpc', 'idle_timeout'],
    metavar: 'DURATION',
    defaultText: seconds(HTTP_IDLE_TIMEOUT_MS),
    help: 'an idle keep-alive connection is closed after this',
    parse: (raw) => parseDurationMs(raw, 100),
    apply: (c, v) => {
      c.jsonrpc.idleTimeoutMs = v
    },
  }),
  row({
    flag: 'rpc.fast-http',
    toml: ['jsonrpc', 'fast_http'],
    defaultText: 'true',
    help: 'read plain JSON-RPC POSTs with ibex\'s own HTTP/1.1 parser, about twice node:http\'s rate (false = node:http reads every request)',
    parse: parseBoolean,
    apply: (c, v) => {
      c.jsonrpc.fastHttp = v
    },
  }),
  row({
    flag: 'rpc.response-limit',
    toml: ['jsonrpc', 'max_response_bytes'],
    metavar: 'BYTES',
    defaultText: `${MAX_RESPONSE_BYTES} (25 MB)`,
    help: 'largest answer (a batch counts whole); calls past it answer -32003 `response too large` (0 = no limit)',
    parse: count(0),
    apply: (c, v) => {
      c.jsonrpc.maxResponseBytes = v
    },
  }),
  row({
    flag: 'rpc.shutdown-grace',
    toml: ['jsonrpc', 'shutdown_grace'],
    metavar: 'DURATION',
    defaultText: seconds(SHUTDOWN_GRACE_MS),
    help: 'on SIGTERM, requests still running after this are cut (new ones are refused at once)',
    parse: (raw) => parseDurationMs(raw, 0),
    apply: (c, v) => {
      c.jsonrpc.shutdownGraceMs = v
    },
  }),
  row({
    flag: 'rpc.ratelimit',
    toml: ['jsonrpc', 'rate_limit'],
    metavar: 'N',
    defaultText: `${PUBLIC_RATE_LIMITS.requests} (dev, --genesis: 0)`,
    help: 'requests per second per client IP, each batch item counting; over it: 429, -32005 (0 = no limit)',
    parse: rate,
    apply: (c, v) => {
      c.jsonrpc.rateLimit.requests = v
    },
  }),
  row({
    flag: 'rpc.ratelimit.call',
    toml: ['jsonrpc', 'rate_limit_call'],
    metavar: 'N',
    defaultText: `${PUBLIC_RATE_LIMITS.call} (dev, --genesis: 0)`,
    help: 'eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1 per second per client IP (0 = no own limit)',
    parse: rate,
    apply: (c, v) => {
      c.jsonrpc.rateLimit.call = v
    },
  }),
  row({
    flag: 'rpc.ratelimit.logs',
    toml: ['jsonrpc', 'rate_limit_logs'],
    metavar: 'N',
    defaultText: `${PUBLIC_RATE_LIMITS.logs} (dev, --genesis: 0)`,
    help: 'eth_getLogs, eth_getFilterLogs per second per client IP (0 = no own limit)',
    parse: rate,
    apply: (c, v) => {
      c.jsonrpc.rateLimit.logs = v
    },
  }),
  row({
    flag: 'rpc.ratelimit.debug',
    toml: ['jsonrpc', 'rate_limit_debug'],
    metavar: 'N',
    defaultText: `${PUBLIC_RATE_LIMITS.debug} (dev, --genesis: 0)`,
    help: 'debug_* requests per second per client IP (0 = no own limit)',
    parse: rate,
    apply: (c, v) => {
      c.jsonrpc.rateLimit.debug = v
    },
  }),
  row({
    flag: 'rpc.ratelimit.burst',
    toml: ['jsonrpc', 'rate_burst'],
    metavar: 'DURATION',
    defaultText: seconds(PUBLIC_RATE_LIMITS.burstMs),
    help: 'a client may burst this many seconds of its rates at once',
    parse: (raw) => parseDurationMs(raw, 1),
    apply: (c, v) => {
      c.jsonrpc.rateLimit.burstMs = v
    },
  }),
]

/** `[chain]` rows for wallets and the chain registry (`ibex chain-info`). */
export const CHAIN_REGISTRY_SETTINGS: readonly SettingDef[] = [
  row({
    toml: ['chain', 'name'],
    defaultText: 'Ibex Mainnet / Ibex Testnet / Ibex Dev',
    help: 'network name shown to wallets and in the chain registry',
    parse: parseString,
    apply: (c, v) => {
      c.chain.name = v
    },
  }),
  row({
    toml: ['chain', 'short_name'],
    defaultText: 'ibex / tibex / ibex-dev',
    help: 'chain registry short name (EIP-3770 address prefix)',
    parse: parseString,
    apply: (c, v) => {
      c.chain.shortName = v
    },
  }),
  row({
    toml: ['chain', 'token_name'],
    defaultText: 'the token symbol',
    help: 'name of the native token, for wallets',
    parse: parseString,
    apply: (c, v) => {
      c.chain.tokenName = v
    },
  }),
  row({
    toml: ['chain', 'info_url'],
    defaultText: '"" (none)',
    help: 'project web page, for the chain registry',
    parse: (raw) => (raw === '' ? '' : parseUrl(raw, HTTP_SCHEMES)),
    apply: (c, v) => {
      c.chain.infoUrl = v
    },
  }),
  row({
    toml: ['chain', 'faucet_urls'],
    defaultText: '[] (none)',
    help: 'faucet pages, for the chain registry (testnet)',
    parse: (raw) => parseUrls(raw, HTTP_SCHEMES),
    apply: (c, v) => {
      c.chain.faucetUrls = v
    },
  }),
]

/** `[metrics]` rows. */
export const METRICS_SETTINGS: readonly SettingDef[] = [
  row({
    flag: 'metrics',
    toml: ['metrics', 'enabled'],
    defaultText: 'false',
    help: 'serve Prometheus metrics on GET /metrics of --metrics.addr:--metrics.port',
    parse: parseBoolean,
    apply: (c, v) => {
      c.metrics.enabled = v
    },
  }),
  row({
    flag: 'metrics.addr',
    toml: ['metrics', 'host'],
    metavar: 'HOST',
    defaultText: METRICS_DEFAULT_HOST,
    help: 'metrics bind address (keep it off the public interface)',
    parse: parseHost,
    apply: (c, v) => {
      c.metrics.host = v
    },
  }),
  row({
    flag: 'metrics.port',
    toml: ['metrics', 'port'],
    metavar: 'PORT',
    defaultText: String(METRICS_DEFAULT_PORT),
    help: 'metrics port (0 = any free port)',
    parse: parsePort,
    apply: (c, v) => {
      c.metrics.port = v
    },
  }),
]

/** `[faucet]` rows (file-only: `ibex faucet --config FILE`). */
export const FAUCET_SETTINGS: readonly SettingDef[] = [
  row({
    toml: ['faucet', 'rpc_url'],
    defaultText: 'http://127.0.0.1:8545',
    help: 'JSON-RPC URL of the node the faucet sends its transactions through',
    parse: (raw) => parseUrl(raw, HTTP_SCHEMES),
    apply: (c, v) => {
      c.faucet.rpcUrl = v
    },
  }),
  row({
    toml: ['faucet', 'key_file'],
    defaultText: 'none (required by ibex faucet)',
    help: "file with the faucet account's private key (hex)",
    parse: parseString,
    apply: (c, v, ctx) => {
      c.faucet.keyFile = ctx.resolvePath(v)
    },
  }),
  row({
    toml: ['faucet', 'amount'],
    defaultText: `${FAUCET_AMOUNT_WEI / 10n ** 18n}ether`,
    help: 'amount sent per request (1ether, 0.5ether, wei)',
    parse: parseWei,
    apply: (c, v) => {
      c.faucet.amountWei = v
    },
  }),
  row({
    toml: ['faucet', 'cooldown'],
    defaultText: `${seconds(FAUCET_COOLDOWN_MS)} (24 h)`,
    help: 'an address, and a client IP, is served once per this long (kept across restarts)',
    parse: (raw) => parseDurationMs(raw, 1),
    apply: (c, v) => {
      c.faucet.cooldownMs = v
    },
  }),
  row({
    toml: ['faucet', 'daily_budget'],
    defaultText: `${FAUCET_DAILY_BUDGET_WEI / 10n ** 18n}ether`,
    help: 'most sent per UTC day; then requests are refused until midnight UTC',
    parse: parseWei,
    apply: (c, v) => {
      c.faucet.dailyBudgetWei = v
    },
  }),
  row({
    toml: ['faucet', 'host'],
    defaultText: '127.0.0.1',
    help: 'faucet page bind address',
    parse: parseHost,
    apply: (c, v) => {
      c.faucet.host = v
    },
  }),
  row({
    toml: ['faucet', 'port'],
    defaultText: String(FAUCET_DEFAULT_PORT),
    help: 'faucet page port (0 = any free port)',
    parse: parsePort,
    apply: (c, v) => {
      c.faucet.port = v
    },
  }),
  row({
    toml: ['faucet', 'state_file'],
    defaultText: FAUCET_STATE_FILE,
    help: 'cooldown and budget state, relative to the datadir',
    parse: parseString,
    apply: (c, v) => {
      c.faucet.stateFile = v
    },
  }),
  row({
    toml: ['faucet', 'trusted_proxies'],
    defaultText: 'none',
    help: "reverse proxies (IPs, CIDRs) whose X-Forwarded-For names the faucet's client",
    parse: parseProxies,
    apply: (c, v) => {
      c.faucet.trustedProxies = v
    },
  }),
]

/**
 * The one table of settings: each row names its flag and/or TOML key, how its value is parsed and
 * where it lands in IbexConfig. load.ts parses with it; `ibex --help` and the README's config table
 * are generated from it (src/cli/commands/help.ts), so the three cannot drift apart.
 */
import {
  DEFAULT_HTTP_HOST,
  DEFAULT_HTTP_PORT,
  DEFAULT_LOG_LEVEL,
  DEFAULT_NETWORK,
  DEFAULT_P2P_PORT,
  DEFAULT_TOKEN_SYMBOL,
  BATCH_CONCURRENCY,
  MAX_BATCH_ITEMS,
  MAX_REQUEST_BODY_BYTES,
  RPC_EVM_TIMEOUT_MS,
  RPC_GAS_CAP,
} from './defaults.js'
import { ValueProblem } from './errors.js'
import { JSONRPC_LIMIT_SETTINGS, TXPOOL_SETTINGS } from './settings-limits.js'
import { EXEC_SETTINGS } from './settings-exec.js'
import {
  CHAIN_REGISTRY_SETTINGS,
  FAUCET_SETTINGS,
  JSONRPC_PROTECTION_SETTINGS,
  LOG_SETTINGS,
  METRICS_SETTINGS,
} from './settings-ops.js'
import { GENESIS_NETWORK_FLAGS, IBFT_SETTINGS } from './settings-network.js'
import type { IbexConfig, P2pConfig } from './types.js'
import {
  LOG_LEVELS,
  NETWORKS,
  RPC_NAMESPACES,
  parseBigInt,
  parseBoolean,
  parseBootnodes,
  parseDurationMs,
  parseEnum,
  parseHost,
  parseInteger,
  parseNamespaces,
  parseOrigins,
  parsePort,
  parseString,
  parseTokenSymbol,
  parseUrl,
  parseUrls,
  parseWei,
} from './values.js'

export type Command = 'start' | 'init' | 'import' | 'export' | 'genesis' | 'faucet' | 'chain-info' | 'help' | 'version'
export const COMMANDS: readonly Command[] = ['start', 'init', 'import', 'export', 'genesis', 'faucet', 'chain-info', 'help', 'version']

/** Where a value came from, for resolving relative paths: file values resolve against the file's directory. */
export interface ApplyContext {
  resolvePath(path: string): string
}

export interface SettingDef {
  /** Flag name without the leading `--`, e.g. `http.port`; undefined when the setting is file-only. */
  flag: string | undefined
  /** TOML location `[section, key]`; section `''` is the top level; undefined when flag-only. */
  toml: readonly [section: string, key: string] | undefined
  /** Placeholder in the help text (`N`, `DIR`); undefined for a boolean flag given alone (`--ws`). */
  metavar: string | undefined
  /** One line for --help and the README. */
  help: string
  /** The default as shown to people. */
  defaultText: string
  parse(raw: unknown): unknown
  apply(config: IbexConfig, value: unknown, ctx: ApplyContext): void
}

/** Typed constructor for a row; the table itself holds rows of unknown value type. */
function setting<T>(def: {
  flag?: string
  toml?: readonly [string, string]
  metavar?: string
  help: string
  defaultText: string
  parse(raw: unknown): T
  apply(config: IbexConfig, value: T, ctx: ApplyContext): void
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

function p2pOf(config: IbexConfig): P2pConfig {
  config.p2p ??= { port: DEFAULT_P2P_PORT, bootnodes: [] }
  return config.p2p
}

const HTTP_SCHEMES = ['http:', 'https:'] as const
const RPC_SCHEMES = ['http:', 'https:', 'ws:', 'wss:'] as const

/** SETTINGS: every node setting, in help order. `config` is read by the loader itself (never applied). */
export const SETTINGS: readonly SettingDef[] = [
  setting({
    flag: 'network',
    toml: ['', 'network'],
    metavar: 'NAME',
    defaultText: DEFAULT_NETWORK,
    help: `network preset: ${NETWORKS.join(', ')} (also picks the defaults marked "dev:")`,
    parse: (raw) => parseEnum(raw, NETWORKS),
    apply: (c, v) => {
      c.network = v
    },
  }),
  setting({
    flag: 'genesis',
    toml: ['', 'genesis'],
    metavar: 'FILE',
    defaultText: 'the network preset',
    help: 'geth-format genesis.json to initialise the chain from, instead of the preset',
    parse: parseString,
    apply: (c, v, ctx) => {
      c.genesisFile = ctx.resolvePath(v)
    },
  }),
  setting({
    flag: 'datadir',
    toml: ['', 'datadir'],
    metavar: 'DIR',
    defaultText: './data/<network> (./data/custom with --genesis)',
    help: 'data directory: database and validator key',
    parse: parseString,
    apply: (c, v, ctx) => {
      c.datadir = ctx.resolvePath(v)
    },
  }),
  setting({
    flag: 'config',
    metavar: 'FILE',
    defaultText: '$IBEX_CONFIG, else none',
    help: 'TOML configuration file; flags override it',
    parse: parseString,
    apply: () => {},
  }),
  setting({
    flag: 'block-time',
    toml: ['', 'block_time'],
    metavar: 'DURATION',
    defaultText: '2s (dev: 0)',
    help: 'time between blocks (2s, 500ms, 1.5); 0 = seal as soon as transactions arrive',
    parse: (raw) => parseDurationMs(raw),
    apply: (c, v) => {
      c.blockTimeMs = v
    },
  }),
  setting({
    flag: 'validator-key',
    toml: ['', 'validator_key'],
    metavar: 'FILE',
    defaultText: '<datadir>/validator.key',
    help: 'file with the validator private key (hex); must exist when given',
    parse: parseString,
    apply: (c, v, ctx) => {
      c.validatorKeyFile = ctx.resolvePath(v)
    },
  }),
  setting({
    flag: 'log-level',
    toml: ['', 'log_level'],
    metavar: 'LEVEL',
    defaultText: DEFAULT_LOG_LEVEL,
    help: `log level: ${LOG_LEVELS.join(', ')}`,
    parse: (raw) => parseEnum(raw, LOG_LEVELS),
    apply: (c, v) => {
      c.logLevel = v
    },
  }),
  ...LOG_SETTINGS,
  setting({
    toml: ['jsonrpc', 'enabled'],
    defaultText: 'true',
    help: 'serve HTTP JSON-RPC at all',
    parse: parseBoolean,
    apply: (c, v) => {
      c.jsonrpc.enabled = v
    },
  }),
  setting({
    flag: 'http.addr',
    toml: ['jsonrpc', 'host'],
    metavar: 'HOST',
    defaultText: DEFAULT_HTTP_HOST,
    help: 'JSON-RPC bind address (0.0.0.0 = all interfaces)',
    parse: parseHost,
    apply: (c, v) => {
      c.jsonrpc.host = v
    },
  }),
  setting({
    flag: 'http.port',
    toml: ['jsonrpc', 'port'],
    metavar: 'PORT',
    defaultText: String(DEFAULT_HTTP_PORT),
    help: 'JSON-RPC port (0 = any free port)',
    parse: parsePort,
    apply: (c, v) => {
      c.jsonrpc.port = v
    },
  }),
  setting({
    flag: 'http.api',
    toml: ['jsonrpc', 'api'],
    metavar: 'LIST',
    defaultText: 'eth,net,web3,txpool,bor',
    help: `namespaces served, from: ${RPC_NAMESPACES.join(', ')}`,
    parse: parseNamespaces,
    apply: (c, v) => {
      c.jsonrpc.api = v
    },
  }),
  setting({
    flag: 'http.corsdomain',
    toml: ['jsonrpc', 'cors_origins'],
    metavar: 'LIST',
    defaultText: 'none (dev: *)',
    help: 'CORS origins allowed (* = any, empty = no CORS headers)',
    parse: parseOrigins,
    apply: (c, v) => {
      c.jsonrpc.corsOrigins = v
    },
  }),
  setting({
    flag: 'ws',
    toml: ['jsonrpc', 'ws'],
    defaultText: 'true',
    help: 'accept WebSocket connections on the JSON-RPC port (--ws=false refuses them)',
    parse: parseBoolean,
    apply: (c, v) => {
      c.jsonrpc.ws = v
    },
  }),
  setting({
    flag: 'rpc.body-limit',
    toml: ['jsonrpc', 'max_body_bytes'],
    metavar: 'BYTES',
    defaultText: `${MAX_REQUEST_BODY_BYTES} (5 MiB)`,
    help: 'largest request body accepted, bytes',
    parse: (raw) => parseInteger(raw, 1, Number.MAX_SAFE_INTEGER),
    apply: (c, v) => {
      c.jsonrpc.maxBodyBytes = v
    },
  }),
  setting({
    flag: 'rpc.batch-limit',
    toml: ['jsonrpc', 'max_batch_items'],
    metavar: 'N',
    defaultText: String(MAX_BATCH_ITEMS),
    help: 'largest batch accepted, requests',
    parse: (raw) => parseInteger(raw, 1, Number.MAX_SAFE_INTEGER),
    apply: (c, v) => {
      c.jsonrpc.maxBatchItems = v
    },
  }),
  setting({
    flag: 'rpc.batch-concurrency',
    toml: ['jsonrpc', 'batch_concurrency'],
    metavar: 'N',
    defaultText: String(BATCH_CONCURRENCY),
    help: 'items of one batch run at once (the rest wait their turn, answers keep request order)',
    parse: (raw) => parseInteger(raw, 1, Number.MAX_SAFE_INTEGER),
    apply: (c, v) => {
      c.jsonrpc.batchConcurrency = v
    },
  }),
  setting({
    flag: 'rpc.gascap',
    toml: ['jsonrpc', 'gas_cap'],
    metavar: 'GAS',
    defaultText: String(RPC_GAS_CAP),
    help: 'gas cap of eth_call and eth_estimateGas',
    parse: (raw) => parseBigInt(raw, 1n, undefined, 'expected an integer >= 1'),
    apply: (c, v) => {
      c.jsonrpc.gasCap = v
    },
  }),
  setting({
    flag: 'rpc.evmtimeout',
    toml: ['jsonrpc', 'evm_timeout'],
    metavar: 'DURATION',
    defaultText: `${RPC_EVM_TIMEOUT_MS / 1000}s`,
    help: 'time limit of eth_call and eth_estimateGas (5s, 500ms)',
    parse: (raw) => parseDurationMs(raw, 1),
    apply: (c, v) => {
      c.jsonrpc.evmTimeoutMs = v
    },
  }),
  ...JSONRPC_LIMIT_SETTINGS,
  ...JSONRPC_PROTECTION_SETTINGS,
  setting({
    toml: ['chain', 'token_symbol'],
    defaultText: DEFAULT_TOKEN_SYMBOL,
    help: 'token symbol shown to wallets (placeholder until the launch name is set)',
    parse: parseTokenSymbol,
    apply: (c, v) => {
      c.chain.tokenSymbol = v
    },
  }),
  setting({
    toml: ['chain', 'explorer_url'],
    defaultText: '"" (none)',
    help: 'block explorer URL, for wallets and chain registries',
    parse: (raw) => (raw === '' ? '' : parseUrl(raw, HTTP_SCHEMES)),
    apply: (c, v) => {
      c.chain.explorerUrl = v
    },
  }),
  setting({
    toml: ['chain', 'rpc_urls'],
    defaultText: '[] (none)',
    help: 'public RPC URLs of the network, for wallets and chain registries',
    parse: (raw) => parseUrls(raw, RPC_SCHEMES),
    apply: (c, v) => {
      c.chain.rpcUrls = v
    },
  }),
  ...CHAIN_REGISTRY_SETTINGS,
  setting({
    flag: 'price-limit',
    toml: ['txpool', 'price_limit'],
    metavar: 'WEI',
    defaultText: '1gwei (dev: 0)',
    help: 'lowest gas price / max fee accepted into the pool (1000000000, 1gwei); eth_gasPrice answers it',
    parse: parseWei,
    apply: (c, v) => {
      c.txpool.priceLimit = v
    },
  }),
  ...TXPOOL_SETTINGS,
  setting({
    flag: 'p2p.port',
    toml: ['p2p', 'port'],
    metavar: 'PORT',
    defaultText: `p2p off (${DEFAULT_P2P_PORT} once on)`,
    help: 'libp2p TCP port; setting it switches p2p on',
    parse: parsePort,
    apply: (c, v) => {
      p2pOf(c).port = v
    },
  }),
  setting({
    flag: 'bootnodes',
    toml: ['p2p', 'bootnodes'],
    metavar: 'LIST',
    defaultText: 'none',
    help: 'libp2p multiaddrs of peers to dial; setting it switches p2p on',
    parse: parseBootnodes,
    apply: (c, v) => {
      p2pOf(c).bootnodes = v
    },
  }),
  ...IBFT_SETTINGS,
  ...EXEC_SETTINGS,
  ...METRICS_SETTINGS,
  ...FAUCET_SETTINGS,
]

/** A flag that belongs to one command and lands in `extra`, not in IbexConfig. */
export interface CommandFlagDef {
  flag: string
  commands: readonly Command[]
  metavar: string
  help: string
  parse(raw: unknown): unknown
  /** May be given more than once (each value is collected). */
  repeatable?: boolean
}

export const COMMAND_FLAGS: readonly CommandFlagDef[] = [
  {
    flag: 'validators',
    commands: ['genesis'],
    metavar: 'N',
    help: 'make N new validator keys (validator-<i>.key) and put them in the genesis',
    parse: (raw) => parseInteger(raw, 1, 1000),
  },
  {
    flag: 'addresses',
    commands: ['genesis'],
    metavar: 'LIST',
    help: 'use these validator addresses instead (keys stay with their owners)',
    parse: (raw) => {
      const list = typeof raw === 'string' ? raw.split(',').map((s) => s.trim()) : []
      if (list.length === 0 || list.some((a) => !/^0x[0-9a-fA-F]{40}$/.test(a))) {
        throw new ValueProblem('expected a comma-separated list of 0x-prefixed 20-byte addresses')
      }
      return list
    },
  },
  {
    flag: 'out',
    commands: ['genesis'],
    metavar: 'DIR',
    help: 'directory to write genesis.json (and the keys) into; created if missing',
    parse: parseString,
  },
  {
    flag: 'chain-id',
    commands: ['genesis'],
    metavar: 'N',
    help: "chain id of the new genesis (default: the --network preset's)",
    parse: (raw) => parseInteger(raw, 1, Number.MAX_SAFE_INTEGER),
  },
  ...GENESIS_NETWORK_FLAGS,
]

/** tomlKeyName renders a TOML location for messages and tables: `[jsonrpc] port` or `datadir`. */
export function tomlKeyName(toml: readonly [string, string]): string {
  return toml[0] === '' ? toml[1] : `[${toml[0]}] ${toml[1]}`
}

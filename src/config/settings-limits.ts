/**
 * Rows of the settings table (settings.ts) for the transaction pool, filters, log queries and
 * WebSocket limits, kept apart so settings.ts stays readable; SETTINGS splices them in, so the
 * parser, `ibex --help` and the README table see them like every other row.
 */
import {
  FILTER_TIMEOUT_MS,
  MAX_LOG_BLOCK_RANGE,
  MAX_LOG_RESULTS,
  TXPOOL_ACCOUNT_QUEUE,
  TXPOOL_GLOBAL_QUEUE,
  TXPOOL_GLOBAL_SLOTS,
  TXPOOL_JOURNAL,
  TXPOOL_LIFETIME_MS,
  TXPOOL_PRICE_BUMP_PERCENT,
  TXPOOL_REJOURNAL_MS,
  WS_MAX_BUFFERED_BYTES,
} from './defaults.js'
import type { SettingDef } from './settings.js'
import type { IbexConfig } from './types.js'
import { parseDurationMs, parseInteger, parseString } from './values.js'

/** A typed row (settings.ts's own helper is private to it). */
function row<T>(def: {
  flag: string
  toml: readonly [string, string]
  metavar: string
  help: string
  defaultText: string
  parse(raw: unknown): T
  apply(config: IbexConfig, value: T): void
}): SettingDef {
  return { ...def, apply: def.apply as SettingDef['apply'] }
}

const count = (min: number) => (raw: unknown) => parseInteger(raw, min, Number.MAX_SAFE_INTEGER)
const seconds = (ms: number) => `${ms / 1000}s`

/** `[jsonrpc]` rows: filter timeout, log query limits, WebSocket buffer. */
export const JSONRPC_LIMIT_SETTINGS: readonly SettingDef[] = [
  row({
    flag: 'rpc.filter-timeout',
    toml: ['jsonrpc', 'filter_timeout'],
    metavar: 'DURATION',
    defaultText: `${seconds(FILTER_TIMEOUT_MS)} (5 min)`,
    help: 'a filter not polled with eth_getFilterChanges for this long is removed (3s, 300)',
    parse: (raw) => parseDurationMs(raw, 1),
    apply: (c, v) => {
      c.jsonrpc.filterTimeoutMs = v
    },
  }),
  row({
    flag: 'rpc.rangelimit',
    toml: ['jsonrpc', 'max_log_block_range'],
    metavar: 'N',
    defaultText: String(MAX_LOG_BLOCK_RANGE),
    help: 'largest toBlock - fromBlock of eth_getLogs and eth_getFilterLogs (0 = no limit)',
    parse: count(0),
    apply: (c, v) => {
      c.jsonrpc.maxLogBlockRange = v
    },
  }),
  row({
    flag: 'rpc.max-logs-per-response',
    toml: ['jsonrpc', 'max_log_results'],
    metavar: 'N',
    defaultText: String(MAX_LOG_RESULTS),
    help: 'most logs in one eth_getLogs or eth_getFilterLogs answer (0 = no limit)',
    parse: count(0),
    apply: (c, v) => {
      c.jsonrpc.maxLogResults = v
    },
  }),
  row({
    flag: 'ws.max-buffer',
    toml: ['jsonrpc', 'ws_max_buffered_bytes'],
    metavar: 'BYTES',
    defaultText: `${WS_MAX_BUFFERED_BYTES} (16 MiB)`,
    help: 'a WebSocket client with more unsent bytes than this is disconnected',
    parse: count(1),
    apply: (c, v) => {
      c.jsonrpc.wsMaxBufferedBytes = v
    },
  }),
]

/** `[txpool]` rows besides the price limit. */
export const TXPOOL_SETTINGS: readonly SettingDef[] = [
  row({
    flag: 'txpool.pricebump',
    toml: ['txpool', 'price_bump'],
    metavar: 'PERCENT',
    defaultText: String(TXPOOL_PRICE_BUMP_PERCENT),
    help: 'a replacement must raise both fee cap and tip by at least this many percent',
    parse: count(1),
    apply: (c, v) => {
      c.txpool.priceBump = v
    },
  }),
  row({
    flag: 'txpool.accountqueue',
    toml: ['txpool', 'account_queue'],
    metavar: 'N',
    defaultText: String(TXPOOL_ACCOUNT_QUEUE),
    help: 'most queued (future-nonce) transactions per sender',
    parse: count(1),
    apply: (c, v) => {
      c.txpool.accountQueue = v
    },
  }),
  row({
    flag: 'txpool.globalslots',
    toml: ['txpool', 'global_slots'],
    metavar: 'N',
    defaultText: String(TXPOOL_GLOBAL_SLOTS),
    help: 'executable transactions the pool holds; global_slots + global_queue is its capacity',
    parse: count(1),
    apply: (c, v) => {
      c.txpool.globalSlots = v
    },
  }),
  row({
    flag: 'txpool.globalqueue',
    toml: ['txpool', 'global_queue'],
    metavar: 'N',
    defaultText: String(TXPOOL_GLOBAL_QUEUE),
    help: 'most queued transactions over all senders',
    parse: count(1),
    apply: (c, v) => {
      c.txpool.globalQueue = v
    },
  }),
  row({
    flag: 'txpool.lifetime',
    toml: ['txpool', 'lifetime'],
    metavar: 'DURATION',
    defaultText: `${seconds(TXPOOL_LIFETIME_MS)} (3 h)`,
    help: 'queued transactions of a sender idle this long are dropped',
    parse: (raw) => parseDurationMs(raw, 1),
    apply: (c, v) => {
      c.txpool.lifetimeMs = v
    },
  }),
  row({
    flag: 'txpool.journal',
    toml: ['txpool', 'journal'],
    metavar: 'FILE',
    defaultText: TXPOOL_JOURNAL,
    help: 'journal of accepted transactions, relative to the datadir, reloaded at start ("" = none)',
    parse: (raw) => (raw === '' ? '' : parseString(raw)),
    apply: (c, v) => {
      c.txpool.journal = v
    },
  }),
  row({
    flag: 'txpool.rejournal',
    toml: ['txpool', 'rejournal'],
    metavar: 'DURATION',
    defaultText: `${seconds(TXPOOL_REJOURNAL_MS)} (1 h)`,
    help: 'how often the journal is rewritten to what the pool holds',
    parse: (raw) => parseDurationMs(raw, 1000),
    apply: (c, v) => {
      c.txpool.rejournalMs = v
    },
  }),
]

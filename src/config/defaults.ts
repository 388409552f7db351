/**
 * Defaults of the node configuration. Every setting's default, with its reason, is in its row of
 * src/config/settings.ts, and what differs between networks in src/config/presets.ts; this module
 * builds `defaultConfig(network)` from them — the starting point that the TOML file and then the
 * flags override (src/config/load.ts) — and names the few defaults other modules read directly.
 */
import { getAt, PresetDefault, DescribedDefault, setAt } from './kinds.js'
import { DEFAULT_NETWORK, PRESETS } from './presets.js'
import { OPTIONAL_SECTIONS, SETTINGS, type Setting } from './settings.js'
import type { IbexConfig, NetworkName } from './types.js'

export {
  DEFAULT_NETWORK,
  FOREIGN_CHAIN_PRICE_LIMIT_WEI,
  GWEI,
  NETWORK_BLOCK_TIME_MS,
  NETWORK_CHAIN_IDS,
} from './presets.js'

/** DEV_ACCOUNT_COUNT accounts of the test mnemonic are funded on the dev chain. */
export const DEV_ACCOUNT_COUNT = 10
/** DEV_ACCOUNT_BALANCE_WEI: 10,000 coins each, as anvil and hardhat give. */
export const DEV_ACCOUNT_BALANCE_WEI = 10_000n * 10n ** 18n

/** defaultValue: a setting's default on `network`. */
export function defaultValue(setting: Setting, network: NetworkName): unknown {
  const d = setting.default
  if (d instanceof PresetDefault) return d.pick(PRESETS[network], network)
  return d instanceof DescribedDefault ? d.value : d
}

/** sectionDefaults: a fresh `[section]` holding its rows' defaults (for a section absent by default, e.g. p2p). */
export function sectionDefaults(section: string, network: NetworkName): object {
  const holder = {} as IbexConfig
  for (const s of SETTINGS) {
    if (s.to?.startsWith(`${section}.`)) setAt(holder, s.to, defaultValue(s, network), () => ({}))
  }
  return getAt(holder, section) as object
}

/** defaultConfig returns a fresh configuration holding every default for `network`. */
export function defaultConfig(network: NetworkName): IbexConfig {
  const config = {} as IbexConfig
  for (const s of SETTINGS) {
    if (s.to === undefined || OPTIONAL_SECTIONS.some((section) => s.to?.startsWith(`${section}.`))) continue
    setAt(config, s.to, defaultValue(s, network), () => ({}))
  }
  config.network = network // the row's default is DEFAULT_NETWORK; here the preset asked for
  config.p2p = undefined
  config.jsonrpc.rateLimit.explicit = false
  return config
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

// Defaults other modules read by name (each is its row's value; the reason is on the row).
export const DEFAULT_HTTP_PORT = DEFAULT_CONFIG.jsonrpc.port
export const DEFAULT_P2P_PORT = (sectionDefaults('p2p', DEFAULT_NETWORK) as { port: number }).port
export const BATCH_CONCURRENCY = DEFAULT_CONFIG.jsonrpc.batchConcurrency
export const FILTER_TIMEOUT_MS = DEFAULT_CONFIG.jsonrpc.filterTimeoutMs
export const HTTP_READ_TIMEOUT_MS = DEFAULT_CONFIG.jsonrpc.readTimeoutMs
export const HTTP_IDLE_TIMEOUT_MS = DEFAULT_CONFIG.jsonrpc.idleTimeoutMs

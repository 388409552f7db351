/**
 * Every default that depends on which chain a node runs, in one place:
 *
 *   --network dev | testnet | mainnet ──▶ PRESETS (rows of settings.ts read them: byPreset)
 *   --genesis FILE (known at load)    ──▶ settleGenesisDefaults: ./data/custom, no per-IP budgets,
 *                                         no unlocked dev accounts
 *   the chain in the datadir (start)  ──▶ settleChainDefaults: budgets only on the public chains,
 *                                         geth's pool price limit on a chain without IBFT,
 *                                         unlocked dev accounts refused on the public chains
 *
 * A value set by a flag or the config file is never changed by these rules.
 */
import { ConfigError } from './errors.js'
import type { IbexConfig, NetworkName, RateLimitConfig } from './types.js'

/** DEFAULT_NETWORK is what `ibex start` runs without --network: the production chain, as geth does; the dev chain is asked for explicitly (`npm start` passes --network dev). */
export const DEFAULT_NETWORK: NetworkName = 'mainnet'

/** GWEI in wei. */
export const GWEI = 1_000_000_000n

/** NETWORK_CHAIN_IDS: dev uses 1337 like other local dev chains; testnet and mainnet ids are the spec's. */
export const NETWORK_CHAIN_IDS: Readonly<Record<NetworkName, number>> = { dev: 1337, testnet: 7860, mainnet: 786 }

/** NETWORK_BLOCK_TIME_MS (2 s): public networks make a block every 2 s, empty or not, so time advances predictably. */
export const NETWORK_BLOCK_TIME_MS = 2000

/** The per-IP budgets (requests/s) a preset starts from; `burstMs` is the same everywhere. */
export type Budgets = Pick<RateLimitConfig, 'requests' | 'call' | 'logs' | 'debug'>

/** BUDGETS_OFF: the dev chain serves its one user without budgets. */
export const BUDGETS_OFF: Readonly<Budgets> = { requests: 0, call: 0, logs: 0, debug: 0 }

/**
 * PUBLIC_BUDGETS (per client IP, requests/s): 200 for everything — a busy dapp page polls a few
 * per second, an indexer more, and one 4-core node serves ~10k/s in all; 40 eth_call/estimateGas
 * (a few ms of a worker each); 10 getLogs (scans); 2 debug_* (seconds of a worker each).
 */
export const PUBLIC_BUDGETS: Readonly<Budgets> = { requests: 200, call: 40, logs: 10, debug: 2 }

export interface NetworkPreset {
  chainId: number
  /** 0 on dev: seal as soon as transactions arrive (instant receipts for tests). */
  blockTimeMs: number
  /** dev: `*`, so browser tools (Remix, local dapps) reach it as they reach anvil; public: none until the operator opts in. */
  corsOrigins: readonly string[]
  /** dev: any fee the base fee allows; public: 1 gwei, the genesis base fee (below it a transaction only spams the pool). */
  priceLimit: bigint
  budgets: Readonly<Budgets>
  /** What wallets show; placeholders like the token symbol, set in [chain] before launch. */
  name: string
  shortName: string
}

export const PRESETS: Readonly<Record<NetworkName, NetworkPreset>> = {
  dev: {
    chainId: NETWORK_CHAIN_IDS.dev,
    blockTimeMs: 0,
    corsOrigins: ['*'],
    priceLimit: 0n,
    budgets: BUDGETS_OFF,
    name: 'Ibex Dev',
    shortName: 'ibex-dev',
  },
  testnet: {
    chainId: NETWORK_CHAIN_IDS.testnet,
    blockTimeMs: NETWORK_BLOCK_TIME_MS,
    corsOrigins: [],
    priceLimit: GWEI,
    budgets: PUBLIC_BUDGETS,
    name: 'Ibex Testnet',
    shortName: 'tibex',
  },
  mainnet: {
    chainId: NETWORK_CHAIN_IDS.mainnet,
    blockTimeMs: NETWORK_BLOCK_TIME_MS,
    corsOrigins: [],
    priceLimit: GWEI,
    budgets: PUBLIC_BUDGETS,
    name: 'Ibex Mainnet',
    shortName: 'ibex',
  },
}

/** GENESIS_DATADIR: a chain from --genesis gets its own directory, so chains never share one by accident. */
export const GENESIS_DATADIR = './data/custom'

/** FOREIGN_CHAIN_PRICE_LIMIT_WEI (1 wei, geth's txpool.pricelimit): a chain imported from a geth genesis keeps geth's pool rule when no limit is set. */
export const FOREIGN_CHAIN_PRICE_LIMIT_WEI = 1n

/** UNLOCKED_ACCOUNTS_KEY: the dev accounts sign for clients (settings.ts); off on a --genesis chain unless set, refused on the public ids. */
export const UNLOCKED_ACCOUNTS_KEY = 'dev.unlocked_accounts'

/** Keys of the per-IP budgets: setting any of them turns the budgets on for any chain. */
export const isBudgetKey = (key: string) => key.startsWith('jsonrpc.rate_limit')

/** What the loader knows was set by a flag or the file: TOML keys (`datadir`, `jsonrpc.rate_limit`). */
export type ExplicitKeys = ReadonlySet<string>

function budgetsOff(config: IbexConfig): void {
  config.jsonrpc.rateLimit = { ...BUDGETS_OFF, burstMs: config.jsonrpc.rateLimit.burstMs, explicit: false }
}

/**
 * settleGenesisDefaults: a chain started from --genesis (a local IBFT network, an imported chain,
 * a test rig) gets ./data/custom, and is not a public endpoint unless the operator says so:
 * per-IP budgets apply only when a `rate_limit*` key or flag is set.
 */
export function settleGenesisDefaults(config: IbexConfig, explicit: ExplicitKeys): void {
  const budgetsSet = [...explicit].some(isBudgetKey)
  config.jsonrpc.rateLimit.explicit = budgetsSet
  if (config.genesisFile === undefined) return
  if (!explicit.has('datadir')) config.datadir = GENESIS_DATADIR
  if (!budgetsSet) budgetsOff(config)
  // the test mnemonic's keys are public: a chain of one's own signs with them only when asked to
  if (!explicit.has(UNLOCKED_ACCOUNTS_KEY)) config.dev.unlockedAccounts = false
}

/** Chain ids of the public networks, where per-IP budgets are on unless configured otherwise. */
const PUBLIC_CHAIN_IDS: ReadonlySet<bigint> = new Set([
  BigInt(NETWORK_CHAIN_IDS.mainnet),
  BigInt(NETWORK_CHAIN_IDS.testnet),
])

/**
 * settleChainDefaults: the rules that need the chain the datadir holds, applied when the node
 * starts. Budgets left at their defaults apply only on mainnet and testnet (a dev chain, an
 * imported chain or a test rig started without --network/--genesis would otherwise inherit
 * mainnet's); a chain without IBFT (from a geth genesis) keeps geth's pool price limit unless one
 * was set, since our networks' default is about our genesis base fee, not theirs.
 */
export function settleChainDefaults(config: IbexConfig, chain: { chainId: bigint; ibft: boolean }): IbexConfig {
  if (config.dev.unlockedAccounts && PUBLIC_CHAIN_IDS.has(chain.chainId)) {
    throw new ConfigError(
      `[dev] unlocked_accounts is refused on chain ${chain.chainId}: the test mnemonic's keys are public, anyone could spend from its accounts there`,
    )
  }
  let settled = config
  if (config.jsonrpc.rateLimit.explicit !== true && !PUBLIC_CHAIN_IDS.has(chain.chainId)) {
    const rateLimit = { ...BUDGETS_OFF, burstMs: config.jsonrpc.rateLimit.burstMs, explicit: false }
    settled = { ...settled, jsonrpc: { ...settled.jsonrpc, rateLimit } }
  }
  if (!chain.ibft && config.txpool.priceLimit === PRESETS[config.network].priceLimit) {
    settled = { ...settled, txpool: { ...settled.txpool, priceLimit: FOREIGN_CHAIN_PRICE_LIMIT_WEI } }
  }
  return settled
}

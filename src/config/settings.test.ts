import { availableParallelism } from 'node:os'

import { describe, expect, it } from 'vitest'

import { DEFAULT_CONFIG, defaultConfig } from './defaults.js'
import { getAt, showBytes, showDuration, showWei } from './kinds.js'
import { loadConfig } from './load.js'
import { settleChainDefaults } from './presets.js'
import { OPTIONAL_SECTIONS, SETTINGS } from './settings.js'

const load = (...argv: string[]) => loadConfig(argv, {})

/** The dev chain serves debug (cast run), personal (its accounts sign) and anvil's test controls besides the public networks' namespaces. */
const DEV_APIS = ['eth', 'net', 'web3', 'txpool', 'debug', 'personal', 'evm', 'anvil', 'hardhat', 'ots', 'trace']

/** Every default as it stood before the settings became one table (mainnet; other presets below). */
const MAINNET = {
  network: 'mainnet',
  genesisFile: undefined,
  datadir: './data/mainnet',
  blockTimeMs: 2000,
  validatorKeyFile: undefined,
  logLevel: 'info',
  logFormat: 'json',
  jsonrpc: {
    enabled: true,
    host: '127.0.0.1',
    port: 8545,
    api: ['eth', 'net', 'web3', 'txpool'],
    corsOrigins: [],
    maxBodyBytes: 5_242_880,
    maxBatchItems: 1000,
    batchConcurrency: 16,
    gasCap: 50_000_000n,
    evmTimeoutMs: 5000,
    ws: true,
    filterTimeoutMs: 300_000,
    maxLogBlockRange: 100_000,
    maxLogResults: 20_000,
    maxFilters: 10_000,
    maxFiltersPerIp: 500,
    maxFilterChanges: 10_000,
    maxSubscriptions: 10_000,
    maxSubscriptionsPerIp: 500,
    wsMaxBufferedBytes: 16_777_216,
    vhosts: ['localhost'],
    trustedProxies: [],
    maxConnections: 2000,
    maxConnectionsPerIp: 64,
    headerTimeoutMs: 10_000,
    readTimeoutMs: 30_000,
    idleTimeoutMs: 120_000,
    fastHttp: true,
    maxResponseBytes: 25_000_000,
    shutdownGraceMs: 10_000,
    readyMaxLagBlocks: 3,
    rateLimit: { requests: 200, call: 40, logs: 10, debug: 2, burstMs: 2000, explicit: false },
  },
  chain: {
    tokenSymbol: 'IBX',
    explorerUrl: '',
    rpcUrls: [],
    name: 'Ibex Mainnet',
    shortName: 'ibex',
    tokenName: 'IBX',
    infoUrl: '',
    faucetUrls: [],
  },
  txpool: {
    priceLimit: 1_000_000_000n,
    priceBump: 10,
    accountQueue: 64,
    globalSlots: 5120,
    globalQueue: 1024,
    lifetimeMs: 10_800_000,
    journal: 'transactions.rlp',
    rejournalMs: 3_600_000,
  },
  p2p: undefined,
  ibft: { roundTimeoutBaseMs: 10_000, spanBlocks: 0, producers: 0 },
  exec: {
    workers: Math.max(1, availableParallelism() - 1),
    callQueue: 256,
    queueTimeoutMs: 2000,
    traceWorkers: 1,
    traceQueue: 64,
    traceMaxBytes: 268_435_456,
    workerHeapMb: 1024,
    cacheMb: 64,
    recoverWorkers: 1,
  },
  explorer: {
    indexAppearances: true,
    indexSenderNonce: true,
    indexCreators: true,
    indexFees: true,
    indexReverts: true,
    maxPageSize: 25,
    enabled: false,
    path: '/explorer/',
  },
  metrics: { enabled: false, host: '127.0.0.1', port: 6060 },
  faucet: {
    rpcUrl: 'http://127.0.0.1:8545',
    keyFile: undefined,
    amountWei: 10n ** 18n,
    cooldownMs: 86_400_000,
    dailyBudgetWei: 500n * 10n ** 18n,
    host: '127.0.0.1',
    port: 8080,
    stateFile: 'faucet-state.json',
    trustedProxies: [],
  },
  dev: { unlockedAccounts: false, cheats: undefined, mineMaxBlocks: 10_000 },
  checkpoint: {
    enabled: false,
    baseRpc: '',
    baseChainId: 0,
    manager: '',
    vault: '',
    keyFile: undefined,
    intervalMs: 1_800_000,
    maxBlocks: 1024,
    baseConfirmations: 12,
    graceMs: 10_000,
    proposerTimeoutMs: 300_000,
    uptimeWindow: 700,
    pollIntervalMs: 10_000,
  },
}

describe('the settings table', () => {
  it('builds the same defaults as before, for every preset and for --genesis', () => {
    expect(defaultConfig('mainnet')).toEqual(MAINNET)
    expect(defaultConfig('testnet')).toEqual({
      ...MAINNET,
      network: 'testnet',
      datadir: './data/testnet',
      chain: { ...MAINNET.chain, name: 'Ibex Testnet', shortName: 'tibex' },
    })
    const off = { requests: 0, call: 0, logs: 0, debug: 0, burstMs: 2000, explicit: false }
    expect(defaultConfig('dev')).toEqual({
      ...MAINNET,
      network: 'dev',
      datadir: './data/dev',
      blockTimeMs: 0,
      jsonrpc: { ...MAINNET.jsonrpc, api: DEV_APIS, corsOrigins: ['*'], maxConnectionsPerIp: 0, rateLimit: off },
      chain: { ...MAINNET.chain, name: 'Ibex Dev', shortName: 'ibex-dev' },
      txpool: { ...MAINNET.txpool, priceLimit: 0n },
      dev: { unlockedAccounts: true, cheats: undefined, mineMaxBlocks: 10_000 },
      explorer: { ...MAINNET.explorer, enabled: true },
    })
    // --network dev with --genesis: a chain of one's own does not sign with the public mnemonic unless set
    expect(load('start', '--network', 'dev', '--genesis', 'g.json').config.dev.unlockedAccounts).toBe(false)
    const asked = load('start', '--network', 'dev', '--genesis', 'g.json', '--dev.unlocked-accounts=true')
    expect(asked.config.dev.unlockedAccounts).toBe(true)
    expect(load('start', '--genesis', 'g.json').config).toEqual({
      ...MAINNET,
      genesisFile: 'g.json',
      datadir: './data/custom',
      jsonrpc: { ...MAINNET.jsonrpc, rateLimit: off },
    })
  })

  it('each call returns a fresh configuration', () => {
    const a = defaultConfig('dev')
    a.jsonrpc.api.push('debug')
    a.jsonrpc.corsOrigins.push('x')
    expect(defaultConfig('dev').jsonrpc).toMatchObject({ api: DEV_APIS, corsOrigins: ['*'] })
    expect(Object.isFrozen(DEFAULT_CONFIG.jsonrpc.api)).toBe(true)
  })

  it('keys and flags are unique and every row lands in a field of IbexConfig', () => {
    const keys = SETTINGS.flatMap((s) => (s.key === undefined ? [] : [s.key]))
    const flags = SETTINGS.flatMap((s) => (s.flag === undefined ? [] : [s.flag]))
    expect(new Set(keys).size).toBe(keys.length)
    expect(new Set(flags).size).toBe(flags.length)
    const withP2p = { ...defaultConfig('mainnet'), p2p: { port: 1, bootnodes: [], txAnnounceIntervalMs: 1 } }
    for (const s of SETTINGS) {
      if (s.to === undefined) continue
      const names = s.to.split('.')
      const holder = names.length === 1 ? withP2p : (getAt(withP2p, names.slice(0, -1).join('.')) as object)
      expect(Object.hasOwn(holder, names.at(-1) as string), s.to).toBe(true)
    }
    expect(OPTIONAL_SECTIONS).toEqual(['p2p'])
  })

  it('per-IP budgets under --genesis: off unless one is set; then the others keep the public values', () => {
    expect(load('start', '--genesis', 'g.json', '--rpc.ratelimit', '50').config.jsonrpc.rateLimit).toEqual({
      requests: 50,
      call: 40,
      logs: 10,
      debug: 2,
      burstMs: 2000,
      explicit: true,
    })
    // the burst alone does not turn budgets on
    const burst = load('start', '--genesis', 'g.json', '--rpc.ratelimit.burst', '5s').config.jsonrpc.rateLimit
    expect(burst).toEqual({ requests: 0, call: 0, logs: 0, debug: 0, burstMs: 5000, explicit: false })
    expect(load('start', '--genesis', 'g.json', '--datadir', 'd').config.datadir).toBe('d')
  })

  it('exec.workers is at least 1', () => {
    expect(() => load('start', '--exec.workers', '0')).toThrow('invalid --exec.workers "0": expected an integer 1-256')
    expect(load('start', '--exec.workers', '1').config.exec.workers).toBe(1)
  })

  it('file-only settings have no flag', () => {
    expect(() => load('start', '--jsonrpc.enabled', 'false')).toThrow(/^unknown flag --jsonrpc.enabled/)
    expect(() => load('start', '--faucet.amount', '1ether')).toThrow(/^unknown flag --faucet.amount/)
  })
})

describe('chain defaults at start', () => {
  const mainnet = defaultConfig('mainnet')

  it('budgets left at their defaults apply only on the public chains', () => {
    expect(settleChainDefaults(mainnet, { chainId: 786n, ibft: true })).toBe(mainnet)
    expect(settleChainDefaults(mainnet, { chainId: 7860n, ibft: true })).toBe(mainnet)
    const other = settleChainDefaults(mainnet, { chainId: 1337n, ibft: true })
    expect(other.jsonrpc.rateLimit).toEqual({ requests: 0, call: 0, logs: 0, debug: 0, burstMs: 2000, explicit: false })
    expect(mainnet.jsonrpc.rateLimit.requests).toBe(200)
    const set = load('start', '--rpc.ratelimit.call', '7').config
    expect(settleChainDefaults(set, { chainId: 1337n, ibft: true }).jsonrpc.rateLimit).toMatchObject({
      requests: 200,
      call: 7,
    })
  })

  it('refuses unlocked dev accounts on the public chain ids, whatever the preset said', () => {
    const dev = defaultConfig('dev')
    for (const chainId of [786n, 7860n]) {
      expect(() => settleChainDefaults(dev, { chainId, ibft: true })).toThrow(
        `[dev] unlocked_accounts is refused on chain ${chainId}: the test mnemonic's keys are public`,
      )
    }
    expect(settleChainDefaults(dev, { chainId: 1337n, ibft: true }).dev.unlockedAccounts).toBe(true)
    const asked = load('start', '--network', 'testnet', '--dev.unlocked-accounts=true').config
    expect(() => settleChainDefaults(asked, { chainId: 7860n, ibft: true })).toThrow('[dev] unlocked_accounts is refused')
  })

  it('a chain without IBFT keeps geth price limit (1 wei) unless one was set', () => {
    expect(settleChainDefaults(mainnet, { chainId: 786n, ibft: false }).txpool.priceLimit).toBe(1n)
    const dev = defaultConfig('dev')
    expect(settleChainDefaults(dev, { chainId: 1337n, ibft: false }).txpool.priceLimit).toBe(1n)
    const set = load('start', '--price-limit', '2gwei').config
    expect(settleChainDefaults(set, { chainId: 786n, ibft: false }).txpool.priceLimit).toBe(2_000_000_000n)
  })
})

describe('defaults as shown in --help and the README', () => {
  it('writes values by their kind', () => {
    expect([0, 500, 2000, 120_000, 300_000, 3_600_000, 86_400_000].map(showDuration)).toEqual([
      '0',
      '500ms',
      '2s',
      '120s',
      '300s (5 min)',
      '3600s (1 h)',
      '86400s (24 h)',
    ])
    expect([1024, 5 * 1024 * 1024, 25_000_000].map(showBytes)).toEqual(['1024', '5242880 (5 MiB)', '25000000 (25 MB)'])
    expect([0n, 7n, 10n ** 9n, 500n * 10n ** 18n].map(showWei)).toEqual(['0', '7', '1gwei', '500ether'])
  })
})

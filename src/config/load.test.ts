import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

import { beforeAll, describe, expect, it } from 'vitest'

import { DEFAULT_CONFIG, GWEI, defaultConfig } from './defaults.js'
import { ConfigError, loadConfig } from './load.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-load-'))
})

function toml(name: string, text: string): string {
  const path = join(dir, name)
  writeFileSync(path, text)
  return path
}

/** load: loadConfig with an empty environment (IBEX_CONFIG unset). */
function load(...argv: string[]) {
  return loadConfig(argv, {})
}

function errorOf(argv: string[], env: Record<string, string> = {}): string {
  try {
    loadConfig(argv, env)
  } catch (err) {
    expect(err).toBeInstanceOf(ConfigError)
    const message = (err as Error).message
    expect(message).not.toContain('\n')
    return message
  }
  throw new Error(`expected a ConfigError for ${argv.join(' ')}`)
}

// Every default, per preset and under --genesis: settings.test.ts.
describe('defaults', () => {
  it('start without flags runs mainnet defaults', () => {
    const { command, config } = load('start')
    expect(command).toBe('start')
    expect(config).toEqual(defaultConfig('mainnet'))
    expect(config).toEqual(DEFAULT_CONFIG)
    expect(config.jsonrpc).toMatchObject({
      host: '127.0.0.1',
      port: 8545,
      api: ['eth', 'net', 'web3', 'txpool'],
      enabled: true,
    })
    expect(config.jsonrpc).toMatchObject({
      maxBodyBytes: 5 * 1024 * 1024,
      maxBatchItems: 1000,
      gasCap: 50_000_000n,
      evmTimeoutMs: 5000,
    })
    expect(config).toMatchObject({
      datadir: './data/mainnet',
      blockTimeMs: 2000,
      txpool: { priceLimit: GWEI },
      p2p: undefined,
    })
  })

  it('the dev network has its own defaults', () => {
    const { config } = load('start', '--network', 'dev')
    expect(config).toMatchObject({ network: 'dev', datadir: './data/dev', blockTimeMs: 0, txpool: { priceLimit: 0n } })
    expect(config.jsonrpc.corsOrigins).toEqual(['*'])
    expect(config.chain).toEqual({
      tokenSymbol: 'IBX',
      explorerUrl: '',
      rpcUrls: [],
      name: 'Ibex Dev',
      shortName: 'ibex-dev',
      tokenName: 'IBX',
      infoUrl: '',
      faucetUrls: [],
    })
    expect(config.jsonrpc.rateLimit).toEqual({ requests: 0, call: 0, logs: 0, debug: 0, burstMs: 2000, explicit: false })
  })

  it('per-IP rate limits: on for the testnet/mainnet presets, off for --genesis chains unless set', () => {
    expect(load('start', '--network', 'testnet').config.jsonrpc.rateLimit.requests).toBeGreaterThan(0)
    const custom = load('start', '--genesis', 'g.json').config.jsonrpc.rateLimit
    expect([custom.requests, custom.call, custom.logs, custom.debug]).toEqual([0, 0, 0, 0])
    expect(load('start', '--genesis', 'g.json', '--rpc.ratelimit', '50').config.jsonrpc.rateLimit.requests).toBe(50)
  })
})

describe('flags', () => {
  it('accepts --flag value and --flag=value', () => {
    const { config } = load(
      'start',
      '--network=testnet',
      '--datadir',
      '/tmp/x',
      '--http.addr=0.0.0.0',
      '--http.port',
      '0',
      '--http.api',
      'eth,net,debug',
      '--http.corsdomain=http://localhost:3000,*',
      '--block-time',
      '500ms',
      '--validator-key=/k',
      '--log-level',
      'debug',
      '--price-limit',
      '2gwei',
      '--rpc.gascap',
      '1000000',
      '--rpc.evmtimeout=2s',
      '--rpc.batch-limit',
      '10',
      '--rpc.body-limit',
      '1024',
    )
    expect(config).toMatchObject({
      network: 'testnet',
      datadir: '/tmp/x',
      blockTimeMs: 500,
      validatorKeyFile: '/k',
      logLevel: 'debug',
      txpool: { priceLimit: 2n * GWEI },
      jsonrpc: {
        host: '0.0.0.0',
        port: 0,
        api: ['eth', 'net', 'debug'],
        corsOrigins: ['http://localhost:3000', '*'],
        gasCap: 1_000_000n,
        evmTimeoutMs: 2000,
        maxBatchItems: 10,
        maxBodyBytes: 1024,
      },
    })
  })

  it('reads the pool, filter, log-query and WebSocket limits', () => {
    const { config } = load(
      'start',
      '--rpc.filter-timeout',
      '3s',
      '--rpc.rangelimit',
      '10',
      '--rpc.max-logs-per-response=5',
      '--ws.max-buffer',
      '1024',
      '--txpool.pricebump',
      '20',
      '--txpool.accountqueue',
      '3',
      '--txpool.globalslots',
      '7',
      '--txpool.globalqueue',
      '2',
      '--txpool.lifetime',
      '90s',
      '--txpool.journal=',
      '--txpool.rejournal',
      '5s',
    )
    expect(config.jsonrpc).toMatchObject({
      filterTimeoutMs: 3000,
      maxLogBlockRange: 10,
      maxLogResults: 5,
      wsMaxBufferedBytes: 1024,
    })
    expect(config.txpool).toMatchObject({
      priceBump: 20,
      accountQueue: 3,
      globalSlots: 7,
      globalQueue: 2,
      lifetimeMs: 90_000,
      journal: '',
      rejournalMs: 5000,
    })
    expect(load('start').config.jsonrpc.filterTimeoutMs).toBe(300_000)
    expect(errorOf(['start', '--rpc.filter-timeout', '0'])).toBe(
      'invalid --rpc.filter-timeout "0": expected a duration such as 0, 2, 1.5, 2s or 500ms (at least 1ms)',
    )
  })

  it('stores flags meaningful later: --ws, --p2p.port, --bootnodes', () => {
    expect(load('start').config.jsonrpc.ws).toBe(true)
    expect(load('start', '--ws').config.jsonrpc.ws).toBe(true)
    expect(load('start', '--ws=false', '--datadir', 'd').config.jsonrpc.ws).toBe(false)
    expect(load('start', '--p2p.port', '4000').config.p2p).toEqual({ port: 4000, bootnodes: [], txAnnounceIntervalMs: 5000 })
    expect(load('start', '--bootnodes', '/ip4/10.0.0.1/tcp/30303/p2p/12D3KooWx').config.p2p).toEqual({
      port: 30303,
      bootnodes: ['/ip4/10.0.0.1/tcp/30303/p2p/12D3KooWx'],
      txAnnounceIntervalMs: 5000,
    })
  })

  it.each([
    [['start', '--http.port', 'abc'], 'invalid --http.port "abc": expected an integer 0-65535'],
    [['start', '--http.port=70000'], 'invalid --http.port "70000": expected an integer 0-65535'],
    [
      ['start', '--http.api', 'eth,foo'],
      'invalid --http.api "eth,foo": unknown namespace "foo" (accepted: eth, net, web3, txpool, debug, personal, evm, anvil, hardhat, testing, bor, validators, ots, erigon, trace)',
    ],
    [['start', '--network', 'devnet'], 'invalid --network "devnet": expected one of: dev, testnet, mainnet'],
    [['start', '--block-time', '2m'], 'invalid --block-time "2m": expected a duration such as 0, 2, 1.5, 2s or 500ms'],
    [
      ['start', '--rpc.evmtimeout', '0'],
      'invalid --rpc.evmtimeout "0": expected a duration such as 0, 2, 1.5, 2s or 500ms (at least 1ms)',
    ],
    [
      ['start', '--log-level', 'verbose'],
      'invalid --log-level "verbose": expected one of: trace, debug, info, warn, error, silent',
    ],
    [
      ['start', '--price-limit', '-1'],
      'invalid --price-limit "-1": expected an amount in wei such as 1000000000 or 1gwei',
    ],
    [['start', '--rpc.gascap', '0'], 'invalid --rpc.gascap "0": expected an integer >= 1'],
    [['start', '--rpc.batch-limit', 'many'], 'invalid --rpc.batch-limit "many": expected an integer >= 1'],
    [['start', '--rpc.body-limit', '5MiB'], 'invalid --rpc.body-limit "5MiB": expected an integer >= 1'],
    [
      ['start', '--http.addr', 'http://x'],
      'invalid --http.addr "http://x": expected an IP address or host name, e.g. 127.0.0.1, 0.0.0.0, ::1 or localhost',
    ],
    [
      ['start', '--http.corsdomain', 'example.org'],
      'invalid --http.corsdomain "example.org": "example.org" is not an origin (expected * or scheme://host[:port])',
    ],
    [['start', '--ws=yes'], 'invalid --ws "yes": expected true or false'],
    [['start', '--p2p.port', 'x'], 'invalid --p2p.port "x": expected an integer 0-65535'],
    [['start', '--datadir='], 'invalid --datadir "": expected a non-empty string'],
    [['start', '--config='], 'invalid --config "": expected a non-empty string'],
  ])('%j → %s', (argv, message) => {
    expect(errorOf(argv)).toBe(message)
  })

  it('names unknown flags, with a suggestion when one is close', () => {
    expect(errorOf(['start', '--htp.port', '1'])).toBe(
      'unknown flag --htp.port (did you mean --http.port?); see ibex start --help',
    )
    expect(errorOf(['start', '--frobnicate'])).toBe('unknown flag --frobnicate; see ibex start --help')
    expect(errorOf(['start', '-x'])).toBe('unknown flag -x; see ibex start --help')
    expect(errorOf(['start', '--validators', '3'])).toBe(
      'flag --validators is not accepted by ibex start (only by: genesis)',
    )
  })

  it('rejects missing values, repeats and stray arguments', () => {
    expect(errorOf(['start', '--http.port'])).toBe(
      'missing value for --http.port (expected PORT: JSON-RPC port (0 = any free port))',
    )
    expect(errorOf(['start', '--datadir', '--network', 'dev'])).toMatch(/^missing value for --datadir /)
    expect(errorOf(['start', '--http.port', '1', '--http.port=2'])).toBe('flag --http.port given more than once')
    expect(errorOf(['start', 'now'])).toBe('unexpected argument "now" for ibex start')
  })
})

describe('config file', () => {
  const full = `
network = "testnet"
datadir = "chain"
genesis = "g.json"
block_time = "1s"
validator_key = "keys/v.key"
log_level = "warn"
log_format = "text"

[jsonrpc]
enabled = false
host = "0.0.0.0"
port = 9000
api = ["eth", "debug"]
cors_origins = ["*"]
max_body_bytes = 2048
max_batch_items = 50
batch_concurrency = 4
gas_cap = 25_000_000
evm_timeout = "750ms"
ws = true
filter_timeout = "3s"
max_log_block_range = 5000
max_log_results = 100
max_filters = 50
max_filters_per_ip = 7
max_filter_changes = 99
max_subscriptions = 60
max_subscriptions_per_ip = 8
ws_max_buffered_bytes = 65536
vhosts = ["rpc.example.org", "*"]
trusted_proxies = ["127.0.0.1", "10.0.0.0/8"]
max_connections = 10
max_connections_per_ip = 8
header_timeout = "2s"
read_timeout = "4s"
idle_timeout = "5s"
fast_http = false
max_response_bytes = 1000
shutdown_grace = "1s"
ready_max_lag_blocks = 5
rate_limit = 50
rate_limit_call = 5
rate_limit_logs = 4
rate_limit_debug = 1
rate_burst = "3s"

[chain]
token_symbol = "TIBX"
explorer_url = "https://scan.example.org"
rpc_urls = ["https://rpc.example.org", "wss://ws.example.org"]
name = "Test Chain"
short_name = "tc"
token_name = "Test Coin"
info_url = "https://example.org"
faucet_urls = ["https://faucet.example.org"]

[txpool]
price_limit = "3gwei"
price_bump = 25
account_queue = 8
global_slots = 100
global_queue = 20
lifetime = "60s"
journal = ""
rejournal = "10s"

[p2p]
port = 4001
bootnodes = ["/ip4/10.0.0.2/tcp/4001/p2p/12D3KooWy"]
tx_announce_interval = "2s"

[ibft]
round_timeout = "2s"
[exec]
workers = 3
call_queue = 10
queue_timeout = "3s"
trace_workers = 2
trace_queue = 4
trace_max_bytes = 1048576
worker_heap_mb = 512
cache_mb = 8
recover_workers = 2
[explorer]
index_appearances = false
index_sender_nonce = false
index_creators = true
index_fees = false
index_reverts = true
max_page_size = 100
[metrics]
enabled = true
host = "0.0.0.0"
port = 9100
[faucet]
rpc_url = "http://127.0.0.1:9000"
key_file = "keys/faucet.key"
amount = "2ether"
cooldown = "60s"
daily_budget = "10ether"
host = "0.0.0.0"
port = 8081
state_file = "f.json"
trusted_proxies = ["127.0.0.1"]
[dev]
unlocked_accounts = true
cheats = true
mine_max_blocks = 5
[checkpoint]
enabled = true
base_rpc = "http://127.0.0.1:8600"
base_chain_id = 31337
manager = "0x00000000000000000000000000000000000000AA"
vault = "0x00000000000000000000000000000000000000bb"
key_file = "keys/submit.key"
interval = "20s"
max_blocks = 64
base_confirmations = 2
grace = "1s"
proposer_timeout = "9s"
uptime_window = 50
poll_interval = "500ms"
`

  it('reads every key; paths resolve against the file', () => {
    const file = toml('full.toml', full)
    const { config } = load('start', '--config', file)
    expect(config).toEqual({
      network: 'testnet',
      genesisFile: join(dir, 'g.json'),
      datadir: join(dir, 'chain'),
      blockTimeMs: 1000,
      validatorKeyFile: join(dir, 'keys/v.key'),
      logLevel: 'warn',
      logFormat: 'text',
      jsonrpc: {
        enabled: false,
        host: '0.0.0.0',
        port: 9000,
        api: ['eth', 'debug'],
        corsOrigins: ['*'],
        maxBodyBytes: 2048,
        maxBatchItems: 50,
        batchConcurrency: 4,
        gasCap: 25_000_000n,
        evmTimeoutMs: 750,
        ws: true,
        filterTimeoutMs: 3000,
        maxLogBlockRange: 5000,
        maxLogResults: 100,
        maxFilters: 50,
        maxFiltersPerIp: 7,
        maxFilterChanges: 99,
        maxSubscriptions: 60,
        maxSubscriptionsPerIp: 8,
        wsMaxBufferedBytes: 65536,
        vhosts: ['rpc.example.org', '*'],
        trustedProxies: ['127.0.0.1', '10.0.0.0/8'],
        maxConnections: 10,
        maxConnectionsPerIp: 8,
        headerTimeoutMs: 2000,
        readTimeoutMs: 4000,
        idleTimeoutMs: 5000,
        fastHttp: false,
        maxResponseBytes: 1000,
        shutdownGraceMs: 1000,
        readyMaxLagBlocks: 5,
        rateLimit: { requests: 50, call: 5, logs: 4, debug: 1, burstMs: 3000, explicit: true },
      },
      chain: {
        tokenSymbol: 'TIBX',
        explorerUrl: 'https://scan.example.org',
        rpcUrls: ['https://rpc.example.org', 'wss://ws.example.org'],
        name: 'Test Chain',
        shortName: 'tc',
        tokenName: 'Test Coin',
        infoUrl: 'https://example.org',
        faucetUrls: ['https://faucet.example.org'],
      },
      txpool: {
        priceLimit: 3n * GWEI,
        priceBump: 25,
        accountQueue: 8,
        globalSlots: 100,
        globalQueue: 20,
        lifetimeMs: 60_000,
        journal: '',
        rejournalMs: 10_000,
      },
      p2p: { port: 4001, bootnodes: ['/ip4/10.0.0.2/tcp/4001/p2p/12D3KooWy'], txAnnounceIntervalMs: 2000 },
      ibft: { roundTimeoutBaseMs: 2000, spanBlocks: 0, producers: 0 },
      exec: { workers: 3, callQueue: 10, queueTimeoutMs: 3000, traceWorkers: 2, traceQueue: 4, traceMaxBytes: 1_048_576, workerHeapMb: 512, cacheMb: 8, recoverWorkers: 2 },
      explorer: {
        indexAppearances: false,
        indexSenderNonce: false,
        indexCreators: true,
        indexFees: false,
        indexReverts: true,
        maxPageSize: 100,
        enabled: false,
        path: '/explorer/',
      },
      metrics: { enabled: true, host: '0.0.0.0', port: 9100 },
      faucet: {
        rpcUrl: 'http://127.0.0.1:9000',
        keyFile: join(dir, 'keys/faucet.key'),
        amountWei: 2n * 10n ** 18n,
        cooldownMs: 60_000,
        dailyBudgetWei: 10n * 10n ** 18n,
        host: '0.0.0.0',
        port: 8081,
        stateFile: 'f.json',
        trustedProxies: ['127.0.0.1'],
      },
      dev: { unlockedAccounts: true, cheats: true, mineMaxBlocks: 5 },
      checkpoint: {
        enabled: true,
        baseRpc: 'http://127.0.0.1:8600',
        baseChainId: 31337,
        manager: '0x00000000000000000000000000000000000000aa',
        vault: '0x00000000000000000000000000000000000000bb',
        keyFile: join(dir, 'keys/submit.key'),
        intervalMs: 20_000,
        maxBlocks: 64,
        baseConfirmations: 2,
        graceMs: 1000,
        proposerTimeoutMs: 9000,
        uptimeWindow: 50,
        pollIntervalMs: 500,
      },
    })
  })

  it('flags override the file; the network decides the defaults of what neither sets', () => {
    const file = toml('prec.toml', 'network = "dev"\n[jsonrpc]\nport = 9000\nhost = "0.0.0.0"\n')
    const { config } = load('start', '--config', file, '--http.port', '9100', '--network', 'testnet')
    expect(config.jsonrpc).toMatchObject({ port: 9100, host: '0.0.0.0' })
    expect(config).toMatchObject({ network: 'testnet', blockTimeMs: 2000, datadir: './data/testnet' })
    expect(load('start', '--config', file).config).toMatchObject({
      network: 'dev',
      blockTimeMs: 0,
      datadir: './data/dev',
    })
  })

  it('IBEX_CONFIG names the file when --config is absent', () => {
    const file = toml('env.toml', '[jsonrpc]\nport = 7000\n')
    expect(loadConfig(['start'], { IBEX_CONFIG: file }).config.jsonrpc.port).toBe(7000)
  })

  it('accepts TOML numbers for durations and integers for the price limit', () => {
    const file = toml('nums.toml', 'block_time = 0.5\n[jsonrpc]\nevm_timeout = 3\n[txpool]\nprice_limit = 7\n')
    expect(load('start', '--config', file).config).toMatchObject({
      blockTimeMs: 500,
      jsonrpc: { evmTimeoutMs: 3000 },
      txpool: { priceLimit: 7n },
    })
  })

  it.each([
    [
      '[jsonrpc]\napi = ["eth", "foo"]\n',
      '[jsonrpc] api: unknown namespace "foo" (accepted: eth, net, web3, txpool, debug, personal, evm, anvil, hardhat, testing, bor, validators, ots, erigon, trace)',
    ],
    ['[jsonrpc]\nport = "abc"\n', '[jsonrpc] port: expected an integer 0-65535, got "abc"'],
    ['[jsonrpc]\nport = 1.5\n', '[jsonrpc] port: expected an integer 0-65535, got 1.5'],
    ['[jsonrpc]\nenabled = "yes"\n', '[jsonrpc] enabled: expected true or false, got "yes"'],
    [
      '[jsonrpc]\napi = "eth"\nprot = 1\n',
      'unknown key "prot" in [jsonrpc] (accepted: enabled, host, port, api, cors_origins, ws, max_body_bytes, max_batch_items, batch_concurrency, gas_cap, evm_timeout, filter_timeout, max_log_block_range, max_log_results, max_filters, max_filters_per_ip, max_filter_changes, max_subscriptions, max_subscriptions_per_ip, ws_max_buffered_bytes, vhosts, trusted_proxies, max_connections, max_connections_per_ip, header_timeout, read_timeout, idle_timeout, fast_http, max_response_bytes, shutdown_grace, ready_max_lag_blocks, rate_limit, rate_limit_call, rate_limit_logs, rate_limit_debug, rate_burst)',
    ],
    [
      'netwrk = "dev"\n',
      'unknown key "netwrk" (accepted: network, genesis, datadir, block_time, validator_key, log_level, log_format, [jsonrpc], [chain], [txpool], [p2p], [ibft], [exec], [explorer], [metrics], [faucet], [dev], [checkpoint])',
    ],
    ['[rpc]\nport = 1\n', 'unknown section [rpc] (accepted: [jsonrpc], [chain], [txpool], [p2p], [ibft], [exec], [explorer], [metrics], [faucet], [dev], [checkpoint])'],
    ['jsonrpc = 5\n', 'jsonrpc: expected a section [jsonrpc], got 5'],
    ['network = "moon"\n', 'network: expected one of: dev, testnet, mainnet, got "moon"'],
    ['block_time = "soon"\n', 'block_time: expected a duration such as 0, 2, 1.5, 2s or 500ms, got "soon"'],
    [
      '[chain]\nexplorer_url = "scan"\n',
      '[chain] explorer_url: expected a URL starting with http:// or https://, got "scan"',
    ],
    [
      '[chain]\nrpc_urls = ["ftp://x"]\n',
      '[chain] rpc_urls: "ftp://x": expected a URL starting with http:// or https:// or ws:// or wss://',
    ],
    ['[chain]\ntoken_symbol = ""\n', '[chain] token_symbol: expected 1-11 letters or digits, got ""'],
    [
      '[txpool]\nprice_limit = -5\n',
      '[txpool] price_limit: expected an amount in wei such as 1000000000 or 1gwei, got -5',
    ],
    ['[p2p]\nbootnodes = "x"\n', '[p2p] bootnodes: "x" is not a multiaddr (expected /ip4/HOST/tcp/PORT/p2p/PEER_ID)'],
  ])('%j → one-line error', (text, message) => {
    const file = toml('bad.toml', text)
    expect(errorOf(['start', '--config', file])).toBe(`${file}: ${message}`)
  })

  it('reports unreadable and malformed files on one line', () => {
    const missing = join(dir, 'missing.toml')
    expect(errorOf(['start', '--config', missing])).toBe(`${missing}: cannot read config file (not found)`)
    const broken = toml('broken.toml', '[jsonrpc]\nport = \n')
    expect(errorOf(['start', '--config', broken])).toBe(
      `${broken}: invalid TOML at line 2, column 8: incomplete key-value declaration: no value specified`,
    )
  })
})

/**
 * node.ts wires the modules into a running node:
 *
 *   config ─▶ RocksDB (chain/db) ─▶ ChainStore ─(empty?)─▶ genesis
 *                                      │
 *   validator key ─▶ BlockBuilder ─▶ SingleValidatorSealer ◀── TxPool ◀── eth_sendRawTransaction
 *   (sole validator)
 *   [p2p] ─▶ startIbftNetwork (src/consensus/ibftNetwork.ts): libp2p, tx gossip ◀▶ TxPool, block
 *            sync, and the IBFT engine when this node is one of several validators
 *                                      │
 *                      JSON-RPC server (rpc/server) ─▶ namespaces (eth, net, web3, txpool)
 *                                      ▲ HTTP and WebSocket (subscriptions)
 *   sealer onBlock, pool pending ─▶ ChainEvents ─▶ filters and subscriptions (src/filters)
 *   eth_call / eth_estimateGas / debug_trace* ─▶ ExecPool (src/exec/pool): worker threads reading
 *            the same RocksDB by handle; closed before the database on stop
 *
 * `initNode` only creates the datadir and writes genesis; `startNode` also serves and seals.
 * `openChain` is also what `ibex import` / `ibex export` open (src/cli/commands/chain-io.ts).
 */
import { existsSync, mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { bytesToHex } from '@ethereumjs/util'
import { createChainCommon, feeRouting, type GenesisJson, hasCancun } from './chain/common.js'
import { type Database, openDatabase } from './db/db.js'
import { buildGenesis } from './chain/genesis.js'
import { engineOf, type Engine } from './chain/hash.js'
import { backfillLogIndex } from './chain/logIndex.js'
import { anyExplorerIndex, type ExplorerIndexes } from './chain/explorerIndex.js'
import { ExplorerBackfill } from './block/explorerBackfill.js'
import { ChainStore } from './chain/store.js'
import { loadGenesis } from './config/genesis.js'
import { loadValidatorKey, validatorKeyPath } from './config/keys.js'
import { settleChainDefaults } from './config/presets.js'
import type { IbexConfig } from './config/types.js'
import { decodeExtra } from './consensus/ibft/index.js'
import { type CheckpointLayer, checkCheckpointConfig, openCheckpointLayer } from './consensus/checkpoints.js'
import type { RunningNetwork } from './consensus/ibftNetwork.js'
import { SingleValidatorSealer } from './consensus/sealer.js'
import { spanParamsOf } from './consensus/spanParams.js'
import { DevClock } from './consensus/devClock.js'
import { DevControl, devCheatsEnabled } from './consensus/devControl.js'
import { callResults } from './exec/pool/callCache.js'
import { ChainEvents } from './filters/index.js'
import { BlockBuilder } from './consensus/blockBuilder.js'
import { ExecPool } from './exec/pool/index.js'
import { createLogger, type Logger } from './log.js'
import { ExplorerSite } from './explorer/site.js'
import { type NodeOps, startNodeOps } from './ops/index.js'
import { createRpcServer, type RunningRpc } from './rpc/index.js'
import { TrieStore } from './state/index.js'
import { execPoolCaller } from './validators/index.js'
import { openTxPool } from './txpool/chain.js'
import { loadKzg } from './util/kzg.js'

const GENESIS_JSON_KEY = 'genesis.json'

export interface RunningNode {
  url: string
  chainId: bigint
  validator: string | undefined
  genesisHash: string
  /** Prometheus endpoint, when --metrics is on. */
  metricsUrl?: string
  stop(): Promise<void>
}

/** The built-in explorer's pages (src/explorer), when `[explorer] enabled`. */
function explorerSiteOf(config: IbexConfig): ExplorerSite | undefined {
  if (!config.explorer.enabled) return undefined
  return new ExplorerSite({
    path: config.explorer.path,
    network: config.network,
    chainName: config.chain.name,
    symbol: config.chain.tokenSymbol,
  })
}

/** A datadir's chain, opened (and initialised from genesis when empty); `db.close()` when done. */
export interface OpenedChain {
  db: Database
  store: ChainStore
  common: Common
  genesis: GenesisJson
  engine: Engine
  trie: TrieStore
  validatorKey: { privateKey: Uint8Array; address: string } | undefined
}

function chainDir(config: IbexConfig): string {
  return join(config.datadir, 'chaindata')
}

/** The explorer indexes `[explorer]` turns on (src/chain/explorerIndex.ts). */
function explorerIndexesOf(config: IbexConfig): ExplorerIndexes {
  const x = config.explorer
  return {
    appearances: x.indexAppearances,
    senderNonce: x.indexSenderNonce,
    creators: x.indexCreators,
    fees: x.indexFees,
    reverts: x.indexReverts,
  }
}

/** openChain opens the datadir's database, writing the genesis block first when it is empty. */
export async function openChain(config: IbexConfig, log: Logger): Promise<OpenedChain> {
  mkdirSync(config.datadir, { recursive: true })
  const create = config.genesisFile === undefined && config.network === 'dev'
  // without a key file a testnet/mainnet node runs as a full node (no sealing)
  const hasKey = create || config.validatorKeyFile !== undefined || existsSync(validatorKeyPath(config))
  const validatorKey = hasKey ? loadValidatorKey(config, { create }) : undefined
  // the KZG setup (point-evaluation precompile, blob transactions) loads while the database opens
  const kzg = loadKzg()
  kzg.catch(() => {})
  const db = await openDatabase(chainDir(config))
  try {
    const stored = db.getSync('meta', Buffer.from(GENESIS_JSON_KEY))
    let genesis: GenesisJson
    if (stored !== undefined) {
      genesis = JSON.parse(Buffer.from(stored).toString('utf8'))
    } else {
      genesis = loadGenesis(config, validatorKey?.address) as unknown as GenesisJson
    }
    const common = createChainCommon(genesis)
    if (hasCancun(genesis)) await kzg
    const store = new ChainStore(db, common)
    store.setExplorerIndexes(explorerIndexesOf(config))
    const trie = new TrieStore(db)
    const engine = engineOf(genesis)
    if (!store.initialized) {
      const { headerRaw, hash } = await buildGenesis(genesis, common, trie)
      const batchGenesis = Buffer.from(JSON.stringify(genesis))
      await store.putMeta(GENESIS_JSON_KEY, batchGenesis)
      await store.commitBlock(
        {
          hash,
          headerRaw,
          transactionBytes: [],
          receipts: [],
          totalDifficulty: BigInt(genesis.difficulty ?? 0),
          withdrawals: common.isActivatedEIP(4895) ? [] : undefined,
        },
        trie,
        true,
      )
      log.info(`initialised chain ${common.chainId()} with genesis ${bytesToHex(hash)}`)
    }
    // the node serves (and validates pool transactions) under the head's fork rules
    common.setHardforkBy({ blockNumber: store.head.header.number, timestamp: store.head.header.timestamp })
    return { db, store, common, genesis, engine, trie, validatorKey }
  } catch (err) {
    await db.close()
    throw err
  }
}

/** `ibex init`: creates the datadir and writes the genesis block. */
export async function initNode(config: IbexConfig): Promise<{ genesisHash: string; chainId: bigint }> {
  const log = createLogger(config.logLevel, config.logFormat)
  const chain = await openChain(config, log)
  const result = { genesisHash: bytesToHex(chain.store.genesisHash), chainId: chain.common.chainId() }
  await chain.db.close()
  return result
}

/** `ibex start`: opens the chain, serves JSON-RPC and, when this node is the validator, seals. */
export async function startNode(config: IbexConfig): Promise<RunningNode> {
  const log = createLogger(config.logLevel, config.logFormat)
  // a bad span setting is refused before anything opens (ConfigError)
  const spans = spanParamsOf(config) !== undefined
  checkCheckpointConfig(config.checkpoint)
  const chain = await openChain(config, log)
  const { db, store, common, trie, validatorKey } = chain
  const rules = settleChainDefaults(config, { chainId: common.chainId(), ibft: chain.engine === 'ibft' })
  const pool = openTxPool(rules, { store, db, common, log })
  const events = new ChainEvents(store, log)
  pool.onNewTx((tx) => events.emitPendingTx(tx))
  let sealer: SingleValidatorSealer | undefined
  let devChain: DevControl | undefined
  let network: RunningNetwork | undefined
  let rpc: RunningRpc | undefined
  let exec: ExecPool | undefined
  let ops: NodeOps | undefined
  let checkpoints: CheckpointLayer | undefined
  let explorerBackfill: ExplorerBackfill | undefined
  try {
    await backfillLogIndex(store, log)
    // account reads at the head in one lookup (src/state/flatAccounts.ts): built in the background when missing
    store.keepFlatAccounts(log)
    const { loaded, kept } = await pool.start()
    if (loaded > 0) log.info(`txpool journal: ${kept} of ${loaded} transactions kept`)
    const validators = chain.engine === 'ibft' ? decodeExtra(store.head.header.extraData).validators : []
    const isValidator =
      validatorKey !== undefined && validators.some((v) => bytesToHex(v) === validatorKey.address.toLowerCase())
    const soleValidator = isValidator && validators.length === 1
    // evm_mine, anvil_setBalance…: refused (ConfigError) where they would rewrite a chain others follow
    const clock = devCheatsEnabled(rules, { chainId: common.chainId(), soleValidator }) ? new DevClock() : undefined
    if (soleValidator && validatorKey !== undefined) {
      const builder = await BlockBuilder.create({
        store,
        common,
        trie,
        privateKey: validatorKey.privateKey,
        ...feeRouting(chain.genesis, validatorKey.address),
        syncWrites: true,
      })
      sealer = new SingleValidatorSealer({
        store,
        builder,
        pool,
        blockTimeMs: config.blockTimeMs,
        onBlock: (block, included) => {
          log.info(`sealed block ${block.header.number} ${bytesToHex(block.hash)} txs=${included.length}`)
          events.emitBlock(block)
          network?.announce(block)
        },
        onError: (err) => log.error(`block production failed: ${err instanceof Error ? err.stack : String(err)}`),
        clock,
      })
      if (clock !== undefined) {
        // before any worker opens its own store: every store then looks for edited state (src/chain/stateEdits.ts)
        await store.enableStateEdits()
        devChain = new DevControl({
          store,
          common,
          sealer,
          clock,
          mineMaxBlocks: config.dev.mineMaxBlocks,
          onStateEdit: () => callResults.clear(),
        })
        log.info('dev test controls on: evm_mine, evm_increaseTime, anvil_setBalance … ([dev] cheats)')
      }
    }
    // before the network: span checks read the DAO's validator set on its call lane
    exec = openExecPool(config, chain, log)
    const workersFor = exec
    // blocks from before the explorer indexes: indexed in the background, newest first, replayed on a trace worker
    if (anyExplorerIndex(store.explorer.enabled))
      explorerBackfill = new ExplorerBackfill(store, log, exec.explorerReplay(store))
    // checkpoints to the base chain (issue 20): read by every node, voted and submitted by validators
    checkpoints = openCheckpointLayer(config.checkpoint, log)
    // p2p: block sync, transaction gossip and, for one of several validators, IBFT consensus (src/consensus/ibftNetwork.ts)
    if (chain.engine === 'ibft' && config.p2p !== undefined) {
      // loaded only here: libp2p costs start-up time a node without p2p (the dev chain) need not pay
      const { startIbftNetwork } = await import('./consensus/ibftNetwork.js')
      network = await startIbftNetwork({
        config,
        store,
        common,
        trie,
        genesis: chain.genesis,
        pool,
        emitBlock: (block) => events.emitBlock(block),
        // with spans a key outside today's committee still runs the engine: a later span may draw it
        validatorKey: (isValidator && validators.length > 1) || (spans && !soleValidator) ? validatorKey : undefined,
        viewCaller: execPoolCaller(workersFor, () => store.head.header.number),
        checkpoints,
        checkpointSigner: validatorKey,
        log,
      })
    } else if (isValidator && validators.length > 1) {
      log.warn(`${validators.length} validators: IBFT needs p2p (--p2p.port / [p2p]); not producing blocks`)
    }
    ops = await startNodeOps({
      config,
      chainDir: chainDir(config),
      db,
      store,
      pool,
      events,
      engine: chain.engine,
      chainId: common.chainId(),
      exec,
      network,
      validators: validators.length,
      checkpoints: checkpoints?.status,
      log,
    })
    rpc = await createRpcServer(
      {
        config: rules,
        db,
        store,
        common,
        pool,
        engine: chain.engine,
        sealer,
        log,
        events,
        exec,
        network,
        devChain,
        checkpoints: checkpoints?.history,
        checkpointStatus: checkpoints?.status,
      },
      { ...ops.rpc, site: explorerSiteOf(rules) },
    )
    if (rules.explorer.enabled && rpc.url !== '') log.info(`explorer: ${rpc.url}${rules.explorer.path}`)
    sealer?.start()
    // workers load the EVM (~1 s of CPU each): after the caller has printed its banner
    const execPool = exec
    setTimeout(() => {
      execPool.start()
    }, 0).unref()
  } catch (err) {
    await rpc?.stop()
    await ops?.stop()
    checkpoints?.stop()
    await network?.stop().catch(() => undefined)
    await pool.stop().catch(() => undefined)
    await explorerBackfill?.stop()
    await store.flat.stop()
    await exec?.close()
    await db.close()
    throw err
  }
  const running = rpc
  const workers = exec
  const nodeOps = ops
  const checkpointLayer = checkpoints
  let stopping: Promise<void> | undefined
  return {
    url: running.url,
    chainId: common.chainId(),
    validator: validatorKey?.address,
    genesisHash: bytesToHex(store.genesisHash),
    metricsUrl: nodeOps.metricsUrl,
    stop() {
      stopping ??= (async () => {
        // drain JSON-RPC first: running requests still need the pool, the workers and the database
        const drain = await running.stop()
        log.info(
          `json-rpc stopped: ${drain.inFlight - drain.cut} of ${drain.inFlight} running requests answered, ${drain.cut} cut`,
          { ...drain },
        )
        await nodeOps.stop()
        checkpointLayer?.stop()
        await network?.stop()
        await sealer?.stop()
        await pool.stop()
        await explorerBackfill?.stop()
        await store.flat.stop()
        // every worker reads the database: they must be gone before it closes
        await workers?.close()
        await db.close()
        log.info('stopped cleanly: database closed')
      })()
      return stopping
    },
  }
}

/** The worker pool for eth_call / eth_estimateGas / debug_trace*, reading this node's database. */
function openExecPool(config: IbexConfig, chain: OpenedChain, log: Logger): ExecPool {
  const c = config.exec
  const exec = new ExecPool({
    db: chain.db,
    store: chain.store,
    common: chain.common,
    genesis: chain.genesis,
    workers: c.workers,
    callQueue: c.callQueue,
    queueTimeoutMs: c.queueTimeoutMs,
    traceWorkers: c.traceWorkers,
    traceQueue: c.traceQueue,
    workerHeapMb: c.workerHeapMb,
    cacheBytes: c.cacheMb * 1024 * 1024,
  })
  log.info(
    exec.offloaded
      ? `execution pool: ${c.workers} call workers, ${c.traceWorkers} trace workers`
      : 'execution pool off: calls and traces run on the main thread',
  )
  return exec
}

/**
 * node.ts wires the modules into a running node:
 *
 *   config ─▶ RocksDB (chain/db) ─▶ ChainStore ─(empty?)─▶ genesis
 *                                      │
 *   validator key ─▶ BlockBuilder ─▶ SingleValidatorSealer ◀── TxPool ◀── eth_sendRawTransaction
 *                                      │
 *                      JSON-RPC server (rpc/server) ─▶ namespaces (eth, net, web3)
 *
 * `initNode` only creates the datadir and writes genesis; `startNode` also serves and seals.
 */
import { closeSync, existsSync, mkdirSync, openSync, writeSync } from 'node:fs'
import { join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { createChainCommon, type GenesisJson } from './chain/common.js'
import { type Database, openDatabase } from './chain/db.js'
import { buildGenesis } from './chain/genesis.js'
import { engineOf, type Engine } from './chain/hash.js'
import { ChainStore } from './chain/store.js'
import { loadGenesis } from './config/genesis.js'
import { loadValidatorKey, validatorKeyPath } from './config/keys.js'
import type { IbexConfig } from './config/types.js'
import { decodeExtra } from './consensus/ibft/index.js'
import { SingleValidatorSealer } from './consensus/sealer.js'
import { BlockBuilder } from './exec/blockBuilder.js'
import { createLogger, type Logger } from './log.js'
import { createRpcServer, type RunningRpc } from './rpc/index.js'
import { TrieStore } from './state/index.js'
import { PendingPool } from './txpool/index.js'

const GENESIS_JSON_KEY = 'genesis.json'

export interface RunningNode {
  url: string
  chainId: bigint
  validator: string | undefined
  genesisHash: string
  stop(): Promise<void>
}

interface OpenedChain {
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

async function openChain(config: IbexConfig, log: Logger): Promise<OpenedChain> {
  mkdirSync(config.datadir, { recursive: true })
  const create = config.genesisFile === undefined && config.network === 'dev'
  // without a key file a testnet/mainnet node runs as a full node (no sealing)
  const hasKey = create || config.validatorKeyFile !== undefined || existsSync(validatorKeyPath(config))
  const validatorKey = hasKey ? loadValidatorKey(config, { create }) : undefined
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
    const store = new ChainStore(db, common)
    const trie = new TrieStore(db)
    const engine = engineOf(genesis)
    if (!store.initialized) {
      const { headerRaw, hash } = await buildGenesis(genesis, common, trie)
      const batchGenesis = Buffer.from(JSON.stringify(genesis))
      await store.putMeta(GENESIS_JSON_KEY, batchGenesis)
      await store.commitBlock(
        { hash, headerRaw, transactionBytes: [], receipts: [], totalDifficulty: BigInt(genesis.difficulty ?? 0), withdrawals: common.isActivatedEIP(4895) ? [] : undefined },
        trie,
        true,
      )
      log.info(`initialised chain ${common.chainId()} with genesis ${bytesToHex(hash)}`)
    }
    return { db, store, common, genesis, engine, trie, validatorKey }
  } catch (err) {
    await db.close()
    throw err
  }
}

/** `ibex init`: creates the datadir and writes the genesis block. */
export async function initNode(config: IbexConfig): Promise<{ genesisHash: string; chainId: bigint }> {
  const log = createLogger(config.logLevel)
  const chain = await openChain(config, log)
  const result = { genesisHash: bytesToHex(chain.store.genesisHash), chainId: chain.common.chainId() }
  await chain.db.close()
  return result
}

/** `ibex start`: opens the chain, serves JSON-RPC and, when this node is the validator, seals. */
export async function startNode(config: IbexConfig): Promise<RunningNode> {
  const log = createLogger(config.logLevel)
  const chain = await openChain(config, log)
  const { db, store, common, trie, validatorKey } = chain
  const pool = new PendingPool()
  let sealer: SingleValidatorSealer | undefined
  let rpc: RunningRpc | undefined
  try {
    const validators = chain.engine === 'ibft' ? decodeExtra(store.head.header.extraData).validators : []
    const isValidator =
      validatorKey !== undefined && validators.some((v) => bytesToHex(v) === validatorKey.address.toLowerCase())
    if (isValidator && validators.length === 1 && validatorKey !== undefined) {
      const recipient = chain.genesis.config?.baseFeeRecipient as string | undefined
      const builder = await BlockBuilder.create({
        store,
        common,
        trie,
        privateKey: validatorKey.privateKey,
        coinbase: hexToBytes(validatorKey.address as `0x${string}`),
        baseFeeRecipient: recipient ? hexToBytes(recipient as `0x${string}`) : undefined,
        syncWrites: true,
      })
      sealer = new SingleValidatorSealer({
        store,
        builder,
        pool,
        blockTimeMs: config.blockTimeMs,
        onBlock: (block, included) =>
          log.info(`sealed block ${block.header.number} ${bytesToHex(block.hash)} txs=${included.length}`),
        onError: (err) => log.error(`block production failed: ${err instanceof Error ? err.stack : String(err)}`),
      })
    } else if (isValidator) {
      log.warn(`${validators.length} validators: multi-validator IBFT is not available yet; not producing blocks`)
    }
    rpc = await createRpcServer({ config, db, store, common, pool, engine: chain.engine, sealer, log })
    sealer?.start()
  } catch (err) {
    await rpc?.stop()
    await db.close()
    throw err
  }
  const running = rpc
  let stopping: Promise<void> | undefined
  return {
    url: running.url,
    chainId: common.chainId(),
    validator: validatorKey?.address,
    genesisHash: bytesToHex(store.genesisHash),
    stop() {
      stopping ??= (async () => {
        await running.stop()
        await sealer?.stop()
        await db.close()
      })()
      return stopping
    },
  }
}

/**
 * `ibex export`: writes canonical blocks FIRST..LAST (default: all) as consecutive RLP
 * blocks [header, transactions, uncles, withdrawals?] — the format `geth export` writes.
 */
export async function exportChain(
  config: IbexConfig,
  file: string,
  first?: bigint,
  last?: bigint,
): Promise<{ blocks: number; first: bigint; last: bigint }> {
  const log = createLogger(config.logLevel)
  const chain = await openChain(config, log)
  const out = openSync(file, 'w')
  try {
    const head = chain.store.head.header.number
    const from = first ?? 0n
    const to = last === undefined || last > head ? head : last
    let blocks = 0
    for (let n = from; n <= to; n++) {
      const block = chain.store.getBlockByNumber(n)
      if (block === undefined) break
      const body: unknown[] = [block.headerRaw, block.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t)), block.uncles]
      if (block.withdrawals !== undefined) body.push(block.withdrawals)
      writeSync(out, RLP.encode(body as never))
      blocks++
    }
    return { blocks, first: from, last: from + BigInt(blocks) - 1n }
  } finally {
    closeSync(out)
    await chain.db.close()
  }
}

/** `ibex import`: executing foreign chains block by block is the conformance issue's work. */
export async function importChain(_config: IbexConfig, _file: string): Promise<never> {
  throw new Error('ibex import is not available in this version (block import with full execution is tracked in the conformance issue)')
}

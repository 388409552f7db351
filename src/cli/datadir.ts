/**
 * The datadir before a command opens its chain: initialised all at once, never mixed with another
 * chain, never conjured up by a read-only command.
 *
 *   start, init, import ─▶ prepareDatadir
 *       no chaindata/ ──▶ genesis written into <datadir>/.init-<pid>/chaindata, renamed to
 *                         <datadir>/chaindata once complete (a failure or kill -9 leaves no
 *                         chaindata/; a leftover .init-<pid> of a dead process is removed next time)
 *       chaindata/    ──▶ with --network or --genesis given: the stored genesis hash must be the
 *                         requested one (geth's "incompatible genesis"), else ChainMismatchError
 *   export ─▶ requireChain: no chaindata/ ─▶ NoChainError (nothing created)
 *
 * Without --network and --genesis a datadir's chain is whatever it holds, as in geth.
 */
import { existsSync, readdirSync, renameSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { bytesToHex } from '@ethereumjs/util'
import { createChainCommon, type GenesisJson } from '../chain/common.js'
import { buildGenesis } from '../chain/genesis.js'
import { ChainStore } from '../chain/store.js'
import { ConfigError } from '../config/errors.js'
import { loadGenesis } from '../config/genesis.js'
import { loadValidatorKey, validatorKeyPath } from '../config/keys.js'
import type { IbexConfig } from '../config/types.js'
import { type Database, openDatabase } from '../db/db.js'
import { TrieStore } from '../state/index.js'

/** The database's directory inside a datadir (src/node.ts opens the same). */
export const CHAINDATA_DIR = 'chaindata'
/** Prefix of the directory a genesis is written into before it becomes chaindata/ (suffix: the pid). */
export const STAGING_PREFIX = '.init-'
/** Where the chain's genesis JSON is kept in the database's meta column (src/node.ts writes it). */
const GENESIS_JSON_KEY = Buffer.from('genesis.json')

/** What the command line asked for: a chain named by --network or --genesis, or whatever the datadir holds. */
export interface ChainRequest {
  /** --network (flag or config file) or --genesis was given. */
  explicit: boolean
}

/** The chain a datadir holds, or the one a configuration would create. */
export interface ChainIdentity {
  chainId: bigint
  genesisHash: string
}

/** The datadir holds another chain than --network / --genesis ask for. */
export class ChainMismatchError extends ConfigError {
  override name = 'ChainMismatchError'
  constructor(datadir: string, stored: ChainIdentity, requested: ChainIdentity | { chainId: bigint }, what: string) {
    const want =
      'genesisHash' in requested
        ? `chain ${requested.chainId}, genesis ${requested.genesisHash}`
        : `chain ${requested.chainId}`
    super(
      `datadir ${datadir} holds chain ${stored.chainId} (genesis ${stored.genesisHash}), not ${what} (${want}): ` +
        'use another --datadir, or leave out --network/--genesis to run the stored chain',
    )
  }
}

/** A read-only command was pointed at a directory without a chain. */
export class NoChainError extends ConfigError {
  override name = 'NoChainError'
  constructor(datadir: string) {
    super(`datadir ${datadir} holds no chain (no ${join(datadir, CHAINDATA_DIR)}): check --datadir, or run ibex init`)
  }
}

/** A chaindata/ without a genesis block: an init interrupted by an ibex older than this check. */
export class BrokenChainError extends ConfigError {
  override name = 'BrokenChainError'
  constructor(datadir: string) {
    const dir = join(datadir, CHAINDATA_DIR)
    super(
      `datadir ${datadir}: ${dir} holds no genesis block (an interrupted init): remove ${dir} and run ibex init again`,
    )
  }
}

export function chaindataPath(config: Pick<IbexConfig, 'datadir'>): string {
  return join(config.datadir, CHAINDATA_DIR)
}

/** requireChain refuses a datadir without chaindata/ (export: a typo must not create a chain). */
export function requireChain(config: IbexConfig): void {
  if (!existsSync(chaindataPath(config))) throw new NoChainError(config.datadir)
}

/** What prepareDatadir did: `created` when this run wrote the genesis (and `datadirCreated` when it made the directory). */
export interface Prepared {
  created: boolean
  datadirCreated: boolean
}

/**
 * prepareDatadir initialises an empty datadir through `init` (the node's initNode) all at once, or
 * checks that the chain it holds is the one asked for.
 */
export async function prepareDatadir(
  config: IbexConfig,
  request: ChainRequest,
  init: (config: IbexConfig) => Promise<unknown>,
): Promise<Prepared> {
  const datadirCreated = !existsSync(config.datadir)
  if (!datadirCreated) removeStaleStaging(config.datadir)
  if (existsSync(chaindataPath(config))) {
    if (request.explicit) await checkStoredChain(config)
    return { created: false, datadirCreated: false }
  }
  const staging = join(config.datadir, `${STAGING_PREFIX}${process.pid}`)
  try {
    await init(stagingConfig(config, staging))
    try {
      renameSync(join(staging, CHAINDATA_DIR), chaindataPath(config))
    } catch (err) {
      // another process initialised the datadir meanwhile: its chain is checked like any stored one
      const code = (err as NodeJS.ErrnoException).code
      if (code !== 'ENOTEMPTY' && code !== 'EEXIST') throw err
      await checkStoredChain(config)
      return { created: false, datadirCreated: false }
    }
  } catch (err) {
    if (datadirCreated) rmSync(config.datadir, { recursive: true, force: true })
    throw err
  } finally {
    rmSync(staging, { recursive: true, force: true })
  }
  return { created: true, datadirCreated }
}

/** undoInit removes what prepareDatadir created (an import that failed on its first block). */
export function undoInit(config: IbexConfig, prepared: Prepared): void {
  if (prepared.datadirCreated) rmSync(config.datadir, { recursive: true, force: true })
  else if (prepared.created) rmSync(chaindataPath(config), { recursive: true, force: true })
}

/**
 * The configuration initialNode runs with: the staging directory as datadir, the real datadir's
 * validator key (the dev genesis is built around it; made there first when missing).
 */
function stagingConfig(config: IbexConfig, staging: string): IbexConfig {
  const keyFile = validatorKeyPath(config)
  const devPreset = config.genesisFile === undefined && config.network === 'dev'
  if (devPreset) loadValidatorKey(config, { create: true })
  const hasKey = devPreset || config.validatorKeyFile !== undefined || existsSync(keyFile)
  return { ...config, datadir: staging, validatorKeyFile: hasKey ? resolve(keyFile) : undefined }
}

/** removeStaleStaging deletes .init-<pid> directories whose process is gone (a kill -9 mid-init). */
function removeStaleStaging(datadir: string): void {
  let names: string[]
  try {
    names = readdirSync(datadir)
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(STAGING_PREFIX)) continue
    const pid = Number(name.slice(STAGING_PREFIX.length))
    if (Number.isSafeInteger(pid) && pid !== process.pid && isAlive(pid)) continue
    rmSync(join(datadir, name), { recursive: true, force: true })
  }
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/** storedChain reads the chain id and genesis hash of the datadir's database. */
export async function storedChain(config: IbexConfig): Promise<ChainIdentity & { genesis: GenesisJson }> {
  const db = await openDatabase(chaindataPath(config))
  try {
    const stored = db.getSync('meta', GENESIS_JSON_KEY)
    if (stored === undefined) throw new BrokenChainError(config.datadir)
    const genesis = JSON.parse(Buffer.from(stored).toString('utf8')) as GenesisJson
    const store = new ChainStore(db, createChainCommon(genesis))
    if (!store.initialized) throw new BrokenChainError(config.datadir)
    return { chainId: BigInt(genesis.config.chainId), genesisHash: bytesToHex(store.genesisHash), genesis }
  } finally {
    await db.close()
  }
}

/** A database with nothing in it: the genesis state is computed in the trie's overlay, never written. */
const EMPTY_DATABASE = {
  getSync: () => undefined,
  getManySync: (keys: Uint8Array[]) => keys.map(() => undefined),
} as unknown as Database

/** genesisIdentity computes the chain id and block-0 hash of a genesis without a database. */
export async function genesisIdentity(genesis: GenesisJson): Promise<ChainIdentity> {
  const common = createChainCommon(genesis)
  const { hash } = await buildGenesis(genesis, common, new TrieStore(EMPTY_DATABASE))
  return { chainId: BigInt(genesis.config.chainId), genesisHash: bytesToHex(hash) }
}

/** What the configuration names, for messages: `the testnet preset`, `genesis FILE`. */
function requestedName(config: IbexConfig): string {
  return config.genesisFile === undefined ? `the ${config.network} preset` : `genesis ${config.genesisFile}`
}

/** checkStoredChain refuses a datadir whose genesis is not the one --network / --genesis names. */
async function checkStoredChain(config: IbexConfig): Promise<void> {
  const stored = await storedChain(config)
  const keyFile = validatorKeyPath(config)
  if (config.genesisFile === undefined && config.network === 'dev' && !existsSync(keyFile)) {
    // the dev genesis is built around the node's key: without it only the chain id can be compared
    const chainId = BigInt(loadGenesisChainId(config))
    if (chainId !== stored.chainId)
      throw new ChainMismatchError(config.datadir, stored, { chainId }, requestedName(config))
    return
  }
  const devKey =
    config.genesisFile === undefined && config.network === 'dev'
      ? loadValidatorKey(config, { create: false })
      : undefined
  const requested = await genesisIdentity(loadGenesis(config, devKey?.address) as unknown as GenesisJson)
  if (requested.genesisHash !== stored.genesisHash)
    throw new ChainMismatchError(config.datadir, stored, requested, requestedName(config))
}

/** The dev preset's chain id, read from a genesis built around a placeholder validator. */
function loadGenesisChainId(config: IbexConfig): number {
  const placeholder = '0x0000000000000000000000000000000000000001'
  return (loadGenesis(config, placeholder).config as { chainId: number }).chainId
}

/**
 * Genesis files: the geth-format `GethGenesis` type, reading a genesis.json with clear errors, and
 * building the genesis of our own networks (dev, testnet, mainnet).
 *
 * Our chain's genesis runs every Ethereum rule up to Prague from block 0. In the fork config that
 * reads as post-merge (mergeNetsplitBlock 0, terminalTotalDifficulty 0): no block rewards, no
 * uncles, PREVRANDAO = mixHash. Consensus is IBFT all the same: `config.ibft` says so, the header
 * carries difficulty 1, the IBFT mixHash and the validator list in extraData. ethereumjs reads the
 * file as a PoS chain (it inserts Paris at 0 once a time-based fork is set), so header checks made
 * for the beacon chain (difficulty 0, extraData ≤ 32 bytes) must be skipped for post-genesis blocks.
 *
 *   extraData = 32 zero bytes ‖ RLP([validators, 0x80, [], [], 0x80])
 *               (vanity ‖ [validators, empty proposer seal, no committed seals,
 *                          no parent committed seals, empty round])
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { RLP } from '@ethereumjs/rlp'
import { bytesToHex, concatBytes, hexToBytes, isValidChecksumAddress, toChecksumAddress } from '@ethereumjs/util'

import { devAccounts } from './accounts.js'
import { DEV_ACCOUNT_BALANCE_WEI, DEV_ACCOUNT_COUNT, GWEI, NETWORK_CHAIN_IDS } from './defaults.js'
import { ConfigError } from './errors.js'
import { checkGenesis, readGenesisFile } from './genesis-read.js'
import { multicall3Alloc } from './multicall3.js'
import type { IbexConfig, NetworkName } from './types.js'

/** IBFT_MIX_HASH marks every IBFT header (ASCII "ctical byzantine fault tolerance"). */
export const IBFT_MIX_HASH = '0x63746963616c2062797a616e74696e65206661756c7420746f6c6572616e6365'
/** GENESIS_GAS_LIMIT (30M) is Ethereum's long-standing block gas limit: known to fit a 2 s block on modest hardware. */
export const GENESIS_GAS_LIMIT = 30_000_000
/** GENESIS_BASE_FEE_WEI (1 gwei) is the EIP-1559 initial base fee. */
export const GENESIS_BASE_FEE_WEI = GWEI
/** IBFT_EPOCH_SIZE: blocks between validator-vote checkpoints, as in Quorum's IBFT. */
export const IBFT_EPOCH_SIZE = 30_000
/** IBFT_VANITY_BYTES of free-form data open the extraData. */
export const IBFT_VANITY_BYTES = 32

/** IBFT parameters carried in the genesis `config.ibft`. */
export interface IbftGenesisConfig {
  /** Seconds between blocks (fractions allowed); 0 = seal when transactions arrive. */
  blockTime: number
  /** Blocks per epoch (validator votes reset at epoch boundaries). */
  epochSize: number
  /** Informational copy; the validator set of record is the one in extraData. */
  validators?: string[]
  /** The blocks' `miner` (receives the tips); absent = the validator that seals the block. */
  feeRecipient?: string
}

/** The `config` of a geth genesis.json. Unknown keys are kept. */
export interface GethGenesisConfig {
  chainId: number
  homesteadBlock?: number
  daoForkBlock?: number
  eip150Block?: number
  eip155Block?: number
  eip158Block?: number
  byzantiumBlock?: number
  constantinopleBlock?: number
  petersburgBlock?: number
  istanbulBlock?: number
  muirGlacierBlock?: number
  berlinBlock?: number
  londonBlock?: number
  arrowGlacierBlock?: number
  grayGlacierBlock?: number
  mergeNetsplitBlock?: number
  shanghaiTime?: number
  cancunTime?: number
  pragueTime?: number
  osakaTime?: number
  terminalTotalDifficulty?: number
  depositContractAddress?: string
  blobSchedule?: Record<string, { target: number; max: number; baseFeeUpdateFraction: number }>
  ibft?: IbftGenesisConfig
  /** Receives the EIP-1559 base fee instead of burning it; absent = burned, as on Ethereum. */
  baseFeeRecipient?: string
  [key: string]: unknown
}

export interface GethGenesisAccount {
  /** Wei, hex (0x…) or decimal string. */
  balance: string
  code?: string
  storage?: Record<string, string>
  nonce?: string
}

/** A geth-format genesis.json. Header quantities are 0x-hex strings after readGenesisFile. */
export interface GethGenesis {
  config: GethGenesisConfig
  /** Address (with or without 0x) → account. */
  alloc: Record<string, GethGenesisAccount>
  nonce: string
  timestamp: string
  extraData: string
  gasLimit: string
  difficulty: string
  mixHash?: string
  coinbase?: string
  baseFeePerGas?: string | null
  number?: string
  gasUsed?: string
  parentHash?: string
  excessBlobGas?: string | null
  blobGasUsed?: string | null
  [key: string]: unknown
}

const ZERO_ADDRESS = '0x0000000000000000000000000000000000000000'
const ZERO_HASH = `0x${'00'.repeat(32)}`

/** normalizeAddress checks a 0x address (all-lower/upper case, or a valid EIP-55 checksum) and returns it checksummed. */
export function normalizeAddress(address: string): string {
  if (!/^0x[0-9a-fA-F]{40}$/.test(address))
    throw new ConfigError(`invalid address ${JSON.stringify(address)}: expected 0x and 40 hex digits`)
  const body = address.slice(2)
  if (body !== body.toLowerCase() && body !== body.toUpperCase() && !isValidChecksumAddress(address)) {
    throw new ConfigError(`invalid address ${address}: mixed case but not a valid EIP-55 checksum`)
  }
  return toChecksumAddress(address.toLowerCase())
}

/** encodeIbftExtraData writes the genesis extraData for `validators` (order = proposer rotation order). */
export function encodeIbftExtraData(validators: string[]): string {
  if (validators.length === 0) throw new ConfigError('an IBFT genesis needs at least one validator')
  const seen = new Set<string>()
  const addresses = validators.map((v) => {
    const address = normalizeAddress(v)
    if (seen.has(address)) throw new ConfigError(`validator ${address} listed twice`)
    seen.add(address)
    return hexToBytes(address as `0x${string}`)
  })
  const empty = new Uint8Array(0)
  return bytesToHex(concatBytes(new Uint8Array(IBFT_VANITY_BYTES), RLP.encode([addresses, empty, [], [], empty])))
}

/** readExtraDataValidators returns the checksummed validator list of an IBFT extraData. */
export function readExtraDataValidators(extraData: string): string[] {
  const bytes = hexToBytes(extraData as `0x${string}`)
  let decoded: unknown
  try {
    decoded = RLP.decode(bytes.subarray(IBFT_VANITY_BYTES))
  } catch (err) {
    throw new ConfigError(`extraData is not IBFT extraData (${(err as Error).message})`)
  }
  const list = Array.isArray(decoded) ? decoded[0] : undefined
  if (!Array.isArray(list) || list.some((a) => !(a instanceof Uint8Array) || a.length !== 20)) {
    throw new ConfigError('extraData is not IBFT extraData (no validator list of 20-byte addresses)')
  }
  return list.map((a) => toChecksumAddress(bytesToHex(a as Uint8Array)))
}

/** chainForkConfig: every fork through Prague at block/time 0, as our networks run. */
function chainForkConfig(chainId: number, blockTimeMs: number): GethGenesisConfig {
  return {
    chainId,
    homesteadBlock: 0,
    eip150Block: 0,
    eip155Block: 0,
    eip158Block: 0,
    byzantiumBlock: 0,
    constantinopleBlock: 0,
    petersburgBlock: 0,
    istanbulBlock: 0,
    muirGlacierBlock: 0,
    berlinBlock: 0,
    londonBlock: 0,
    arrowGlacierBlock: 0,
    grayGlacierBlock: 0,
    mergeNetsplitBlock: 0,
    shanghaiTime: 0,
    cancunTime: 0,
    pragueTime: 0,
    terminalTotalDifficulty: 0,
    // Ethereum's values (geth ≥ 1.15 requires the entries); blob transactions are refused on our chain anyway.
    blobSchedule: {
      cancun: { target: 3, max: 6, baseFeeUpdateFraction: 3338477 },
      prague: { target: 6, max: 9, baseFeeUpdateFraction: 5007716 },
    },
    ibft: { blockTime: blockTimeMs / 1000, epochSize: IBFT_EPOCH_SIZE },
  }
}

export interface BuildGenesisOptions {
  /** Default: the network's chain id (dev 1337, testnet 7860, mainnet 786). */
  chainId?: number
  /** Default: the dev accounts on dev, empty otherwise. */
  alloc?: Record<string, GethGenesisAccount>
  /** Unix seconds; default 0 (a deterministic genesis). */
  timestamp?: number
}

/** devAlloc funds the DEV_ACCOUNT_COUNT test-mnemonic accounts with DEV_ACCOUNT_BALANCE_WEI each. */
export function devAlloc(): Record<string, GethGenesisAccount> {
  const alloc: Record<string, GethGenesisAccount> = {}
  for (const { address } of devAccounts(DEV_ACCOUNT_COUNT))
    alloc[address] = { balance: `0x${DEV_ACCOUNT_BALANCE_WEI.toString(16)}` }
  return alloc
}

/** buildGenesis makes the genesis of one of our networks with the given validators. */
export function buildGenesis(
  config: IbexConfig,
  validatorAddresses: string[],
  options: BuildGenesisOptions = {},
): GethGenesis {
  const chainId = options.chainId ?? NETWORK_CHAIN_IDS[config.network]
  const dao = options.alloc === undefined && config.network === 'dev' ? daoGenesis('dev') : undefined
  const forks = chainForkConfig(chainId, config.blockTimeMs)
  return {
    // the fee rule of every preset carrying the DAO (daoFeeRouting): base fee and tip to the RevenuePool
    config: dao === undefined ? forks : { ...forks, ...daoFeeRouting(forks.ibft as IbftGenesisConfig, dao) },
    nonce: '0x0',
    timestamp: `0x${(options.timestamp ?? 0).toString(16)}`,
    extraData: encodeIbftExtraData(validatorAddresses),
    gasLimit: `0x${GENESIS_GAS_LIMIT.toString(16)}`,
    difficulty: '0x1',
    mixHash: IBFT_MIX_HASH,
    coinbase: ZERO_ADDRESS,
    baseFeePerGas: `0x${GENESIS_BASE_FEE_WEI.toString(16)}`,
    number: '0x0',
    gasUsed: '0x0',
    parentHash: ZERO_HASH,
    // Multicall3 on every preset, after the dev accounts and the DAO (an explicit alloc is taken as is)
    alloc: options.alloc ?? { ...(dao ? { ...devAlloc(), ...dao.alloc } : {}), ...multicall3Alloc() },
  }
}

/** withValidators returns a copy of `genesis` whose extraData lists `validators` (vanity kept). */
export function withValidators(genesis: GethGenesis, validators: string[]): GethGenesis {
  const copy = structuredClone(genesis)
  const vanity =
    genesis.extraData.length >= 2 + 2 * IBFT_VANITY_BYTES
      ? genesis.extraData.slice(0, 2 + 2 * IBFT_VANITY_BYTES)
      : undefined
  copy.extraData = encodeIbftExtraData(validators)
  if (vanity !== undefined) copy.extraData = vanity + copy.extraData.slice(2 + 2 * IBFT_VANITY_BYTES)
  return copy
}

/** packageRoot is the directory holding ibex's package.json, from src/ (vitest) or dist/src/ (built). */
export function packageRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url))
  while (!existsSync(join(dir, 'package.json'))) {
    const parent = dirname(dir)
    if (parent === dir) throw new Error('ibex package root not found above src/config')
    dir = parent
  }
  return dir
}

/** presetGenesisPath: the shipped genesis.json of testnet or mainnet. */
export function presetGenesisPath(network: 'testnet' | 'mainnet'): string {
  return join(packageRoot(), 'src', 'config', 'genesis', `${network}.json`)
}

export function loadPresetGenesis(network: 'testnet' | 'mainnet'): GethGenesis {
  const genesis = readGenesisFile(presetGenesisPath(network))
  const dao = daoGenesis(network)
  genesis.alloc = { ...genesis.alloc, ...dao.alloc, ...multicall3Alloc() }
  Object.assign(genesis.config, daoFeeRouting(genesis.config.ibft as IbftGenesisConfig, dao))
  return genesis
}

/**
 * daoFeeRouting: the one fee rule of every preset (dev, testnet, mainnet), DESIGN "Chain rules":
 * the whole fee of every transaction is the DAO's transactional revenue, from block 1 on. The
 * EIP-1559 base fee is credited to the RevenuePool instead of burned (`baseFeeRecipient`) and the
 * tip goes to the block's `miner`, which is the RevenuePool too (`ibft.feeRecipient`); the sealing
 * validator gets neither. The RevenuePool holds that revenue until its transactional start.
 */
export function daoFeeRouting(
  ibft: IbftGenesisConfig,
  dao: DaoGenesis,
): { baseFeeRecipient: string; ibft: IbftGenesisConfig } {
  return { baseFeeRecipient: dao.baseFeeRecipient, ibft: { ...ibft, feeRecipient: dao.baseFeeRecipient } }
}

/** The Validator DAO of a preset, as `npm run contracts` writes it (contracts/genesis/<network>.json). */
export interface DaoGenesis {
  /** Contract name → fixed address (the same on every preset; contracts/README.md). */
  addresses: Record<string, string>
  /** The RevenuePool: receives the base fee of every block (DESIGN "Chain rules"). */
  baseFeeRecipient: string
  /** The DAO contracts' code and storage (plus, on dev, the funded applicant accounts 10-19). */
  alloc: Record<string, GethGenesisAccount>
}

const daoGenesisCache = new Map<NetworkName, DaoGenesis>()

/**
 * daoGenesis: the predeployed Validator DAO of `network`. Every preset carries it in `alloc`
 * (dev through buildGenesis, testnet/mainnet through loadPresetGenesis) with the RevenuePool as
 * `config.baseFeeRecipient`.
 */
export function daoGenesis(network: NetworkName): DaoGenesis {
  let dao = daoGenesisCache.get(network)
  if (dao === undefined) {
    const path = join(packageRoot(), 'contracts', 'genesis', `${network}.json`)
    dao = JSON.parse(readFileSync(path, 'utf8')) as DaoGenesis
    daoGenesisCache.set(network, dao)
  }
  return dao
}

/**
 * loadGenesis: the genesis a node initialises from — the --genesis file, else the network preset.
 * The dev preset is built around `devValidator` (the node's own key).
 */
export function loadGenesis(config: IbexConfig, devValidator?: string): GethGenesis {
  if (config.genesisFile !== undefined) return readGenesisFile(config.genesisFile)
  if (config.network === 'dev') {
    if (devValidator === undefined) throw new ConfigError('the dev genesis needs the node validator address')
    return buildGenesis(config, [devValidator])
  }
  return loadPresetGenesis(config.network as Exclude<NetworkName, 'dev'>)
}

export { checkGenesis, readGenesisFile }

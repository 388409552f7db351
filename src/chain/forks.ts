/**
 * A chain's fork schedule as geth reads it from the genesis `config`: the timestamp forks in
 * order, the EIP-2124 fork id, the precompiles and system contracts each fork brings (what
 * EIP-7910 eth_config reports).
 */
import { crc32 } from 'node:zlib'
import type { GenesisJson } from './common.js'

/** Timestamp forks in geth's order (params/forks), with their genesis config keys. */
export const TIME_FORKS = [
  { name: 'shanghai', key: 'shanghaiTime' },
  { name: 'cancun', key: 'cancunTime' },
  { name: 'prague', key: 'pragueTime' },
  { name: 'osaka', key: 'osakaTime' },
  { name: 'bpo1', key: 'bpo1Time' },
  { name: 'bpo2', key: 'bpo2Time' },
  { name: 'bpo3', key: 'bpo3Time' },
  { name: 'bpo4', key: 'bpo4Time' },
  { name: 'bpo5', key: 'bpo5Time' },
] as const

export type TimeForkName = (typeof TIME_FORKS)[number]['name']

function configOf(genesis: GenesisJson): Record<string, unknown> {
  return (genesis.config ?? {}) as Record<string, unknown>
}

function timeOf(genesis: GenesisJson, index: number): bigint | undefined {
  const fork = TIME_FORKS[index]
  const v = fork === undefined ? undefined : configOf(genesis)[fork.key]
  return typeof v === 'number' || typeof v === 'string' ? BigInt(v) : undefined
}

/** Index in TIME_FORKS of the last timestamp fork active at `time` (-1: none, pre-Shanghai). */
export function latestTimeFork(genesis: GenesisJson, time: bigint): number {
  let latest = -1
  for (let i = 0; i < TIME_FORKS.length; i++) {
    const t = timeOf(genesis, i)
    if (t !== undefined && t <= time) latest = i
  }
  return latest
}

/** The activation time of TIME_FORKS[index], when configured. */
export function timeForkActivation(genesis: GenesisJson, index: number): bigint | undefined {
  return index < 0 ? undefined : timeOf(genesis, index)
}

/** Whether the timestamp fork `name` is active at `time`. */
export function timeForkActive(genesis: GenesisJson, name: TimeForkName, time: bigint): boolean {
  const index = TIME_FORKS.findIndex((f) => f.name === name)
  const t = timeOf(genesis, index)
  return t !== undefined && t <= time
}

/**
 * The EIP-2124 fork id hash at `time` with every block fork passed: CRC32 of the genesis hash,
 * updated with each fork block / time (as uint64 big-endian) in order; forks at genesis skipped.
 */
export function forkIdHash(genesis: GenesisJson, genesisHash: Uint8Array, time: bigint): Uint8Array {
  const config = configOf(genesis)
  const genesisTime = BigInt(genesis.timestamp ?? 0)
  const blocks = new Set<bigint>()
  const times = new Set<bigint>()
  for (const [key, value] of Object.entries(config)) {
    if (typeof value !== 'number' && typeof value !== 'string') continue
    if (key.endsWith('Block')) blocks.add(BigInt(value))
    else if (key.endsWith('Time')) times.add(BigInt(value))
  }
  let hash = crc32(genesisHash)
  const update = (fork: bigint) => {
    const b = Buffer.alloc(8)
    b.writeBigUInt64BE(fork)
    hash = crc32(b, hash)
  }
  for (const fork of [...blocks].sort(compare)) if (fork !== 0n) update(fork)
  for (const fork of [...times].sort(compare)) if (fork > genesisTime && fork <= time) update(fork)
  const out = Buffer.alloc(4)
  out.writeUInt32BE(hash >>> 0)
  return out
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0
}

/** Precompiles by the fork that adds them, with geth's names (vm.PrecompiledContract.Name()). */
const PRECOMPILES_BY_FORK: { since: 'frontier' | 'byzantium' | 'istanbul' | TimeForkName; list: [string, number][] }[] =
  [
    {
      since: 'frontier',
      list: [
        ['ECREC', 1],
        ['SHA256', 2],
        ['RIPEMD160', 3],
        ['ID', 4],
      ],
    },
    {
      since: 'byzantium',
      list: [
        ['MODEXP', 5],
        ['BN254_ADD', 6],
        ['BN254_MUL', 7],
        ['BN254_PAIRING', 8],
      ],
    },
    { since: 'istanbul', list: [['BLAKE2F', 9]] },
    { since: 'cancun', list: [['KZG_POINT_EVALUATION', 0x0a]] },
    {
      since: 'prague',
      list: [
        ['BLS12_G1ADD', 0x0b],
        ['BLS12_G1MSM', 0x0c],
        ['BLS12_G2ADD', 0x0d],
        ['BLS12_G2MSM', 0x0e],
        ['BLS12_PAIRING_CHECK', 0x0f],
        ['BLS12_MAP_FP_TO_G1', 0x10],
        ['BLS12_MAP_FP2_TO_G2', 0x11],
      ],
    },
    { since: 'osaka', list: [['P256VERIFY', 0x100]] },
  ]

function addressHex(n: number): string {
  return `0x${n.toString(16).padStart(40, '0')}`
}

/** name → address of the precompiles active at `time` once every block fork has passed. */
export function precompilesAt(genesis: GenesisJson, time: bigint): Record<string, string> {
  const out: Record<string, string> = {}
  for (const group of PRECOMPILES_BY_FORK) {
    const active =
      group.since === 'frontier' || group.since === 'byzantium' || group.since === 'istanbul'
        ? true
        : timeForkActive(genesis, group.since, time)
    if (active) for (const [name, addr] of group.list) out[name] = addressHex(addr)
  }
  return out
}

export const BEACON_ROOTS_ADDRESS = '0x000f3df6d732807ef1319fb7b8bb8522d0beac02'
export const HISTORY_STORAGE_ADDRESS = '0x0000f90827f1c53a10cb7a02335b175320002935'
export const WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = '0x00000961ef480eb55e80d19ad83579a64c007002'
export const CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = '0x0000bbddc7ce488642fb579f8b00f3a590007251'
/** Mainnet's deposit contract: geth's default when the genesis names none. */
export const MAINNET_DEPOSIT_CONTRACT_ADDRESS = '0x00000000219ab540356cbb839cbe05303d7705fa'

/** The deposit contract of the chain (EIP-6110 logs are read from it). */
export function depositContractAddress(genesis: GenesisJson): string {
  const v = configOf(genesis).depositContractAddress
  return typeof v === 'string' ? v.toLowerCase() : MAINNET_DEPOSIT_CONTRACT_ADDRESS
}

/** The system contracts active at `time` (geth's ChainConfig.ActiveSystemContracts). */
export function systemContractsAt(genesis: GenesisJson, time: bigint): Record<string, string> {
  const out: Record<string, string> = {}
  if (timeForkActive(genesis, 'cancun', time)) out.BEACON_ROOTS_ADDRESS = BEACON_ROOTS_ADDRESS
  if (timeForkActive(genesis, 'prague', time)) {
    out.CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS = CONSOLIDATION_REQUEST_PREDEPLOY_ADDRESS
    out.DEPOSIT_CONTRACT_ADDRESS = depositContractAddress(genesis)
    out.HISTORY_STORAGE_ADDRESS = HISTORY_STORAGE_ADDRESS
    out.WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS = WITHDRAWAL_REQUEST_PREDEPLOY_ADDRESS
  }
  return out
}

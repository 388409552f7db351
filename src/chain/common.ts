/**
 * The `Common` (fork rules and chain id) of a chain, from its geth-format genesis, with
 * ibex's native crypto plugged in (sender recovery and the ecrecover precompile) and the KZG
 * of the point-evaluation precompile (src/util/kzg.ts).
 *
 * Blob parameters come from the genesis `blobSchedule` (EIP-7840). ethereumjs maps Cancun's and
 * Prague's entries itself, but reads the blob-parameter-only forks (bpo1…bpo5) from params named
 * `target` / `max` / `blobGasPriceUpdateFraction` scoped to the fork, which the geth mapping does
 * not fill: they are passed here as fork-scoped params, for every entry of the schedule.
 */
import { type Common, createCommonFromGethGenesis } from '@ethereumjs/common'
import { keccak256, nativeEcrecover } from '../util/crypto.js'
import { LAZY_KZG } from '../util/kzg.js'

// biome-ignore lint/suspicious/noExplicitAny: geth genesis is free-form JSON
export type GenesisJson = Record<string, any>

/** Blob gas of one blob (EIP-4844 GAS_PER_BLOB). */
export const GAS_PER_BLOB = 131_072

interface BlobScheduleEntry {
  target: number
  max: number
  baseFeeUpdateFraction: number
}

/** Fork-scoped blob params from the genesis blobSchedule. */
export function blobScheduleParams(genesis: GenesisJson): Record<string, Record<string, number>> {
  const schedule = (genesis.config?.blobSchedule ?? {}) as Record<string, BlobScheduleEntry>
  const params: Record<string, Record<string, number>> = {}
  for (const [fork, entry] of Object.entries(schedule)) {
    if (entry?.target === undefined || entry.max === undefined || entry.baseFeeUpdateFraction === undefined) continue
    params[fork] = {
      target: entry.target,
      max: entry.max,
      blobGasPriceUpdateFraction: entry.baseFeeUpdateFraction,
      targetBlobGasPerBlock: entry.target * GAS_PER_BLOB,
      maxBlobGasPerBlock: entry.max * GAS_PER_BLOB,
      blobGasPerBlob: GAS_PER_BLOB,
    }
  }
  return params
}

export function createChainCommon(genesis: GenesisJson, name = 'ibex'): Common {
  // biome-ignore lint/suspicious/noExplicitAny: ethereumjs' GethGenesis type is stricter than real files
  const common = createCommonFromGethGenesis(genesis as any, {
    chain: name,
    params: blobScheduleParams(genesis),
    customCrypto: { ecrecover: nativeEcrecover, keccak256, kzg: LAZY_KZG },
  })
  const timestamp = BigInt(genesis.timestamp ?? 0)
  common.setHardforkBy({ blockNumber: 0n, timestamp })
  return common
}

/** True when the chain ever activates Cancun (then the KZG must be loaded before executing). */
export function hasCancun(genesis: GenesisJson): boolean {
  return genesis.config?.cancunTime !== undefined && genesis.config?.cancunTime !== null
}

/**
 * Fee routing of an IBFT chain, from its genesis: the blocks' `miner` (tips) is
 * `config.ibft.feeRecipient`, else the sealing validator; the EIP-1559 base fee goes to
 * `config.baseFeeRecipient`, else it is burned (DESIGN "Chain rules").
 */
export function feeRouting(
  genesis: GenesisJson,
  validator: string,
): { coinbase: Uint8Array; baseFeeRecipient: Uint8Array | undefined } {
  const toBytes = (hex: string) => Buffer.from(hex.replace(/^0x/, ''), 'hex')
  const miner = genesis.config?.ibft?.feeRecipient as string | undefined
  const baseFee = genesis.config?.baseFeeRecipient as string | undefined
  return {
    coinbase: toBytes(miner ?? validator),
    baseFeeRecipient: baseFee === undefined ? undefined : toBytes(baseFee),
  }
}

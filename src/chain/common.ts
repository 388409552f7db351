/**
 * The `Common` (fork rules and chain id) of a chain, from its geth-format genesis, with
 * ibex's native crypto plugged in (sender recovery and the ecrecover precompile).
 */
import { type Common, createCommonFromGethGenesis } from '@ethereumjs/common'
import { keccak256, nativeEcrecover } from '../util/crypto.js'

// biome-ignore lint/suspicious/noExplicitAny: geth genesis is free-form JSON
export type GenesisJson = Record<string, any>

export function createChainCommon(genesis: GenesisJson, name = 'ibex'): Common {
  // biome-ignore lint/suspicious/noExplicitAny: ethereumjs' GethGenesis type is stricter than real files
  const common = createCommonFromGethGenesis(genesis as any, {
    chain: name,
    customCrypto: { ecrecover: nativeEcrecover, keccak256 },
  })
  const timestamp = BigInt(genesis.timestamp ?? 0)
  common.setHardforkBy({ blockNumber: 0n, timestamp })
  return common
}

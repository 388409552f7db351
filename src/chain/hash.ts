/**
 * Block hashing per consensus engine. On IBFT chains the hash leaves the seals out (so that
 * sealing does not change it, see src/consensus/ibft); on every other chain (imported geth
 * chains) it is keccak256 of the RLP header, as on Ethereum.
 */
import { RLP } from '@ethereumjs/rlp'
import { ibftBlockHash } from './ibft/index.js'
import { keccak256 } from '../util/crypto.js'
import type { GenesisJson } from './common.js'

export type Engine = 'ibft' | 'ethereum'

export function engineOf(genesis: GenesisJson): Engine {
  return genesis.config?.ibft !== undefined ? 'ibft' : 'ethereum'
}

export function blockHashOf(headerRaw: Uint8Array[], engine: Engine): Uint8Array {
  return engine === 'ibft' ? ibftBlockHash(headerRaw) : keccak256(RLP.encode(headerRaw))
}

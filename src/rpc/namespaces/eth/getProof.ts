/**
 * eth_getProof (EIP-1186): the account's Merkle proof from the state root, and one proof per
 * storage key from the account's storage root, encoded as geth's GetProof encodes them (a key
 * given as 32 bytes comes back as such, a shorter one as a QUANTITY).
 */
import { bytesToBigInt } from '@ethereumjs/util'
import { type Backend, stateBlock } from '../../backend.js'
import { toData, toQuantity } from '../../../util/hex.js'
import { Address, BlockTag, goDecoder, LATEST, optional, StorageKey } from '../../params/index.js'
import { kindMismatch } from '../../params/gojson.js'
import { method, type MethodTable, type ParamDecoder } from '../../types.js'

/** Bytes of a key answered as a hash (DATA, 32 bytes) rather than as a QUANTITY. */
const HASH_KEY_BYTES = 32

interface ProofKey {
  slot: Uint8Array
  /** Bytes the client wrote (32 → answered as a hash, else as a quantity). */
  inputLength: number
}

/** geth's `[]string` of storage keys, each decoded by decodeStorageKey. */
const StorageKeyList: ParamDecoder<ProofKey[]> = goDecoder((raw) => {
  if (raw === null) return []
  if (!Array.isArray(raw)) throw kindMismatch(raw, '[]string')
  return raw.map((k) => {
    const slot = StorageKey.decode(k)
    const text = typeof k === 'string' ? k.replace(/^0[xX]/, '') : ''
    return { slot, inputLength: Math.ceil(text.length / 2) }
  })
})

export const getProofMethods: MethodTable<Backend> = {
  eth_getProof: method([Address, StorageKeyList, optional(BlockTag, LATEST)], async (b, [address, keys, ref]) => {
    const proof = await b.state(stateBlock(b, ref)).proof(
      address,
      keys.map((k) => k.slot),
    )
    return {
      address,
      accountProof: proof.accountProof,
      balance: proof.balance,
      codeHash: proof.codeHash,
      nonce: proof.nonce,
      storageHash: proof.storageHash,
      // one proof per key, in the keys' order
      storageProof: keys.map((k, i) => {
        const p = proof.storageProof[i]
        return {
          key: k.inputLength === HASH_KEY_BYTES ? toData(k.slot) : toQuantity(bytesToBigInt(k.slot)),
          value: toQuantity(BigInt(p === undefined || p.value === '0x' ? '0x0' : p.value)),
          proof: p?.proof ?? [],
        }
      }),
    }
  }),
}

/**
 * eth_getProof (EIP-1186): the account's Merkle proof from the state root, and one proof per
 * storage key from the account's storage root, encoded as geth's GetProof encodes them (a key
 * given as 32 bytes comes back as such, a shorter one as a QUANTITY).
 */
import { getMerkleStateProof } from '@ethereumjs/statemanager'
import { bytesToBigInt, createAddressFromString } from '@ethereumjs/util'
import type { Backend } from '../../backend.js'
import { toData, toQuantity } from '../../hex.js'
import {
  Address as AddressParam,
  type BlockRef,
  BlockTag,
  goDecoder,
  LATEST,
  optional,
  StorageKey,
} from '../../params/index.js'
import { kindMismatch } from '../../params/gojson.js'
import type { MethodTable, ParamDecoder } from '../../types.js'

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
  eth_getProof: {
    params: [AddressParam, StorageKeyList, optional(BlockTag, LATEST)],
    handler: async (b, [address, keysRaw, ref]) => {
      const keys = keysRaw as ProofKey[]
      const state = b.stateAt(b.stateBlock(ref as BlockRef))
      const proof = await getMerkleStateProof(
        state,
        createAddressFromString(address as string),
        keys.map((k) => k.slot),
      )
      return {
        address: address as string,
        accountProof: proof.accountProof,
        balance: proof.balance,
        codeHash: proof.codeHash,
        nonce: proof.nonce,
        storageHash: proof.storageHash,
        storageProof: proof.storageProof.map((p, i) => {
          const k = keys[i] as ProofKey
          return {
            key: k.inputLength === 32 ? toData(k.slot) : toQuantity(bytesToBigInt(k.slot)),
            value: toQuantity(BigInt(p.value === '0x' ? '0x0' : p.value)),
            proof: p.proof,
          }
        }),
      }
    },
  },
}

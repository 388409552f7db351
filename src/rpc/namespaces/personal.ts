/**
 * The personal namespace, as far as dev tools still use it: personal_sign (data first, then the
 * address; the password geth's old API took is accepted and ignored), personal_ecRecover and
 * personal_listAccounts, over the same unlocked accounts as eth_sign (src/rpc/namespaces/dev/
 * accounts.ts). Served by default on the dev chain only (`[jsonrpc] api`).
 */
import secp256k1 from 'secp256k1'
import type { Backend } from '../backend.js'
import { ServerError } from '../errors.js'
import { Address, Data, optional, stringParam } from '../params/index.js'
import { method, type Namespace } from '../types.js'
import { publicKeyToAddress } from '../../util/crypto.js'
import { toData } from '../../util/hex.js'
import { LEGACY_V_OFFSET, personalMessageDigest, SIGNATURE_BYTES } from './dev/accountsKeys.js'

/** personal_ecRecover: the address that signed `data` as personal_sign does (geth's wording for a bad signature). */
function recoverSigner(data: Uint8Array, signature: Uint8Array): string {
  if (signature.length !== SIGNATURE_BYTES) {
    throw new ServerError(`signature must be ${SIGNATURE_BYTES} bytes long`)
  }
  const v = signature[SIGNATURE_BYTES - 1] as number
  if (v !== LEGACY_V_OFFSET && v !== LEGACY_V_OFFSET + 1) {
    throw new ServerError('invalid Ethereum signature (V is not 27 or 28)')
  }
  try {
    const pub = secp256k1.ecdsaRecover(
      signature.subarray(0, 64),
      v - LEGACY_V_OFFSET,
      personalMessageDigest(data),
      false,
    )
    return toData(publicKeyToAddress(pub.subarray(1)))
  } catch {
    throw new ServerError('invalid signature')
  }
}

export const personalNamespace: Namespace<Backend> = {
  name: 'personal',
  methods: {
    personal_listAccounts: method([], (b) => b.accounts.addresses),
    personal_sign: method([Data, Address, optional(stringParam('string'), '')], (b, [data, address]) =>
      toData(b.accounts.signLegacy(address, personalMessageDigest(data))),
    ),
    personal_ecRecover: method([Data, Data], (_, [data, signature]) => recoverSigner(data, signature)),
  },
}

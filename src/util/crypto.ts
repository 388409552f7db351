/**
 * Hashing and signature primitives shared by every module: keccak256 (keccak.ts, ~3x faster
 * than ethereum-cryptography's for short inputs; ethereumjs uses it too, through the Common's
 * customCrypto) and native secp256k1 (libsecp256k1 via the `secp256k1` addon), which recovers
 * senders ~15x faster than the JS implementation.
 */
import secp256k1 from 'secp256k1'
import { keccak256 as keccakFast } from './keccak.js'

export const keccak256 = keccakFast

const ZERO_32 = new Uint8Array(32)

function leftPad32(bytes: Uint8Array): Uint8Array {
  if (bytes.length === 32) return bytes
  if (bytes.length > 32) throw new Error('invalid signature component length')
  const out = new Uint8Array(32)
  out.set(bytes, 32 - bytes.length)
  return out
}

/** Recovery id (0/1) from a signature's `v`, for legacy (27/28), EIP-155 and typed transactions. */
export function recoveryIdFromV(v: bigint, chainId?: bigint): number {
  if (v === 0n || v === 1n) return Number(v)
  if (chainId === undefined) return Number(v - 27n)
  return Number(v - (chainId * 2n + 35n))
}

/**
 * ecrecover in the shape `@ethereumjs/common`'s `customCrypto.ecrecover` expects:
 * returns the 64-byte uncompressed public key without the 0x04 prefix.
 */
export function nativeEcrecover(
  msgHash: Uint8Array,
  v: bigint,
  r: Uint8Array,
  s: Uint8Array,
  chainId?: bigint,
): Uint8Array {
  const recId = recoveryIdFromV(v, chainId)
  if (recId !== 0 && recId !== 1) throw new Error('Invalid signature v value')
  const sig = new Uint8Array(64)
  sig.set(leftPad32(r), 0)
  sig.set(leftPad32(s), 32)
  const pub = secp256k1.ecdsaRecover(sig, recId, msgHash, false)
  return pub.subarray(1)
}

/** Address (20 bytes) of a 64-byte public key. */
export function publicKeyToAddress(pub64: Uint8Array): Uint8Array {
  return keccak256(pub64).subarray(12)
}

/** Address (20 bytes) of a private key. */
export function privateKeyToAddressBytes(privateKey: Uint8Array): Uint8Array {
  return publicKeyToAddress(secp256k1.publicKeyCreate(privateKey, false).subarray(1))
}

export { ZERO_32 }

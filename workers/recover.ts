/**
 * Piscina entry point of sender recovery (src/txpool/recovery.ts): ecrecover of a batch of
 * signatures, off the main thread. The answer carries, per item, the 64-byte public key and its
 * address, or null when the signature does not recover (the main thread then leaves the
 * transaction to its own check, which words the error).
 */
import { keccak256 } from '../src/util/keccak.js'
import type { RecoverBatch, RecoverReply } from '../src/txpool/recovery.js'
import { nativeEcrecover } from '../src/util/crypto.js'

export default function recover(batch: RecoverBatch): RecoverReply {
  const keys: (Uint8Array | null)[] = batch.map((item) => {
    try {
      return nativeEcrecover(item.hash, item.v, item.r, item.s, item.chainId)
    } catch {
      return null
    }
  })
  // the sender's address as ethereumjs derives it from the key (publicToAddress)
  const addresses = keys.map((key) => (key === null ? null : keccak256(key).subarray(12)))
  return { keys, addresses }
}

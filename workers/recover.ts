/**
 * Worker thread of sender recovery (src/txpool/recovery.ts): ecrecover of signature batches,
 * off the main thread. A message is a batch; the answer carries, per item, the 64-byte public
 * key and its address, or null when the signature does not recover (the main thread then leaves the transaction
 * to its own check, which words the error).
 */
import { parentPort } from 'node:worker_threads'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { nativeEcrecover } from '../src/util/crypto.js'
import type { RecoverBatch, RecoverReply } from '../src/txpool/recovery.js'

parentPort?.on('message', (batch: RecoverBatch) => {
  const keys: (Uint8Array | null)[] = batch.items.map((item) => {
    try {
      return nativeEcrecover(item.hash, item.v, item.r, item.s, item.chainId)
    } catch {
      return null
    }
  })
  // the sender's address as ethereumjs derives it from the key (publicToAddress)
  const addresses = keys.map((key) => (key === null ? null : keccak256(key).subarray(12)))
  const reply: RecoverReply = { id: batch.id, keys, addresses }
  parentPort?.postMessage(reply)
})

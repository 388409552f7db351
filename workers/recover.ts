/**
 * Worker thread of sender recovery (src/txpool/recovery.ts): ecrecover of signature batches,
 * off the main thread. A message is a batch; the answer carries, per item, the 64-byte public
 * key or null when the signature does not recover (the main thread then leaves the transaction
 * to its own check, which words the error).
 */
import { parentPort } from 'node:worker_threads'
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
  const reply: RecoverReply = { id: batch.id, keys }
  parentPort?.postMessage(reply)
})

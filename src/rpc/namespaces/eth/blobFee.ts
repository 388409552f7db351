/**
 * eth_baseFee (the base fee of the next block) and eth_blobBaseFee (the blob base fee of the
 * head, as geth's EthAPIBackend.BlobBaseFee computes it). null before London / Cancun.
 */
import type { Backend } from '../../backend.js'
import { toQuantity } from '../../../util/hex.js'
import { method, type MethodTable } from '../../types.js'

export const blobFeeMethods: MethodTable<Backend> = {
  eth_baseFee: method([], (b) => {
    const h = b.head().header
    return h.common.isActivatedEIP(1559) ? toQuantity(h.calcNextBaseFee()) : null
  }),
  eth_blobBaseFee: method([], (b) => {
    const h = b.head().header
    return h.excessBlobGas === undefined ? null : toQuantity(h.getBlobGasPrice())
  }),
}

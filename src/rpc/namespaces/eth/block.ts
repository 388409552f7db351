/**
 * eth_ block methods: by number / hash, transaction counts, receipts of a block. The ByNumber
 * methods take geth's `rpc.BlockNumber` (a tag or a number: a hash or an EIP-1898 object is
 * refused, as geth does); eth_getBlockReceipts takes `rpc.BlockNumberOrHash`.
 */
import type { ChainBlock } from '../../../chain/store.js'
import { type Backend, resolveBlock, sendersOf } from '../../backend.js'
import { formatBlock, keptBlock } from '../../format/block.js'
import { formatBlockReceipts } from '../../format/receipt.js'
import { toQuantity } from '../../../util/hex.js'
import { BlockNumber, BlockTag, Bool, Hash } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

function blockResult(b: Backend, block: ChainBlock | undefined, full: boolean) {
  if (block === undefined) return null
  return formatBlock(block, {
    fullTransactions: full,
    senders: full ? sendersOf(b, block) : [],
  })
}

export const blockMethods: MethodTable<Backend> = {
  eth_getBlockByNumber: method([BlockNumber, Bool], (b, [ref, full]) => {
    if (ref.kind !== 'number') return blockResult(b, resolveBlock(b, ref), full)
    // a block formatted before answers from the number index alone, without being read again
    const hash = b.canonicalHash(ref.number)
    if (hash === undefined) return null
    return keptBlock(hash, full) ?? blockResult(b, b.blockByHash(hash), full)
  }),
  eth_getBlockByHash: method(
    [Hash, Bool],
    (b, [hash, full]) => keptBlock(hash, full) ?? blockResult(b, b.blockByHash(hash), full),
  ),
  eth_getBlockTransactionCountByNumber: method([BlockNumber], (b, [ref]) => {
    const block = resolveBlock(b, ref)
    return block === undefined ? null : toQuantity(block.transactionBytes.length)
  }),
  eth_getBlockTransactionCountByHash: method([Hash], (b, [hash]) => {
    const block = b.blockByHash(hash)
    return block === undefined ? null : toQuantity(block.transactionBytes.length)
  }),
  eth_getUncleCountByBlockNumber: method([BlockNumber], (b, [ref]) => {
    const block = resolveBlock(b, ref)
    return block === undefined ? null : toQuantity(block.uncles.length)
  }),
  eth_getUncleCountByBlockHash: method([Hash], (b, [hash]) => {
    const block = b.blockByHash(hash)
    return block === undefined ? null : toQuantity(block.uncles.length)
  }),
  eth_getBlockReceipts: method([BlockTag], (b, [ref]) => {
    const block = resolveBlock(b, ref)
    if (block === undefined) return null
    return formatBlockReceipts(block, b.receipts(block.hash) ?? [])
  }),
}

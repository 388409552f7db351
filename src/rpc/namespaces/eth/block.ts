/** eth_ block methods: by number / hash, transaction counts, receipts of a block. */
import type { ChainBlock } from '../../../chain/store.js'
import type { Backend } from '../../backend.js'
import { formatBlock } from '../../format/block.js'
import { formatBlockReceipts } from '../../format/receipt.js'
import { toQuantity } from '../../hex.js'
import { type BlockRef, BlockTag, Bool, Hash } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

function blockResult(b: Backend, block: ChainBlock | undefined, full: boolean) {
  if (block === undefined) return null
  return formatBlock(block, {
    fullTransactions: full,
    senders: full ? b.senders(block) : [],
  })
}

export const blockMethods: MethodTable<Backend> = {
  eth_getBlockByNumber: {
    params: [BlockTag, Bool],
    handler: (b, [ref, full]) => blockResult(b, b.resolveBlock(ref as BlockRef), full as boolean),
  },
  eth_getBlockByHash: {
    params: [Hash, Bool],
    handler: (b, [hash, full]) => blockResult(b, b.store.getBlockByHash(hash as Uint8Array), full as boolean),
  },
  eth_getBlockTransactionCountByNumber: {
    params: [BlockTag],
    handler: (b, [ref]) => {
      const block = b.resolveBlock(ref as BlockRef)
      return block === undefined ? null : toQuantity(block.transactions.length)
    },
  },
  eth_getBlockTransactionCountByHash: {
    params: [Hash],
    handler: (b, [hash]) => {
      const block = b.store.getBlockByHash(hash as Uint8Array)
      return block === undefined ? null : toQuantity(block.transactions.length)
    },
  },
  eth_getUncleCountByBlockNumber: {
    params: [BlockTag],
    handler: (b, [ref]) => {
      const block = b.resolveBlock(ref as BlockRef)
      return block === undefined ? null : toQuantity(block.uncles.length)
    },
  },
  eth_getUncleCountByBlockHash: {
    params: [Hash],
    handler: (b, [hash]) => {
      const block = b.store.getBlockByHash(hash as Uint8Array)
      return block === undefined ? null : toQuantity(block.uncles.length)
    },
  },
  eth_getBlockReceipts: {
    params: [BlockTag],
    handler: (b, [ref]) => {
      const block = b.resolveBlock(ref as BlockRef)
      if (block === undefined) return null
      return formatBlockReceipts(block, b.store.getReceipts(block.hash) ?? [])
    },
  },
}

/** eth_ transaction lookups: by hash, by block and index, receipts. */
import type { ChainBlock } from '../../../chain/store.js'
import type { Backend } from '../../backend.js'
import { formatReceipt } from '../../format/receipt.js'
import { formatTransaction } from '../../format/transaction.js'
import { toData } from '../../hex.js'
import { BlockTag, Hash, Uint64, type BlockRef } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

function txInBlock(b: Backend, block: ChainBlock | undefined, index: number) {
  if (block === undefined) return null
  const tx = block.transactions[index]
  if (tx === undefined) return null
  const from = b.senders(block)[index] as Uint8Array
  return formatTransaction(tx, {
    from,
    blockHash: block.hash,
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: block.header.baseFeePerGas,
  })
}

function rawInBlock(block: ChainBlock | undefined, index: number) {
  const bytes = block?.transactionBytes[index]
  return bytes === undefined ? '0x' : toData(bytes)
}

export const transactionMethods: MethodTable<Backend> = {
  eth_getRawTransactionByHash: {
    params: [Hash],
    handler: (b, [hash]) => {
      const loc = b.store.getTxLocation(hash as Uint8Array)
      if (loc !== undefined) {
        const bytes = b.store.getBlockByHash(loc.blockHash)?.transactionBytes[loc.index]
        return bytes === undefined ? null : toData(bytes)
      }
      const pending = b.pool.get(toData(hash as Uint8Array))
      return pending === undefined ? null : toData(pending.tx.serialize())
    },
  },
  eth_getRawTransactionByBlockHashAndIndex: {
    params: [Hash, Uint64],
    handler: (b, [hash, index]) => rawInBlock(b.store.getBlockByHash(hash as Uint8Array), Number(index as bigint)),
  },
  eth_getRawTransactionByBlockNumberAndIndex: {
    params: [BlockTag, Uint64],
    handler: (b, [ref, index]) => rawInBlock(b.resolveBlock(ref as BlockRef), Number(index as bigint)),
  },
  eth_getTransactionByHash: {
    params: [Hash],
    handler: (b, [hash]) => {
      const loc = b.store.getTxLocation(hash as Uint8Array)
      if (loc !== undefined) return txInBlock(b, b.store.getBlockByHash(loc.blockHash), loc.index)
      const pending = b.pool.get(toData(hash as Uint8Array))
      return pending === undefined ? null : formatTransaction(pending.tx, { from: pending.sender })
    },
  },
  eth_getTransactionByBlockHashAndIndex: {
    params: [Hash, Uint64],
    handler: (b, [hash, index]) =>
      txInBlock(b, b.store.getBlockByHash(hash as Uint8Array), Number(index as bigint)),
  },
  eth_getTransactionByBlockNumberAndIndex: {
    params: [BlockTag, Uint64],
    handler: (b, [ref, index]) => txInBlock(b, b.resolveBlock(ref as BlockRef), Number(index as bigint)),
  },
  eth_getTransactionReceipt: {
    params: [Hash],
    handler: (b, [hash]) => {
      const loc = b.store.getTxLocation(hash as Uint8Array)
      if (loc === undefined) return null
      const block = b.store.getBlockByHash(loc.blockHash)
      const receipts = block && b.store.getReceipts(block.hash)
      if (block === undefined || receipts === undefined) return null
      return formatReceipt(block, receipts, loc.index, block.transactions[loc.index]!)
    },
  },
}

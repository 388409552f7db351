/**
 * eth_ transaction lookups: by hash, by block and index, receipts. As in geth, a block is named by
 * `rpc.BlockNumber` (tag or number) in the ByBlockNumber methods, and an index is `hexutil.Uint`.
 */
import { blockTransaction, type ChainBlock } from '../../../chain/store.js'
import { type Backend, resolveBlock } from '../../backend.js'
import { formatOneReceipt, keptReceipt } from '../../format/receipt.js'
import { formatTransaction, keptTransaction } from '../../format/transaction.js'
import { toData } from '../../../util/hex.js'
import { BlockNumber, Hash, Uint } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

function txInBlock(b: Backend, block: ChainBlock | undefined, index: number) {
  if (block === undefined) return null
  const tx = blockTransaction(block, index)
  if (tx === undefined) return null
  // one receipt decoded, not the block's (sendersOf)
  const from = b.receiptAt(block.hash, index)?.receipt.from ?? EMPTY_SENDER
  return formatTransaction(tx, {
    from,
    blockHash: block.hash,
    blockNumber: block.header.number,
    blockTimestamp: block.header.timestamp,
    index,
    baseFee: block.header.baseFeePerGas,
  })
}

/** A sender the receipts do not have (never, for a stored block): formatted as 0x. */
const EMPTY_SENDER = new Uint8Array(0)

function rawInBlock(block: ChainBlock | undefined, index: number) {
  const bytes = block?.transactionBytes[index]
  return bytes === undefined ? '0x' : toData(bytes)
}

export const transactionMethods: MethodTable<Backend> = {
  eth_getRawTransactionByHash: method([Hash], (b, [hash]) => {
    const loc = b.txLocation(hash)
    if (loc !== undefined) {
      const bytes = b.blockByHash(loc.blockHash)?.transactionBytes[loc.index]
      return bytes === undefined ? null : toData(bytes)
    }
    const pending = b.poolTransaction(hash)
    return pending === undefined ? null : toData(pending.tx.serialize())
  }),
  eth_getRawTransactionByBlockHashAndIndex: method([Hash, Uint], (b, [hash, index]) =>
    rawInBlock(b.blockByHash(hash), Number(index)),
  ),
  eth_getRawTransactionByBlockNumberAndIndex: method([BlockNumber, Uint], (b, [ref, index]) =>
    rawInBlock(resolveBlock(b, ref), Number(index)),
  ),
  eth_getTransactionByHash: method([Hash], (b, [hash]) => {
    const loc = b.txLocation(hash)
    // a kept object answers from the location alone: no block read, no transaction decoded
    if (loc !== undefined)
      return keptTransaction(loc.blockHash, loc.index) ?? txInBlock(b, b.blockByHash(loc.blockHash), loc.index)
    const pending = b.poolTransaction(hash)
    return pending === undefined ? null : formatTransaction(pending.tx, { from: pending.sender })
  }),
  eth_getTransactionByBlockHashAndIndex: method([Hash, Uint], (b, [hash, index]) =>
    txInBlock(b, b.blockByHash(hash), Number(index)),
  ),
  eth_getTransactionByBlockNumberAndIndex: method([BlockNumber, Uint], (b, [ref, index]) =>
    txInBlock(b, resolveBlock(b, ref), Number(index)),
  ),
  eth_getTransactionReceipt: method([Hash], (b, [hash]) => {
    const loc = b.txLocation(hash)
    if (loc === undefined) return null
    const kept = keptReceipt(loc.blockHash, loc.index)
    if (kept !== undefined) return kept
    const block = b.blockByHash(loc.blockHash)
    const tx = block && blockTransaction(block, loc.index)
    if (block === undefined || tx === undefined) return null
    return formatOneReceipt(block, loc.index, tx, () => b.receiptAt(block.hash, loc.index))
  }),
}

/**
 * The debug namespace (served only when `debug` is in `[jsonrpc] api`): the raw consensus
 * encodings of blocks, headers, receipts and transactions, as geth's DebugAPI returns them.
 * Tracing (debug_trace*) belongs to the worker pool and is registered there.
 */
import { RLP } from '@ethereumjs/rlp'
import { logsBloom } from '../../chain/bloom.js'
import { encodeConsensusReceipt } from '../../chain/receipt.js'
import type { ChainBlock } from '../../chain/store.js'
import { type Backend, resolveBlock } from '../backend.js'
import { NotFoundError } from '../errors.js'
import { toData } from '../../util/hex.js'
import { type BlockRef, BlockTag, Hash } from '../params/index.js'
import { method, type Namespace } from '../types.js'

/** The block a raw-data method names; geth's errors when there is none. */
function blockOf(b: Backend, ref: BlockRef, what: 'block' | 'header'): ChainBlock {
  const block = resolveBlock(b, ref)
  if (block !== undefined) return block
  const name = ref.kind === 'hash' ? toData(ref.hash) : ref.kind === 'number' ? `#${ref.number}` : ref.tag
  throw new NotFoundError(`${what} ${name}`)
}

/** The block as `geth export` and the eth wire protocol encode it. */
export function encodeBlock(block: ChainBlock): Uint8Array {
  const txs = block.transactionBytes.map((t) => ((t[0] as number) >= 0xc0 ? RLP.decode(t) : t))
  const body: unknown[] = [block.headerRaw, txs, block.uncles]
  if (block.withdrawals !== undefined) body.push(block.withdrawals)
  return RLP.encode(body as never)
}

export const debugNamespace: Namespace<Backend> = {
  name: 'debug',
  methods: {
    debug_getRawHeader: method([BlockTag], (b, [ref]) => toData(RLP.encode(blockOf(b, ref, 'header').headerRaw))),
    debug_getRawBlock: method([BlockTag], (b, [ref]) => toData(encodeBlock(blockOf(b, ref, 'block')))),
    debug_getRawReceipts: method([BlockTag], (b, [ref]) => {
      const block = blockOf(b, ref, 'block')
      const receipts = b.receipts(block.hash) ?? []
      return receipts.map((r) => toData(encodeConsensusReceipt(r, logsBloom(r.logs))))
    }),
    debug_getRawTransaction: method([Hash], (b, [hash]) => {
      const loc = b.txLocation(hash)
      if (loc !== undefined) {
        const bytes = b.blockByHash(loc.blockHash)?.transactionBytes[loc.index]
        if (bytes !== undefined) return toData(bytes)
      }
      const pending = b.poolTransaction(hash)
      // geth answers an empty byte string for an unknown transaction
      return pending === undefined ? '0x' : toData(pending.tx.serialize())
    }),
  },
}

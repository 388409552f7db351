/**
 * Block and header objects in geth's field set for the block's fork: London adds
 * baseFeePerGas, Shanghai withdrawalsRoot/withdrawals, Cancun blob gas and the beacon root,
 * Prague requestsHash. No totalDifficulty: geth dropped it from block objects (v1.14.11) and
 * the execution-apis fixtures have none. A stored block is formatted once per transaction
 * detail and kept (cache.ts); simulated blocks (given their transaction hashes) are not.
 */
import { RLP } from '@ethereumjs/rlp'
import type { ChainBlock } from '../../chain/store.js'
import { keccak256 } from '../../util/crypto.js'
import { toData, toQuantity } from '../../util/hex.js'
import { BLOCK_CACHE_RLP_BYTES, FormatCache, keep, keyOf, keyOfOnce } from './cache.js'
import { formatTransaction } from './transaction.js'

const blockCache = new FormatCache<RpcObject>(Number.POSITIVE_INFINITY, BLOCK_CACHE_RLP_BYTES)

export type RpcObject = Record<string, unknown>

/** Position of the state root in a header's fields. */
const HEADER_STATE_ROOT = 3

export function formatHeader(block: ChainBlock): RpcObject {
  const h = block.header
  const out: RpcObject = {
    number: toQuantity(h.number),
    hash: toData(block.hash),
    parentHash: toData(h.parentHash),
    nonce: toData(h.nonce),
    mixHash: toData(h.mixHash),
    sha3Uncles: toData(h.uncleHash),
    logsBloom: toData(h.logsBloom),
    // as sealed: a dev chain's edited state (src/chain/stateEdits.ts) changes what the header shows no more than anvil's
    stateRoot: toData(block.headerRaw[HEADER_STATE_ROOT] ?? h.stateRoot),
    miner: toData(h.coinbase.bytes),
    difficulty: toQuantity(h.difficulty),
    extraData: toData(h.extraData),
    gasLimit: toQuantity(h.gasLimit),
    gasUsed: toQuantity(h.gasUsed),
    timestamp: toQuantity(h.timestamp),
    transactionsRoot: toData(h.transactionsTrie),
    receiptsRoot: toData(h.receiptTrie),
  }
  const common = h.common
  if (common.isActivatedEIP(1559) && h.baseFeePerGas !== undefined) out.baseFeePerGas = toQuantity(h.baseFeePerGas)
  if (common.isActivatedEIP(4895) && h.withdrawalsRoot !== undefined) out.withdrawalsRoot = toData(h.withdrawalsRoot)
  if (common.isActivatedEIP(4844)) {
    out.blobGasUsed = toQuantity(h.blobGasUsed ?? 0n)
    out.excessBlobGas = toQuantity(h.excessBlobGas ?? 0n)
  }
  if (common.isActivatedEIP(4788) && h.parentBeaconBlockRoot !== undefined) {
    out.parentBeaconBlockRoot = toData(h.parentBeaconBlockRoot)
  }
  if (common.isActivatedEIP(7685) && h.requestsHash !== undefined) out.requestsHash = toData(h.requestsHash)
  return out
}

export interface FormatBlockOptions {
  fullTransactions: boolean
  /** Senders of the block's transactions, in order (from the stored receipts). */
  senders: Uint8Array[]
  /** Hashes of the transactions when they cannot compute them (unsigned simulated ones). */
  txHashes?: Uint8Array[]
}

export function formatBlock(block: ChainBlock, opts: FormatBlockOptions): RpcObject {
  if (opts.txHashes !== undefined) return buildBlock(block, opts)
  const key = keyOf(block.hash, opts.fullTransactions ? 'full' : 'hashes')
  const known = blockCache.get(key)
  if (known !== undefined) return known
  return blockCache.set(key, keep(buildBlock(block, opts)), block.size)
}

/** The object of stored block `hash` when it was formatted before with this detail (see keptReceipt), else undefined. */
export function keptBlock(hash: Uint8Array, fullTransactions: boolean): RpcObject | undefined {
  return blockCache.get(keyOfOnce(hash, fullTransactions ? 'full' : 'hashes'))
}

function buildBlock(block: ChainBlock, opts: FormatBlockOptions): RpcObject {
  const out = formatHeader(block)
  out.size = toQuantity(block.size)
  out.uncles = block.uncles.map((u) => toData(keccak256(RLP.encode(u))))
  out.transactions = opts.fullTransactions
    ? block.transactions.map((tx, i) =>
        formatTransaction(tx, {
          from: opts.senders[i] as Uint8Array,
          blockHash: block.hash,
          blockNumber: block.header.number,
          blockTimestamp: block.header.timestamp,
          index: i,
          baseFee: block.header.baseFeePerGas,
          hash: opts.txHashes?.[i],
        }),
      )
    : // a stored transaction's hash is the keccak of its bytes in the body: no need to decode it
      (opts.txHashes ?? block.transactionBytes.map((bytes) => keccak256(bytes))).map((h) => toData(h))
  if (block.withdrawals !== undefined) {
    out.withdrawals = block.withdrawals.map((w) => ({
      index: toQuantity(bytesToBig(w[0] as Uint8Array)),
      validatorIndex: toQuantity(bytesToBig(w[1] as Uint8Array)),
      address: toData(w[2] as Uint8Array),
      amount: toQuantity(bytesToBig(w[3] as Uint8Array)),
    }))
  }
  return out
}

function bytesToBig(b: Uint8Array): bigint {
  return b.length === 0 ? 0n : BigInt(`0x${Buffer.from(b).toString('hex')}`)
}

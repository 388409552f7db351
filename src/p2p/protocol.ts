/**
 * What ibex nodes say to each other over libp2p: gossip topics and request/response protocols,
 * all namespaced by the first 8 bytes of the genesis hash so that two networks never mix.
 *
 *   gossip  /ibex/<g>/txs/1       RLP([raw…]): raw signed transactions (as eth_sendRawTransaction
 *                                 takes them), the batches of src/p2p/txGossip.ts
 *           /ibex/<g>/tx/1        one raw signed transaction (sent by nodes before batching; taken)
 *           /ibex/<g>/ibft/1      IBFT consensus message (src/consensus/ibft/messages.ts)
 *           /ibex/<g>/block/1     "I have block n": RLP([number, hash]) after a node inserts it
 *   streams /ibex/<g>/status/1            → RLP([headNumber, headHash])
 *           /ibex/<g>/blocks/1   RLP([from, count]) → up to count frames, one block each,
 *                                 RLP [header, txs, uncles, withdrawals?] (the `ibex export` format)
 *           /ibex/<g>/tx-hashes/1  RLP([hash…]) → no frame: "I hold these pending transactions"
 *                                 (geth's NewPooledTransactionHashes; ≤ TX_ANNOUNCE_MAX_HASHES)
 *           /ibex/<g>/pooled-txs/1 RLP([hash…]) → one frame per transaction held, raw signed, in the
 *                                 order asked (geth's GetPooledTransactions; ≤ TX_FETCH_MAX_HASHES)
 *
 * Every frame is length-prefixed (unsigned varint); a side that sees more than it accepts
 * (P2P_MAX_FRAME_BYTES, SYNC_MAX_BLOCKS_PER_REQUEST, the hash-list limits) closes the stream.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex } from '@ethereumjs/util'

/** Largest frame or gossip payload accepted: a full block or IBFT proposal with its certificate (IBFT_MAX_MESSAGE_BYTES) plus framing. */
export const P2P_MAX_FRAME_BYTES = 5 * 1024 * 1024
/** Most blocks one range request asks for: keeps one response around a few MB on a busy chain. */
export const SYNC_MAX_BLOCKS_PER_REQUEST = 64
/** Most hashes in one announcement: 32 KiB of hashes, a quarter of what geth packs in one (maxTxPacketSize 100 KiB). */
export const TX_ANNOUNCE_MAX_HASHES = 1024
/** Most transactions asked for in one fetch (geth's maxTxRetrievals): batches worth a round trip, small enough to spread over peers. */
export const TX_FETCH_MAX_HASHES = 256

export interface ProtocolNames {
  txTopic: string
  txBatchTopic: string
  ibftTopic: string
  blockTopic: string
  status: string
  blocks: string
  txHashes: string
  pooledTxs: string
}

/** protocolNames returns the topic and protocol ids of the network with this genesis hash. */
export function protocolNames(genesisHash: Uint8Array): ProtocolNames {
  const g = bytesToHex(genesisHash.subarray(0, 8)).slice(2)
  return {
    txTopic: `/ibex/${g}/tx/1`,
    txBatchTopic: `/ibex/${g}/txs/1`,
    ibftTopic: `/ibex/${g}/ibft/1`,
    blockTopic: `/ibex/${g}/block/1`,
    status: `/ibex/${g}/status/1`,
    blocks: `/ibex/${g}/blocks/1`,
    txHashes: `/ibex/${g}/tx-hashes/1`,
    pooledTxs: `/ibex/${g}/pooled-txs/1`,
  }
}

/** A head (status answer) or a block announcement. */
export interface BlockRef {
  number: bigint
  hash: Uint8Array
}

export function encodeBlockRef(ref: BlockRef): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(ref.number), ref.hash])
}

/** decodeBlockRef parses RLP([number, hash]); undefined when malformed. */
export function decodeBlockRef(bytes: Uint8Array): BlockRef | undefined {
  try {
    const item = RLP.decode(bytes)
    if (!Array.isArray(item) || item.length !== 2) return undefined
    const [n, hash] = item
    if (!(n instanceof Uint8Array) || !(hash instanceof Uint8Array) || hash.length !== 32 || n.length > 8)
      return undefined
    return { number: bytesToBigInt(n), hash }
  } catch {
    return undefined
  }
}

/** A range request: `count` blocks from `from`. */
export interface RangeRequest {
  from: bigint
  count: number
}

export function encodeRangeRequest(r: RangeRequest): Uint8Array {
  return RLP.encode([bigIntToUnpaddedBytes(r.from), bigIntToUnpaddedBytes(BigInt(r.count))])
}

/** decodeRangeRequest parses a range request, clamping count to SYNC_MAX_BLOCKS_PER_REQUEST; undefined when malformed. */
export function decodeRangeRequest(bytes: Uint8Array): RangeRequest | undefined {
  try {
    const item = RLP.decode(bytes)
    if (!Array.isArray(item) || item.length !== 2) return undefined
    const [from, count] = item
    if (!(from instanceof Uint8Array) || !(count instanceof Uint8Array) || from.length > 8 || count.length > 4)
      return undefined
    return { from: bytesToBigInt(from), count: Math.min(Number(bytesToBigInt(count)), SYNC_MAX_BLOCKS_PER_REQUEST) }
  } catch {
    return undefined
  }
}

export function encodeHashes(hashes: readonly Uint8Array[]): Uint8Array {
  return RLP.encode(hashes as Uint8Array[])
}

/** decodeHashes parses RLP([hash…]) of at most `max` 32-byte hashes; undefined when malformed or longer. */
export function decodeHashes(bytes: Uint8Array, max: number): Uint8Array[] | undefined {
  try {
    const item = RLP.decode(bytes)
    if (!Array.isArray(item) || item.length > max) return undefined
    for (const h of item) if (!(h instanceof Uint8Array) || h.length !== 32) return undefined
    return item as Uint8Array[]
  } catch {
    return undefined
  }
}

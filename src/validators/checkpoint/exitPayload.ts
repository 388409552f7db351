/**
 * The exit payload of a burn: what ExitVault.exit(bytes) on the base chain needs to pay a
 * withdrawal out, built from the local chain and a committed checkpoint (VALIDATORS.md "Proof of
 * burn"; Polygon's ExitPayloadReader is the model, proving the block hash instead of Polygon's leaf).
 *
 *   payload = RLP([headerBlockId, blockProof, blockNumber, headerRlp, receiptRlp,
 *                  receiptProof, receiptKey, logIndex])
 *
 *   headerBlockId  integer: the checkpoint's id (multiple of 10,000)
 *   blockProof     bytes: siblings of the block hash up to the checkpoint root, leaf level first
 *                  (root.ts), leaf index = blockNumber − checkpoint.start
 *   blockNumber    integer
 *   headerRlp      bytes: the header RLP exactly as hashed for the IBFT block hash (extraData
 *                  blanked: no seals, no round), so keccak256(headerRlp) = block hash; field 5 is
 *                  receiptsRoot, field 8 number
 *   receiptRlp     bytes: the receipt as the receipts trie holds it (typed: type byte ‖ RLP list;
 *                  legacy: the RLP list)
 *   receiptProof   list: the trie nodes root → leaf, each node's RLP spliced in as an item of the
 *                  list (a node is itself an RLP list), so keccak256(raw item 0) = receiptsRoot and
 *                  each next item hashes to the reference its parent holds (the contracts'
 *                  MerklePatriciaProof.get reads this list's payload)
 *   receiptKey     bytes: RLP(txIndex), the trie key (0x80 for the first transaction)
 *   logIndex       integer: the log's index within the receipt
 * Integers are RLP's minimal big-endian strings (0 is the empty string).
 *
 * Log indices: clients see a log's block-level `logIndex` (eth_getLogs, receipts: its position
 * among all the logs of the block). The payload carries its index within the receipt:
 *   logIndex(receipt) = logIndex(block) − Σ logs of the block's receipts before the transaction.
 * buildExitPayload takes either (`scope`) and refuses an index outside the transaction's logs.
 *
 * Checks before anything is handed out: the block's stored receipts rebuild the header's
 * receiptsRoot (with @ethereumjs/mpt, whose proof is returned), the hashed header hashes to the
 * stored block hash, the checkpoint's root is the local chain's (proveBlock), and the log is a burn.
 */
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToHex } from '@ethereumjs/util'

import { logsBloom } from '../../chain/bloom.js'
import { blankedExtra, decodeExtra } from '../../chain/ibft/extra.js'
import { extraDataOf, withExtraData } from '../../chain/ibft/hash.js'
import { encodeConsensusReceipt, type LogTuple, type StoredReceipt } from '../../chain/receipt.js'
import type { ChainBlock, TxLocation } from '../../chain/store.js'
import { keccak256 } from '../../util/keccak.js'
import {
  ExitLogIndexError,
  ExitUnknownTxError,
  NotABurnError,
  NotCheckpointedError,
  ReceiptsRootMismatchError,
} from './errors.js'
import { type BlockProofResult, type CanonicalHashReader, proveBlock } from './proveBlock.js'
import type { CheckpointSource } from './source.js'

/** keccak256("Transfer(address,address,uint256)"): the ERC-20 event a burn is. */
export const TRANSFER_TOPIC_HEX = '0xddf252ad1be2c89b69c2b068fc378daa952ba7f163c4a11628f55a4df523b3ef'
const TRANSFER_TOPIC = Buffer.from(TRANSFER_TOPIC_HEX.slice(2), 'hex')
/** Topics of a Transfer: the signature, `from`, `to` (both indexed). */
const TRANSFER_TOPICS = 3
/** Bytes of a Transfer's data: the amount (uint256). */
const TRANSFER_DATA_BYTES = 32

/** Bytes of padding before an address in a 32-byte topic. */
const ADDRESS_PADDING_BYTES = 12

/**
 * isBurnLog tells whether a log is a burn as the exit vault (contracts/checkpoint/ExitVault.sol)
 * pays it: an ERC-20 Transfer(from = owner, to = address(0), amount > 0) with clean address topics
 * — what OpenZeppelin's _burn emits and Polygon's ERC20Predicate exits. Whether the token (the
 * log's address) is mapped is the vault's check.
 */
export function isBurnLog(log: LogTuple): boolean {
  const [, topics, data] = log
  if (topics.length !== TRANSFER_TOPICS || data.length !== TRANSFER_DATA_BYTES) return false
  const [signature, from, to] = topics as [Uint8Array, Uint8Array, Uint8Array]
  return (
    Buffer.compare(signature, TRANSFER_TOPIC) === 0 &&
    from.subarray(0, ADDRESS_PADDING_BYTES).every((b) => b === 0) &&
    to.every((b) => b === 0) &&
    data.some((b) => b !== 0)
  )
}

/** The chain reads an exit payload needs (the RPC Backend has them all). */
export interface ExitChainReader extends CanonicalHashReader {
  blockByHash(hash: Uint8Array): ChainBlock | undefined
  /** The receipts of a stored block, in transaction order. */
  receipts(blockHash: Uint8Array): StoredReceipt[] | undefined
  txLocation(hash: Uint8Array): TxLocation | undefined
}

/** Which numbering a log index is in: the block's (as clients see it) or the receipt's. */
export type LogIndexScope = 'block' | 'receipt'

export interface ExitPayloadParams {
  txHash: Uint8Array
  logIndex: bigint
  /** Default 'block'. */
  scope?: LogIndexScope
  /** Which logs may be exited; default isBurnLog. */
  isBurn?: (log: LogTuple) => boolean
}

/** The payload and its parts, decoded for callers that show or check them. */
export interface ExitPayloadResult extends BlockProofResult {
  /** RLP of the eight fields, as ExitVault.exit takes it. */
  payload: Uint8Array
  headerRlp: Uint8Array
  receiptRlp: Uint8Array
  /** The trie nodes root → leaf, each its RLP encoding. */
  receiptProof: Uint8Array[]
  receiptKey: Uint8Array
  txIndex: number
  /** Index of the log within the receipt (the payload's field). */
  logIndex: number
  /** The same log's index within the block. */
  blockLogIndex: number
}

/**
 * hashedHeaderRlp returns the RLP of a stored block's header as its IBFT hash is taken (extraData
 * blanked), checked against the stored hash.
 */
export function hashedHeaderRlp(block: ChainBlock): Uint8Array {
  const raw = block.headerRaw
  const rlp = RLP.encode(withExtraData(raw, blankedExtra(decodeExtra(extraDataOf(raw)))))
  if (Buffer.compare(keccak256(rlp), block.hash) !== 0) {
    // the store holds blocks under their IBFT hash: anything else is a bug, not a client's error
    throw new Error(`block ${block.header.number}: blanked header does not hash to ${bytesToHex(block.hash)}`)
  }
  return rlp
}

/** The receipts trie of a block, key RLP(i) → consensus receipt i. */
async function receiptsTrie(receipts: StoredReceipt[]): Promise<{ trie: MerklePatriciaTrie; items: Uint8Array[] }> {
  const trie = new MerklePatriciaTrie()
  const items = receipts.map((r) => encodeConsensusReceipt(r, logsBloom(r.logs)))
  for (let i = 0; i < items.length; i++)
    await trie.put(RLP.encode(bigIntToUnpaddedBytes(BigInt(i))), items[i] as Uint8Array)
  return { trie, items }
}

/**
 * buildExitPayload builds the exit payload of log `logIndex` of transaction `txHash`. Throws
 * ExitUnknownTxError, ExitLogIndexError, NotABurnError, NotCheckpointedError (no committed
 * checkpoint holds the block yet), ReceiptsRootMismatchError, and proveBlock's errors.
 */
export async function buildExitPayload(
  chain: ExitChainReader,
  source: CheckpointSource,
  params: ExitPayloadParams,
): Promise<ExitPayloadResult> {
  const location = chain.txLocation(params.txHash)
  const block = location === undefined ? undefined : chain.blockByHash(location.blockHash)
  const receipts = block === undefined ? undefined : chain.receipts(block.hash)
  const receipt = location === undefined ? undefined : receipts?.[location.index]
  if (location === undefined || block === undefined || receipts === undefined || receipt === undefined) {
    throw new ExitUnknownTxError(bytesToHex(params.txHash))
  }
  let before = 0
  for (let i = 0; i < location.index; i++) before += (receipts[i] as StoredReceipt).logs.length
  const scope = params.scope ?? 'block'
  const inReceipt = scope === 'block' ? params.logIndex - BigInt(before) : params.logIndex
  if (inReceipt < 0n || inReceipt >= BigInt(receipt.logs.length)) {
    throw new ExitLogIndexError(params.logIndex, scope, receipt.logs.length)
  }
  const logIndex = Number(inReceipt)
  if (!(params.isBurn ?? isBurnLog)(receipt.logs[logIndex] as LogTuple)) throw new NotABurnError(logIndex)

  const number = block.header.number
  const checkpoint = await source.checkpointOfBlock(number)
  if (checkpoint === undefined) throw new NotCheckpointedError(number, (await source.latest())?.end)
  const proved = proveBlock(chain, checkpoint, number)

  const { trie, items } = await receiptsTrie(receipts)
  if (Buffer.compare(trie.root(), block.header.receiptTrie) !== 0) throw new ReceiptsRootMismatchError(number)
  const receiptKey = RLP.encode(bigIntToUnpaddedBytes(BigInt(location.index)))
  const receiptProof = await createMerkleProof(trie, receiptKey)
  const receiptRlp = items[location.index] as Uint8Array
  const headerRlp = hashedHeaderRlp(block)

  const payload = RLP.encode([
    bigIntToUnpaddedBytes(checkpoint.id),
    proved.proof,
    bigIntToUnpaddedBytes(number),
    headerRlp,
    receiptRlp,
    // decoded so RLP.encode splices each node's own encoding (canonical RLP re-encodes byte for byte)
    receiptProof.map((node) => RLP.decode(node)),
    receiptKey,
    bigIntToUnpaddedBytes(BigInt(logIndex)),
  ] as Parameters<typeof RLP.encode>[0])
  return {
    ...proved,
    payload,
    headerRlp,
    receiptRlp,
    receiptProof,
    receiptKey,
    txIndex: location.index,
    logIndex,
    blockLogIndex: before + logIndex,
  }
}

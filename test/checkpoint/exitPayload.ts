/**
 * An exit payload built in the test from a child chain's JSON-RPC answers, written from the
 * interface (contracts/README.md "ExitVault") — not the node's payload builder:
 *
 *   [headerBlockId, blockProof, blockNumber, headerRlp, receiptRlp, receiptProof, receiptKey, logIndex]
 *
 * The receipts trie is rebuilt here with @ethereumjs/mpt from every receipt of the block (and must
 * give the header's receiptsRoot), the header RLP is the seal-free form whose keccak256 is the
 * block hash (test/helpers/header.ts), the block proof comes from the checkpoint tree over the
 * range's block hashes.
 */
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { type Input, RLP } from '@ethereumjs/rlp'
import { AbiCoder, getBytes, hexlify, keccak256 } from 'ethers'
import type { Chain } from '../../scripts/dao/client.js'
import { decodeIbftExtra, encodeHeader, hashingExtraData, type RpcBlock } from '../helpers/header.js'
import { merkleProof, type RpcReceipt, receiptTrieValue } from './helpers.js'

/** The payload's parts, as bytes where the contract reads bytes. */
export interface ExitParts {
  headerBlockId: bigint
  blockProof: Uint8Array
  blockNumber: bigint
  headerRlp: Uint8Array
  receipt: Uint8Array
  /** The proof nodes, root first (each a node's RLP). */
  proof: Uint8Array[]
  receiptKey: Uint8Array
  logIndex: bigint
  blockHash: string
}

/**
 * How the RLP-carrying parts go into the payload — the vault reads them all:
 *   bytes    headerRlp as a byte string; the proof a byte string holding RLP(list of the nodes as
 *            byte strings) — what RLP-encoding @ethereumjs/mpt's or eth_getProof's node list gives
 *   polygon  headerRlp as a byte string; the proof a byte string holding RLP(list of the nodes in
 *            place) — Polygon's ExitPayloadReader layout
 *   inPlace  headerRlp and the proof (its nodes in place) as lists in the payload
 */
export type PayloadStyle = 'bytes' | 'polygon' | 'inPlace'

/** encodeExitPayload: the RLP payload ExitVault.exit takes. */
export function encodeExitPayload(p: ExitParts, style: PayloadStyle = 'bytes'): string {
  const nodes = p.proof.map((n) => RLP.decode(n) as Input)
  const header: Input = style === 'inPlace' ? (RLP.decode(p.headerRlp) as Input) : p.headerRlp
  const proof: Input = style === 'bytes' ? RLP.encode(p.proof) : style === 'polygon' ? RLP.encode(nodes) : nodes
  return hexlify(
    RLP.encode([p.headerBlockId, p.blockProof, p.blockNumber, header, p.receipt, proof, p.receiptKey, p.logIndex]),
  )
}

/** exitId: keccak256(abi.encode(blockHash, receiptKey, logIndex)), the vault's once-only key. */
export function exitId(p: ExitParts): string {
  return keccak256(
    AbiCoder.defaultAbiCoder().encode(['bytes32', 'bytes', 'uint256'], [p.blockHash, p.receiptKey, p.logIndex]),
  )
}

/** sealFreeHeader: the header RLP as hashed for the block hash (IBFT seals blanked). */
export function sealFreeHeader(block: RpcBlock): Uint8Array {
  return encodeHeader(block, hashingExtraData(decodeIbftExtra(block.extraData)))
}

/** receiptsTrie: the block's receipts trie, rebuilt from eth_getTransactionReceipt of each of its transactions. */
export async function receiptsTrie(chain: Chain, block: RpcBlock): Promise<MerklePatriciaTrie> {
  const trie = new MerklePatriciaTrie()
  const hashes = block.transactions as string[]
  for (let i = 0; i < hashes.length; i++) {
    const receipt: RpcReceipt = await chain.rpc('eth_getTransactionReceipt', [hashes[i]])
    await trie.put(RLP.encode(i), receiptTrieValue(receipt))
  }
  return trie
}

export interface CheckpointRange {
  headerBlockId: bigint
  start: bigint
  /** The block hashes of [start, end], in order. */
  leaves: string[]
}

/**
 * buildExit: the parts of the exit of log `logIndex` (counted inside the receipt) of transaction
 * `txHash`, proven against checkpoint `range`.
 */
export async function buildExit(
  chain: Chain,
  range: CheckpointRange,
  txHash: string,
  logIndex: bigint,
): Promise<ExitParts> {
  const receipt: RpcReceipt = await chain.rpc('eth_getTransactionReceipt', [txHash])
  const block: RpcBlock = await chain.rpc('eth_getBlockByNumber', [receipt.blockNumber, false])
  const trie = await receiptsTrie(chain, block)
  if (hexlify(trie.root()) !== block.receiptsRoot) {
    throw new Error(
      `receipts trie of block ${block.number} rebuilt as ${hexlify(trie.root())}, header has ${block.receiptsRoot}`,
    )
  }
  const receiptKey = RLP.encode(Number(BigInt(receipt.transactionIndex)))
  const headerRlp = sealFreeHeader(block)
  if (keccak256(headerRlp) !== block.hash)
    throw new Error(`header of block ${block.number} does not hash to ${block.hash}`)
  const blockNumber = BigInt(block.number)
  return {
    headerBlockId: range.headerBlockId,
    blockProof: getBytes(merkleProof(range.leaves, Number(blockNumber - range.start))),
    blockNumber,
    headerRlp,
    receipt: receiptTrieValue(receipt),
    proof: await createMerkleProof(trie, receiptKey),
    receiptKey,
    logIndex,
    blockHash: block.hash,
  }
}

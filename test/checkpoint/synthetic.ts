/**
 * Constructed child-chain blocks for the exit tests and the gas figures: receipts with ERC-20 burns
 * (typed and legacy), their trie built with @ethereumjs/mpt, a Prague-shaped header over it, and
 * the exit parts of one receipt against a checkpoint over given leaves.
 */
import { createMerkleProof, MerklePatriciaTrie } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { getAddress, getBytes, keccak256, toBeArray, zeroPadValue } from 'ethers'
import type { ExitParts } from './exitPayload.js'
import { merkleProof } from './helpers.js'

const TRANSFER_TOPIC = keccak256(Buffer.from('Transfer(address,address,uint256)'))
const OTHER_TOPIC = `0x${'11'.repeat(32)}`
/** The child token the synthetic burns come from (mapped in the vault; no code needed). */
export const CHILD_TOKEN = getAddress(`0x${'c0'.repeat(20)}`)
const BLOOM = new Uint8Array(256)

/** The owner and amount of synthetic receipt `i`'s burn. */
export function burnOf(i: number): { owner: string; amount: bigint } {
  return { owner: getAddress(zeroPadValue(toBeArray(0x1000 + i), 20)), amount: BigInt(i + 1) * 1000n }
}

/** Receipt i: typed (type 2) when even, legacy when odd; every third has a non-burn log first. */
export function receiptValue(i: number): Uint8Array {
  const { owner, amount } = burnOf(i)
  const burn = [
    getBytes(CHILD_TOKEN),
    [getBytes(TRANSFER_TOPIC), getBytes(zeroPadValue(owner, 32)), new Uint8Array(32)],
    getBytes(zeroPadValue(toBeArray(amount), 32)),
  ]
  const logs = i % 3 === 0 ? [[getBytes(CHILD_TOKEN), [getBytes(OTHER_TOPIC)], new Uint8Array()], burn] : [burn]
  const body = RLP.encode([1, 21_000 * (i + 1), BLOOM, logs])
  return i % 2 === 0 ? Uint8Array.from([2, ...body]) : body
}

/** The burn's log index inside receipt i. */
export function burnLogIndex(i: number): bigint {
  return i % 3 === 0 ? 1n : 0n
}

/** A Prague-shaped header (21 fields) with the given receiptsRoot and number. */
export function header(number: bigint, receiptsRoot: Uint8Array): Uint8Array {
  const h32 = (tag: number) => new Uint8Array(32).fill(tag)
  return RLP.encode([
    h32(1), // parentHash
    h32(2), // sha3Uncles
    new Uint8Array(20).fill(3), // miner
    h32(4), // stateRoot
    h32(5), // transactionsRoot
    receiptsRoot,
    BLOOM,
    0, // difficulty
    number,
    30_000_000,
    21_000,
    1_800_000_000,
    new Uint8Array(97), // extraData
    h32(6), // mixHash
    new Uint8Array(8), // nonce
    7, // baseFeePerGas
    h32(8), // withdrawalsRoot
    0,
    0,
    h32(9), // parentBeaconBlockRoot
    h32(10), // requestsHash
  ])
}

export interface Block {
  number: bigint
  headerRlp: Uint8Array
  hash: string
  trie: MerklePatriciaTrie
}

export async function block(number: bigint, receipts: number): Promise<Block> {
  const trie = new MerklePatriciaTrie()
  for (let i = 0; i < receipts; i++) await trie.put(RLP.encode(i), receiptValue(i))
  const headerRlp = header(number, trie.root())
  return { number, headerRlp, hash: keccak256(headerRlp), trie }
}

/** exitParts: receipt `i` of block `b`, proven against the checkpoint `headerBlockId` over `leaves` from `start`. */
export async function exitParts(
  b: Block,
  headerBlockId: bigint,
  start: bigint,
  leaves: string[],
  i: number,
): Promise<ExitParts> {
  const receiptKey = RLP.encode(i)
  return {
    headerBlockId,
    blockProof: getBytes(merkleProof(leaves, Number(b.number - start))),
    blockNumber: b.number,
    headerRlp: b.headerRlp,
    receipt: receiptValue(i),
    proof: await createMerkleProof(b.trie, receiptKey),
    receiptKey,
    logIndex: burnLogIndex(i),
    blockHash: b.hash,
  }
}

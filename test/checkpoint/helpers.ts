/**
 * The checkpoint contracts' test fixture, written from the interface (contracts/README.md
 * "Checkpoint contracts") and not from the node's code: validator keys that sign checkpoint
 * digests with real secp256k1, the digest and the checkpoint root computed here, receipts encoded
 * here, and an anvil base chain driven through the DAO scripts' client.
 *
 *   checkpoint = { proposer, start, end, root, newSigners, newPowers }
 *   encodeCheckpoint ─▶ submitCheckpoint's `data`      checkpointDigest ─▶ what validators sign
 *   signCheckpoint(validators, digest) ─▶ `sigs` (r‖s‖v each, ascending signer)
 */
import { RLP } from '@ethereumjs/rlp'
import { AbiCoder, concat, getBytes, keccak256, type SigningKey, Signature, toBeArray, Wallet } from 'ethers'
import { Chain, type Signer } from '../../scripts/dao/client.js'
import { devWallet } from '../../scripts/dao/plan.js'
import { type Anvil, startAnvil } from '../trace/helpers/anvil.js'

/** secp256k1's group order (for turning a signature into its high-s twin). */
export const CURVE_ORDER = 0xfffffffffffffffffffffffffffffffebaaedce6af48a03bbfd25e8cd0364141n
/** The Polygon-compatible step between checkpoint ids. */
export const CHECKPOINT_ID_STEP = 10_000n
/** anvil's chain id in test/trace/helpers/anvil.ts. */
export const BASE_CHAIN_ID = 1337n

const abi = AbiCoder.defaultAbiCoder()

export interface Validator {
  address: string
  key: SigningKey
}

/**
 * validators returns `n` deterministic keys (from `seed`) sorted by address, the order the
 * contract wants sets and signatures in.
 */
export function validators(n: number, seed: string): Validator[] {
  const out: Validator[] = []
  for (let i = 0; i < n; i++) {
    const wallet = new Wallet(keccak256(Buffer.from(`${seed}/${i}`)))
    out.push({ address: wallet.address, key: wallet.signingKey })
  }
  return out.sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1))
}

export interface Checkpoint {
  proposer: string
  start: bigint
  end: bigint
  root: string
  newSigners: string[]
  newPowers: bigint[]
}

export interface Domain {
  childChainId: bigint
  baseChainId: bigint
  manager: string
}

/** checkpoint with no set change. */
export function checkpoint(proposer: string, start: bigint, end: bigint, root: string): Checkpoint {
  return { proposer, start, end, root, newSigners: [], newPowers: [] }
}

/** encodeCheckpoint: submitCheckpoint's `data`. */
export function encodeCheckpoint(c: Checkpoint): string {
  return abi.encode(
    ['address', 'uint256', 'uint256', 'bytes32', 'address[]', 'uint256[]'],
    [c.proposer, c.start, c.end, c.root, c.newSigners, c.newPowers],
  )
}

/** checkpointDigest: keccak256(0x01 ‖ abi.encode(proposer, start, end, root, childChainId, baseChainId, manager, setHash)). */
export function checkpointDigest(c: Checkpoint, d: Domain): string {
  const setHash = keccak256(abi.encode(['address[]', 'uint256[]'], [c.newSigners, c.newPowers]))
  const body = abi.encode(
    ['address', 'uint256', 'uint256', 'bytes32', 'uint256', 'uint256', 'address', 'bytes32'],
    [c.proposer, c.start, c.end, c.root, d.childChainId, d.baseChainId, d.manager, setHash],
  )
  return keccak256(concat(['0x01', body]))
}

/** sign returns `v`'s 65-byte r‖s‖v (v 27/28, low s) signature over the raw digest. */
export function sign(v: Validator, digest: string): string {
  return v.key.sign(digest).serialized
}

/** signCheckpoint: the signatures of `signers` over `digest`, ordered by signer address. */
export function signCheckpoint(signers: Validator[], digest: string): string {
  const sorted = [...signers].sort((a, b) => (BigInt(a.address) < BigInt(b.address) ? -1 : 1))
  return concat(sorted.map((v) => sign(v, digest)))
}

/** highS turns a signature into its malleable twin (s' = n - s, v flipped): same signer, high s. */
export function highS(signature: string): string {
  const sig = Signature.from(signature)
  const s = CURVE_ORDER - BigInt(sig.s)
  const v = sig.v === 27 ? 28 : 27
  return concat([sig.r, `0x${s.toString(16).padStart(64, '0')}`, `0x${v.toString(16)}`])
}

/** splitSignatures cuts `sigs` into 65-byte signatures. */
export function splitSignatures(sigs: string): string[] {
  const b = getBytes(sigs)
  const out: string[] = []
  for (let at = 0; at < b.length; at += 65) out.push(`0x${Buffer.from(b.subarray(at, at + 65)).toString('hex')}`)
  return out
}

/** The checkpoint tree over `leaves` (block hashes): zero-padded to a power of two, keccak(left ‖ right). */
export function merkleLevels(leaves: string[]): string[][] {
  let size = 1
  while (size < leaves.length) size *= 2
  const zero = `0x${'00'.repeat(32)}`
  const levels = [[...leaves, ...Array<string>(size - leaves.length).fill(zero)]]
  while (levels[levels.length - 1].length > 1) {
    const below = levels[levels.length - 1]
    const up: string[] = []
    for (let i = 0; i < below.length; i += 2) up.push(keccak256(concat([below[i], below[i + 1]])))
    levels.push(up)
  }
  return levels
}

export function merkleRoot(leaves: string[]): string {
  const levels = merkleLevels(leaves)
  return levels[levels.length - 1][0]
}

/** merkleProof: the siblings of leaf `index` from the leaf level up, concatenated. */
export function merkleProof(leaves: string[], index: number): string {
  const levels = merkleLevels(leaves)
  const siblings: string[] = []
  let i = index
  for (let level = 0; level < levels.length - 1; level++) {
    siblings.push(levels[level][i ^ 1])
    i >>= 1
  }
  return concat(siblings)
}

// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC receipt
export type RpcReceipt = Record<string, any>

/** receiptTrieValue: a receipt as stored in the receipts trie (type byte ‖ RLP list, or the list for legacy). */
export function receiptTrieValue(r: RpcReceipt): Uint8Array {
  const quantity = (q: string): Uint8Array => toBeArray(BigInt(q))
  const logs = (r.logs as RpcReceipt[]).map((l) => [
    getBytes(l.address),
    (l.topics as string[]).map((t) => getBytes(t)),
    getBytes(l.data),
  ])
  const body = RLP.encode([quantity(r.status), quantity(r.cumulativeGasUsed), getBytes(r.logsBloom), logs])
  const type = Number(BigInt(r.type ?? '0x0'))
  return type === 0 ? body : Uint8Array.from([type, ...body])
}

export interface BaseChain {
  anvil: Anvil
  chain: Chain
  /** anvil's funded account 0 (the test mnemonic's first key): deploys and submits. */
  deployer: Signer
  stop(): Promise<void>
}

/** startBaseChain: anvil on a free loopback port (Prague rules, chain id 1337). */
export async function startBaseChain(): Promise<BaseChain> {
  const anvil = await startAnvil()
  const chain = new Chain(anvil.url)
  const deployer = chain.signer(devWallet(0).privateKey)
  return { anvil, chain, deployer, stop: () => anvil.stop() }
}

/**
 * The base chain's CheckpointManager as bytes: calldata of its functions, decoders of its views
 * and events (issue 20's fixed interface). Only the shapes the node uses are encoded, each by hand
 * in ABI head/tail form, so nothing here depends on an ABI library.
 *
 *   submitCheckpoint(bytes data, bytes sigs)
 *     data = abi.encode(address proposer, uint256 start, uint256 end, bytes32 root,
 *                       address[] newSigners, uint256[] newPowers)      (empty arrays: no set change)
 *     sigs = 65-byte r‖s‖v (v 27/28) signatures, ascending by signer
 *   currentHeaderBlock() → uint256            id of the last checkpoint (0: none; ids 10000, 20000…)
 *   getLastChildBlock() → uint256             its end (0: none)
 *   headerBlocks(uint256) → (bytes32 root, uint256 start, uint256 end, uint256 createdAt, address proposer)
 *   signers() → address[]; powerOf(address) → uint256; totalPower() → uint256
 *   events NewHeaderBlock(address indexed proposer, uint256 indexed headerBlockId, uint256 indexed reward,
 *                         uint256 start, uint256 end, bytes32 root)
 *          CheckpointSigners(uint256 indexed headerBlockId, address[] signers)
 *          ValidatorSetUpdated(uint256 indexed headerBlockId, address[] signers, uint256[] powers)
 */
import { bytesToBigInt, bytesToHex, concatBytes, utf8ToBytes } from '@ethereumjs/util'

import { keccak256 } from '../../util/keccak.js'
import { BaseChainError } from './baseErrors.js'

/** Bytes of an ABI word. */
export const WORD = 32
/** Header block ids step by this much (Polygon's RootChain numbering: room for deposits between). */
export const HEADER_BLOCK_STEP = 10_000n
/** Longest array accepted from the contract: the DAO has at most 150 seats; a guard against a garbage length. */
export const MAX_ABI_ARRAY = 1000

function selector(signature: string): Uint8Array {
  return keccak256(utf8ToBytes(signature)).slice(0, 4)
}

/** topic0 of an event signature. */
export function eventTopic(signature: string): Uint8Array {
  return keccak256(utf8ToBytes(signature))
}

export const SELECTORS = {
  submitCheckpoint: selector('submitCheckpoint(bytes,bytes)'),
  currentHeaderBlock: selector('currentHeaderBlock()'),
  getLastChildBlock: selector('getLastChildBlock()'),
  headerBlocks: selector('headerBlocks(uint256)'),
  signers: selector('signers()'),
  powerOf: selector('powerOf(address)'),
  totalPower: selector('totalPower()'),
} as const

export const TOPICS = {
  newHeaderBlock: eventTopic('NewHeaderBlock(address,uint256,uint256,uint256,uint256,bytes32)'),
  checkpointSigners: eventTopic('CheckpointSigners(uint256,address[])'),
  validatorSetUpdated: eventTopic('ValidatorSetUpdated(uint256,address[],uint256[])'),
} as const

/** uint256 as a 32-byte word. */
export function uintWord(n: bigint): Uint8Array {
  if (n < 0n || n >= 1n << 256n) throw new RangeError(`${n} does not fit a uint256`)
  const out = new Uint8Array(WORD)
  let v = n
  for (let i = WORD - 1; i >= 0 && v > 0n; i--) {
    out[i] = Number(v & 0xffn)
    v >>= 8n
  }
  return out
}

/** A 20-byte address as a word. */
export function addressWord(address: Uint8Array): Uint8Array {
  if (address.length !== 20) throw new RangeError(`address of ${address.length} bytes`)
  const out = new Uint8Array(WORD)
  out.set(address, 12)
  return out
}

function pad(bytes: Uint8Array): Uint8Array {
  const padded = new Uint8Array(Math.ceil(bytes.length / WORD) * WORD)
  padded.set(bytes)
  return padded
}

/** abi.encode(address[] signers, uint256[] powers). */
export function encodeSetChange(signers: readonly Uint8Array[], powers: readonly bigint[]): Uint8Array {
  const first = signersTail(signers)
  return concatBytes(uintWord(2n * 32n), uintWord(BigInt(2 * WORD + first.length)), first, powersTail(powers))
}

function signersTail(signers: readonly Uint8Array[]): Uint8Array {
  return concatBytes(uintWord(BigInt(signers.length)), ...signers.map(addressWord))
}

function powersTail(powers: readonly bigint[]): Uint8Array {
  return concatBytes(uintWord(BigInt(powers.length)), ...powers.map(uintWord))
}

/** The checkpoint as submitCheckpoint's `data` argument. */
export interface CheckpointData {
  proposer: Uint8Array
  start: bigint
  end: bigint
  root: Uint8Array
  /** The whole new set, ascending; empty = no change. */
  newSigners: Uint8Array[]
  newPowers: bigint[]
}

/** abi.encode(proposer, start, end, root, newSigners, newPowers). */
export function encodeCheckpointData(c: CheckpointData): Uint8Array {
  const signers = signersTail(c.newSigners)
  const headBytes = 6 * WORD
  return concatBytes(
    addressWord(c.proposer),
    uintWord(c.start),
    uintWord(c.end),
    c.root,
    uintWord(BigInt(headBytes)),
    uintWord(BigInt(headBytes + signers.length)),
    signers,
    powersTail(c.newPowers),
  )
}

/** Calldata of submitCheckpoint(data, sigs). */
export function submitCheckpointCalldata(data: Uint8Array, sigs: Uint8Array): Uint8Array {
  const first = concatBytes(uintWord(BigInt(data.length)), pad(data))
  return concatBytes(
    SELECTORS.submitCheckpoint,
    uintWord(2n * 32n),
    uintWord(BigInt(2 * WORD + first.length)),
    first,
    uintWord(BigInt(sigs.length)),
    pad(sigs),
  )
}

export function headerBlocksCalldata(id: bigint): Uint8Array {
  return concatBytes(SELECTORS.headerBlocks, uintWord(id))
}

export function powerOfCalldata(signer: Uint8Array): Uint8Array {
  return concatBytes(SELECTORS.powerOf, addressWord(signer))
}

// ── decoding ──────────────────────────────────────────────────────────────────────────────────

/** Word `index` of `data` as a bigint; throws BaseChainError('bad-answer') past the end. */
export function wordAt(data: Uint8Array, index: number, what: string): bigint {
  const at = index * WORD
  if (at + WORD > data.length)
    throw new BaseChainError('bad-answer', `${what}: word ${index} is past the ${data.length}-byte answer`)
  return bytesToBigInt(data.subarray(at, at + WORD))
}

function addressAt(data: Uint8Array, byteOffset: number, what: string): Uint8Array {
  if (byteOffset + WORD > data.length) throw new BaseChainError('bad-answer', `${what} is past the answer`)
  const word = data.subarray(byteOffset, byteOffset + WORD)
  if (word.subarray(0, 12).some((b) => b !== 0)) throw new BaseChainError('bad-answer', `${what} has bits above 160`)
  return word.slice(12)
}

/** The dynamic array whose offset is head word `index`: its words. */
function arrayAt(data: Uint8Array, index: number, what: string): Uint8Array[] {
  const offset = Number(wordAt(data, index, `${what} offset`))
  if (offset % WORD !== 0 || offset + WORD > data.length)
    throw new BaseChainError('bad-answer', `${what} offset ${offset} is outside the answer`)
  const length = Number(bytesToBigInt(data.subarray(offset, offset + WORD)))
  if (length > MAX_ABI_ARRAY) throw new BaseChainError('bad-answer', `${what} has ${length} items (at most ${MAX_ABI_ARRAY})`)
  const start = offset + WORD
  if (start + length * WORD > data.length) throw new BaseChainError('bad-answer', `${what} runs past the answer`)
  return Array.from({ length }, (_, i) => data.subarray(start + i * WORD, start + (i + 1) * WORD))
}

/** Decodes an answer or event data holding address[] at head word `index`. */
export function decodeAddresses(data: Uint8Array, index: number, what: string): Uint8Array[] {
  return arrayAt(data, index, what).map((w, i) => addressAt(w, 0, `${what}[${i}]`))
}

/** Decodes uint256[] at head word `index`. */
export function decodeUints(data: Uint8Array, index: number, what: string): bigint[] {
  return arrayAt(data, index, what).map((w) => bytesToBigInt(w))
}

/** One stored checkpoint (headerBlocks(id)). */
export interface HeaderBlock {
  id: bigint
  root: Uint8Array
  start: bigint
  end: bigint
  /** Base-chain timestamp (seconds) of the block that stored it. */
  createdAt: bigint
  proposer: Uint8Array
}

export function decodeHeaderBlock(id: bigint, data: Uint8Array): HeaderBlock {
  if (data.length < 5 * WORD) throw new BaseChainError('bad-answer', `headerBlocks(${id}) answered ${data.length} bytes`)
  return {
    id,
    root: data.slice(0, WORD),
    start: wordAt(data, 1, 'start'),
    end: wordAt(data, 2, 'end'),
    createdAt: wordAt(data, 3, 'createdAt'),
    proposer: addressAt(data, 4 * WORD, 'proposer'),
  }
}

/** A log as eth_getLogs answers it, decoded to bytes. */
export interface RawLog {
  topics: Uint8Array[]
  data: Uint8Array
  blockNumber: bigint
  transactionHash: Uint8Array
}

/** What the node reads from the manager's events. */
export type ManagerEvent =
  | { kind: 'checkpoint'; id: bigint; proposer: Uint8Array; start: bigint; end: bigint; root: Uint8Array; blockNumber: bigint; txHash: Uint8Array }
  | { kind: 'signers'; id: bigint; signers: Uint8Array[] }
  | { kind: 'set'; id: bigint; signers: Uint8Array[]; powers: bigint[] }

/** decodeManagerEvent reads one of the three events; undefined for any other log. */
export function decodeManagerEvent(log: RawLog): ManagerEvent | undefined {
  const t0 = log.topics[0]
  if (t0 === undefined) return undefined
  const hex = bytesToHex(t0)
  if (hex === bytesToHex(TOPICS.newHeaderBlock)) {
    const [, proposer, id] = log.topics
    if (proposer === undefined || id === undefined) throw new BaseChainError('bad-answer', 'NewHeaderBlock without its topics')
    return {
      kind: 'checkpoint',
      id: bytesToBigInt(id),
      proposer: proposer.slice(12),
      start: wordAt(log.data, 0, 'start'),
      end: wordAt(log.data, 1, 'end'),
      root: log.data.slice(2 * WORD, 3 * WORD),
      blockNumber: log.blockNumber,
      txHash: log.transactionHash,
    }
  }
  if (hex === bytesToHex(TOPICS.checkpointSigners)) {
    const id = log.topics[1]
    if (id === undefined) throw new BaseChainError('bad-answer', 'CheckpointSigners without its id')
    return { kind: 'signers', id: bytesToBigInt(id), signers: decodeAddresses(log.data, 0, 'signers') }
  }
  if (hex === bytesToHex(TOPICS.validatorSetUpdated)) {
    const id = log.topics[1]
    if (id === undefined) throw new BaseChainError('bad-answer', 'ValidatorSetUpdated without its id')
    return {
      kind: 'set',
      id: bytesToBigInt(id),
      signers: decodeAddresses(log.data, 0, 'signers'),
      powers: decodeUints(log.data, 1, 'powers'),
    }
  }
  return undefined
}

/** Constructor arguments of CheckpointManager(uint256 childChainId, uint256 maxBlocks, address[] signers, uint256[] powers). */
export function encodeManagerConstructor(
  childChainId: bigint,
  maxBlocks: bigint,
  signers: readonly Uint8Array[],
  powers: readonly bigint[],
): Uint8Array {
  const first = signersTail(signers)
  return concatBytes(
    uintWord(childChainId),
    uintWord(maxBlocks),
    uintWord(BigInt(4 * WORD)),
    uintWord(BigInt(4 * WORD + first.length)),
    first,
    powersTail(powers),
  )
}

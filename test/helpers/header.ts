/**
 * An outside view of ibex block headers, written from DESIGN "Chain rules" and the Ethereum
 * header layout — deliberately independent of the node's own codec (src/consensus/ibft), so the
 * tests check the node against the rules rather than against itself.
 *
 * extraData = 32-byte vanity ‖ RLP([validators, proposerSeal, committedSeals, parentCommittedSeals, round, span?])
 *             span (issue 19, only in the last block before a span that switches committee) =
 *             [spanId, start, end, [[signer, power]…], refBlockHash, [signature…]], kept here as raw RLP items
 * hash      = keccak256(RLP(header with proposerSeal = 0x80, committedSeals = 0xc0, round = 0x80; span kept))
 * proposerSeal  = sign(keccak256(hash))
 * committedSeal = sign(keccak256(keccak256(hash ‖ uint64BE(round)) ‖ 0x02))
 */
import { RLP } from '@ethereumjs/rlp'
import { keccak256 } from 'ethereum-cryptography/keccak.js'
import { secp256k1 } from 'ethereum-cryptography/secp256k1.js'

/** Header fields of a Prague block, in RLP order. */
export const PRAGUE_HEADER_FIELDS = [
  'parentHash',
  'sha3Uncles',
  'miner',
  'stateRoot',
  'transactionsRoot',
  'receiptsRoot',
  'logsBloom',
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'extraData',
  'mixHash',
  'nonce',
  'baseFeePerGas',
  'withdrawalsRoot',
  'blobGasUsed',
  'excessBlobGas',
  'parentBeaconBlockRoot',
  'requestsHash',
] as const

/** Fields that are integers (RLP: minimal big-endian, zero = empty string). */
const INTEGER_FIELDS = new Set<string>([
  'difficulty',
  'number',
  'gasLimit',
  'gasUsed',
  'timestamp',
  'baseFeePerGas',
  'blobGasUsed',
  'excessBlobGas',
])

export const VANITY_BYTES = 32

export function hexToBytes(hex: string): Uint8Array {
  if (!/^0x([0-9a-fA-F]{2})*$/.test(hex)) throw new Error(`not even-length 0x hex: ${hex}`)
  return Uint8Array.from(Buffer.from(hex.slice(2), 'hex'))
}

export function bytesToHex(b: Uint8Array): `0x${string}` {
  return `0x${Buffer.from(b).toString('hex')}`
}

/** A JSON-RPC quantity as minimal big-endian bytes (0 → empty). */
export function quantityToBytes(q: string): Uint8Array {
  let n = BigInt(q)
  const out: number[] = []
  while (n > 0n) {
    out.unshift(Number(n & 0xffn))
    n >>= 8n
  }
  return Uint8Array.from(out)
}

export function concatBytes(...parts: Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.length
  }
  return out
}

// biome-ignore lint/suspicious/noExplicitAny: block JSON from eth_getBlockBy*
export type RpcBlock = Record<string, any>

/** The header's RLP field list rebuilt from a JSON-RPC block; `extraData` may be replaced. */
export function headerFieldList(block: RpcBlock, extraData?: Uint8Array): Uint8Array[] {
  return PRAGUE_HEADER_FIELDS.map((name) => {
    if (name === 'extraData' && extraData) return extraData
    const v = block[name]
    if (typeof v !== 'string') throw new Error(`block ${block.number} has no ${name} (Prague header field)`)
    return INTEGER_FIELDS.has(name) ? quantityToBytes(v) : hexToBytes(v)
  })
}

export function encodeHeader(block: RpcBlock, extraData?: Uint8Array): Uint8Array {
  return RLP.encode(headerFieldList(block, extraData))
}

export interface IbftExtra {
  vanity: Uint8Array
  validators: Uint8Array[]
  proposerSeal: Uint8Array
  committedSeals: Uint8Array[]
  parentCommittedSeals: Uint8Array[]
  /** Raw round bytes as stored (8 bytes big-endian when sealed). */
  roundBytes: Uint8Array
  round: bigint
  /** The span record as raw RLP items (the sixth field), undefined when the block carries none. */
  span: unknown[] | undefined
}

function asBytes(x: unknown, what: string): Uint8Array {
  if (!(x instanceof Uint8Array)) throw new Error(`${what}: expected a byte string, got a list`)
  return x
}

function asList(x: unknown, what: string): Uint8Array[] {
  if (!Array.isArray(x)) throw new Error(`${what}: expected a list, got a byte string`)
  return x.map((e, i) => asBytes(e, `${what}[${i}]`))
}

/** Decodes vanity ‖ RLP([validators, proposerSeal, committedSeals, parentCommittedSeals, round, span?]). */
export function decodeIbftExtra(extraData: string): IbftExtra {
  const bytes = hexToBytes(extraData)
  if (bytes.length <= VANITY_BYTES) throw new Error(`extraData is ${bytes.length} bytes, no IBFT payload after vanity`)
  const decoded = RLP.decode(bytes.subarray(VANITY_BYTES))
  if (!Array.isArray(decoded) || (decoded.length !== 5 && decoded.length !== 6)) {
    throw new Error(`IBFT extra is not a 5- or 6-item list (got ${Array.isArray(decoded) ? decoded.length : 'bytes'})`)
  }
  const [validators, proposerSeal, committedSeals, parentCommittedSeals, round, span] = decoded
  if (span !== undefined && !Array.isArray(span)) throw new Error('span: expected a list, got a byte string')
  const roundBytes = asBytes(round, 'round')
  return {
    vanity: bytes.subarray(0, VANITY_BYTES),
    validators: asList(validators, 'validators'),
    proposerSeal: asBytes(proposerSeal, 'proposerSeal'),
    committedSeals: asList(committedSeals, 'committedSeals'),
    parentCommittedSeals: asList(parentCommittedSeals, 'parentCommittedSeals'),
    roundBytes,
    round: roundBytes.length === 0 ? 0n : BigInt(bytesToHex(roundBytes)),
    span: span as unknown[] | undefined,
  }
}

/** extraData with every field as given (the sealed form; the span record raw, as decoded). */
export function encodeIbftExtra(extra: IbftExtra): Uint8Array {
  const fields: unknown[] = [
    extra.validators,
    extra.proposerSeal,
    extra.committedSeals,
    extra.parentCommittedSeals,
    extra.roundBytes,
  ]
  if (extra.span !== undefined) fields.push(extra.span)
  return concatBytes(extra.vanity, RLP.encode(fields as never))
}

/** extraData as hashed: proposerSeal and round blanked (0x80), committedSeals emptied (0xc0). */
export function hashingExtraData(extra: IbftExtra): Uint8Array {
  const fields: unknown[] = [extra.validators, new Uint8Array(), [], extra.parentCommittedSeals, new Uint8Array()]
  if (extra.span !== undefined) fields.push(extra.span)
  const payload = RLP.encode(fields as never)
  return concatBytes(extra.vanity, payload)
}

/** keccak256 of the header RLP with the seals blanked: what the block hash must be. */
export function sealFreeHash(block: RpcBlock): `0x${string}` {
  const extra = decodeIbftExtra(block.extraData)
  return bytesToHex(keccak256(encodeHeader(block, hashingExtraData(extra))))
}

/** Recovers the signer address (lowercase) of a 65-byte r‖s‖v seal over `digest`. v may be 0/1 or 27/28. */
export function recoverSigner(digest: Uint8Array, seal: Uint8Array): `0x${string}` {
  if (seal.length !== 65) throw new Error(`seal is ${seal.length} bytes, want 65`)
  let v = seal[64]
  if (v >= 27) v -= 27
  if (v !== 0 && v !== 1) throw new Error(`seal recovery id ${seal[64]} is not 0/1/27/28`)
  const pub = secp256k1.Signature.fromCompact(seal.subarray(0, 64)).addRecoveryBit(v).recoverPublicKey(digest)
  const uncompressed = pub.toRawBytes(false)
  return bytesToHex(keccak256(uncompressed.subarray(1)).subarray(12))
}

/** Digest the proposer signs: keccak256(hash). */
export function proposerSealDigest(hash: Uint8Array): Uint8Array {
  return keccak256(hash)
}

/** Digest a committer signs: keccak256(keccak256(hash ‖ uint64BE(round)) ‖ 0x02). */
export function committedSealDigest(hash: Uint8Array, round: bigint): Uint8Array {
  const roundBe = new Uint8Array(8)
  new DataView(roundBe.buffer).setBigUint64(0, round)
  const proposalHash = keccak256(concatBytes(hash, roundBe))
  return keccak256(concatBytes(proposalHash, Uint8Array.of(0x02)))
}

export { keccak256, RLP }

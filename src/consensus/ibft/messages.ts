/**
 * IBFT consensus messages and their RLP wire format.
 *
 *   message     = RLP([body, signature, proposal, certificate])
 *   body        = [code, height, round, digest, preparedRound, committedSeal]
 *   signature   = sign(keccak256(RLP(body)))                   — 65 bytes r‖s‖v, by the sender
 *
 *   code          PREPREPARE 0 · PREPARE 1 · COMMIT 2 · ROUND_CHANGE 3
 *   digest        the proposed block's IBFT hash; in a ROUND_CHANGE the prepared block's hash,
 *                 empty when the sender has prepared nothing at this height
 *   preparedRound ROUND_CHANGE with a digest: the round it prepared in; else empty
 *   committedSeal COMMIT: sign(keccak256(keccak256(digest ‖ uint64BE(round)) ‖ 0x02)); else empty
 *   proposal      PREPREPARE: the block, RLP [header, transactions, uncles, withdrawals?] with its
 *                 proposer seal; ROUND_CHANGE: the prepared block (optional); else empty
 *   certificate   PREPREPARE: the round-change certificate — the ROUND_CHANGE messages that started
 *                 this round, their proposals left out (empty list in round 0);
 *                 ROUND_CHANGE: the prepared certificate [PREPREPARE without its proposal,
 *                 [PREPARE…]] backing digest/preparedRound, or the empty list
 *
 * Only the body is signed, so a PREPREPARE stripped of its block (inside a prepared certificate)
 * still verifies; whatever the body promises (digest, prepared round) the attachments must match,
 * so a relay cannot strip a prepared certificate off a ROUND_CHANGE. Integers are minimal
 * big-endian (0 = empty string). Decoding checks shapes, lengths, the signature and that an
 * attached block hashes to the digest; membership and certificate rules are certificates.ts'.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, equalsBytes } from '@ethereumjs/util'
import { keccak256 } from '../../util/keccak.js'

import { IbftMessageError } from './errors.js'
import { ibftBlockHash } from '../../chain/ibft/hash.js'
import { recoverDigestSigner, signDigest } from './seal.js'

/** Largest encoded message accepted: a proposal of a full block (calldata-heavy 30M gas ≈ 2 MB) with its certificate. */
export const IBFT_MAX_MESSAGE_BYTES = 4 * 1024 * 1024
/** Bytes of a digest (block hash). */
const DIGEST_BYTES = 32
/** Bytes of a signature or seal. */
const SIGNATURE_BYTES = 65
/** Largest height or round accepted (uint64). */
const MAX_UINT64 = (1n << 64n) - 1n

/** Message codes. */
export const MessageCode = { PREPREPARE: 0, PREPARE: 1, COMMIT: 2, ROUND_CHANGE: 3 } as const
export type MessageCode = (typeof MessageCode)[keyof typeof MessageCode]
const CODE_NAMES = ['PREPREPARE', 'PREPARE', 'COMMIT', 'ROUND_CHANGE'] as const

interface Signed {
  height: bigint
  round: bigint
  /** Address recovered from the signature (20 bytes) and its lowercase hex. */
  sender: Uint8Array
  senderHex: string
  /** RLP(body) and the signature over its keccak256. */
  body: Uint8Array
  signature: Uint8Array
}

export interface PrePrepare extends Signed {
  code: typeof MessageCode.PREPREPARE
  digest: Uint8Array
  /** The block (empty when stripped, inside a prepared certificate). */
  proposal: Uint8Array
  /** Round-change certificate (round > 0). */
  rcc: RoundChange[]
}

export interface Prepare extends Signed {
  code: typeof MessageCode.PREPARE
  digest: Uint8Array
}

export interface Commit extends Signed {
  code: typeof MessageCode.COMMIT
  digest: Uint8Array
  seal: Uint8Array
}

/** A PREPREPARE (stripped) and the PREPAREs that prepared its block in its round. */
export interface PreparedCertificate {
  proposal: PrePrepare
  prepares: Prepare[]
}

export interface RoundChange extends Signed {
  code: typeof MessageCode.ROUND_CHANGE
  /** Hash of the block the sender prepared last at this height, if any. */
  preparedDigest: Uint8Array | undefined
  preparedRound: bigint | undefined
  certificate: PreparedCertificate | undefined
  /** The prepared block itself (optional; absent inside a round-change certificate). */
  proposal: Uint8Array | undefined
}

export type IbftMessage = PrePrepare | Prepare | Commit | RoundChange

/** Name of a code for logs. */
export function codeName(code: MessageCode): string {
  return CODE_NAMES[code]
}

/** proposalDigest is the IBFT hash of a block given as RLP [header, …]; throws IbftMessageError. */
export function proposalDigest(block: Uint8Array): Uint8Array {
  try {
    const decoded = RLP.decode(block)
    if (!Array.isArray(decoded) || !Array.isArray(decoded[0])) throw new Error('not [header, …]')
    return ibftBlockHash(decoded[0] as Uint8Array[])
  } catch (err) {
    throw new IbftMessageError('bad-proposal', `proposal does not decode: ${(err as Error).message}`, err)
  }
}

// ---------------------------------------------------------------------------------------------
// Building (signing) messages

const EMPTY = new Uint8Array(0)

function sign(
  code: MessageCode,
  height: bigint,
  round: bigint,
  fields: { digest?: Uint8Array; preparedRound?: bigint; seal?: Uint8Array },
  key: Uint8Array,
  sender: Uint8Array,
): Signed {
  const body = RLP.encode([
    bigIntToUnpaddedBytes(BigInt(code)),
    bigIntToUnpaddedBytes(height),
    bigIntToUnpaddedBytes(round),
    fields.digest ?? EMPTY,
    fields.preparedRound === undefined ? EMPTY : bigIntToUnpaddedBytes(fields.preparedRound),
    fields.seal ?? EMPTY,
  ])
  return { height, round, sender, senderHex: bytesToHex(sender), body, signature: signDigest(keccak256(body), key) }
}

/** The signing identity of a validator: its key and address. */
export interface Signer {
  key: Uint8Array
  address: Uint8Array
}

export function signPrePrepare(
  s: Signer,
  height: bigint,
  round: bigint,
  proposal: Uint8Array,
  rcc: RoundChange[],
): PrePrepare {
  const digest = proposalDigest(proposal)
  return {
    ...sign(MessageCode.PREPREPARE, height, round, { digest }, s.key, s.address),
    code: 0,
    digest,
    proposal,
    rcc,
  }
}

export function signPrepare(s: Signer, height: bigint, round: bigint, digest: Uint8Array): Prepare {
  return { ...sign(MessageCode.PREPARE, height, round, { digest }, s.key, s.address), code: 1, digest }
}

export function signCommit(s: Signer, height: bigint, round: bigint, digest: Uint8Array, seal: Uint8Array): Commit {
  return { ...sign(MessageCode.COMMIT, height, round, { digest, seal }, s.key, s.address), code: 2, digest, seal }
}

export function signRoundChange(
  s: Signer,
  height: bigint,
  round: bigint,
  prepared: { certificate: PreparedCertificate; proposal: Uint8Array } | undefined,
): RoundChange {
  const pc = prepared?.certificate
  const fields = pc === undefined ? {} : { digest: pc.proposal.digest, preparedRound: pc.proposal.round }
  return {
    ...sign(MessageCode.ROUND_CHANGE, height, round, fields, s.key, s.address),
    code: 3,
    preparedDigest: pc?.proposal.digest,
    preparedRound: pc?.proposal.round,
    certificate: pc,
    proposal: prepared?.proposal,
  }
}

// ---------------------------------------------------------------------------------------------
// Encoding

type Item = Uint8Array | Item[]

/** encodeMessage writes the wire form; `withProposal: false` leaves the attached block out. */
export function encodeMessage(msg: IbftMessage, withProposal = true): Uint8Array {
  return RLP.encode(toItem(msg, withProposal))
}

function toItem(msg: IbftMessage, withProposal: boolean): Item {
  const body = RLP.decode(msg.body) as Item
  let proposal: Uint8Array = EMPTY
  let certificate: Item[] = []
  if (msg.code === MessageCode.PREPREPARE) {
    if (withProposal) proposal = msg.proposal
    certificate = msg.rcc.map((rc) => toItem(rc, false))
  } else if (msg.code === MessageCode.ROUND_CHANGE) {
    if (withProposal && msg.proposal !== undefined) proposal = msg.proposal
    if (msg.certificate !== undefined) {
      certificate = [toItem(msg.certificate.proposal, false), msg.certificate.prepares.map((p) => toItem(p, false))]
    }
  }
  return [body, msg.signature, proposal, certificate]
}

// ---------------------------------------------------------------------------------------------
// Decoding

/** decodeMessage parses and authenticates wire bytes; throws IbftMessageError. */
export function decodeMessage(bytes: Uint8Array): IbftMessage {
  if (bytes.length > IBFT_MAX_MESSAGE_BYTES) {
    throw new IbftMessageError('too-large', `${bytes.length} bytes, limit ${IBFT_MAX_MESSAGE_BYTES}`)
  }
  let item: unknown
  try {
    item = RLP.decode(bytes)
  } catch (err) {
    throw new IbftMessageError('bad-rlp', (err as Error).message, err)
  }
  return fromItem(item, 0)
}

/** Nesting: a PREPREPARE holds ROUND_CHANGEs, which hold a PREPREPARE and PREPAREs. */
const MAX_NESTING = 2

function fromItem(item: unknown, depth: number): IbftMessage {
  if (!Array.isArray(item) || item.length !== 4)
    throw new IbftMessageError('bad-rlp', 'expected [body, signature, proposal, certificate]')
  const [bodyItem, signature, proposal, certificate] = item as unknown[]
  if (!Array.isArray(bodyItem) || bodyItem.length !== 6 || !bodyItem.every((f) => f instanceof Uint8Array)) {
    throw new IbftMessageError('bad-rlp', 'body is not a list of 6 byte strings')
  }
  if (!(signature instanceof Uint8Array) || signature.length !== SIGNATURE_BYTES) {
    throw new IbftMessageError('bad-field', `signature must be ${SIGNATURE_BYTES} bytes`)
  }
  if (!(proposal instanceof Uint8Array) || !Array.isArray(certificate)) {
    throw new IbftMessageError('bad-rlp', 'proposal must be a byte string and certificate a list')
  }
  const [codeB, heightB, roundB, digestB, preparedB, sealB] = bodyItem as Uint8Array[]
  const code = Number(uint(codeB, 'code'))
  const height = uint(heightB, 'height')
  const round = uint(roundB, 'round')
  const body = RLP.encode(bodyItem as Uint8Array[])
  let sender: Uint8Array
  try {
    sender = recoverDigestSigner(keccak256(body), signature)
  } catch (err) {
    throw new IbftMessageError('bad-signature', (err as Error).message, err)
  }
  const signed: Signed = { height, round, sender, senderHex: bytesToHex(sender), body, signature }
  const noExtra = (what: string, b: Uint8Array) => {
    if (b.length !== 0) throw new IbftMessageError('bad-field', `${codeLabel(code)} carries a ${what}`)
  }
  switch (code) {
    case MessageCode.PREPREPARE: {
      const digest = digestOf(digestB)
      noExtra('prepared round', preparedB)
      noExtra('committed seal', sealB)
      if (proposal.length > 0 && !equalsBytes(proposalDigest(proposal), digest)) {
        throw new IbftMessageError('bad-proposal', 'the block does not hash to the digest')
      }
      if (depth > 0 && (certificate.length > 0 || proposal.length > 0)) {
        throw new IbftMessageError(
          'bad-certificate',
          'a PREPREPARE inside a certificate carries a block or certificate',
        )
      }
      const rcc = certificate.map((c) => fromItem(c, depth + 1))
      for (const rc of rcc) {
        if (rc.code !== MessageCode.ROUND_CHANGE)
          throw new IbftMessageError('bad-certificate', 'round-change certificate holds a non-ROUND_CHANGE')
      }
      return { ...signed, code, digest, proposal, rcc: rcc as RoundChange[] }
    }
    case MessageCode.PREPARE:
    case MessageCode.COMMIT: {
      const digest = digestOf(digestB)
      noExtra('prepared round', preparedB)
      noExtra('proposal', proposal)
      if (certificate.length > 0) throw new IbftMessageError('bad-field', `${codeLabel(code)} carries a certificate`)
      if (code === MessageCode.PREPARE) {
        noExtra('committed seal', sealB)
        return { ...signed, code, digest }
      }
      if (sealB.length !== SIGNATURE_BYTES)
        throw new IbftMessageError('bad-field', `committed seal must be ${SIGNATURE_BYTES} bytes`)
      return { ...signed, code, digest, seal: sealB }
    }
    case MessageCode.ROUND_CHANGE:
      return decodeRoundChange(signed, digestB, preparedB, sealB, proposal, certificate, depth)
    default:
      throw new IbftMessageError('bad-field', `unknown message code ${code}`)
  }
}

function decodeRoundChange(
  signed: Signed,
  digestB: Uint8Array,
  preparedB: Uint8Array,
  sealB: Uint8Array,
  proposal: Uint8Array,
  certificate: unknown[],
  depth: number,
): RoundChange {
  if (sealB.length !== 0) throw new IbftMessageError('bad-field', 'ROUND_CHANGE carries a committed seal')
  const base = { ...signed, code: MessageCode.ROUND_CHANGE } as const
  if (digestB.length === 0) {
    if (preparedB.length !== 0 || proposal.length !== 0 || certificate.length !== 0) {
      throw new IbftMessageError('bad-certificate', 'ROUND_CHANGE without a digest carries prepared data')
    }
    return { ...base, preparedDigest: undefined, preparedRound: undefined, certificate: undefined, proposal: undefined }
  }
  const preparedDigest = digestOf(digestB)
  const preparedRound = uint(preparedB, 'prepared round')
  if (certificate.length !== 2 || !Array.isArray(certificate[1])) {
    throw new IbftMessageError('bad-certificate', 'ROUND_CHANGE with a digest needs [PREPREPARE, [PREPARE…]]')
  }
  if (depth >= MAX_NESTING) throw new IbftMessageError('bad-certificate', 'certificates nested too deep')
  if (depth > 0 && proposal.length > 0) {
    throw new IbftMessageError('bad-certificate', 'a ROUND_CHANGE inside a certificate carries a block')
  }
  const pp = fromItem(certificate[0], depth + 1)
  const prepares = (certificate[1] as unknown[]).map((c) => fromItem(c, depth + 1))
  if (pp.code !== MessageCode.PREPREPARE || pp.rcc.length > 0 || prepares.some((p) => p.code !== MessageCode.PREPARE)) {
    throw new IbftMessageError('bad-certificate', 'prepared certificate must be a PREPREPARE and PREPAREs')
  }
  if (!equalsBytes(pp.digest, preparedDigest) || pp.round !== preparedRound) {
    throw new IbftMessageError(
      'bad-certificate',
      'prepared certificate is for another block or round than the body says',
    )
  }
  if (proposal.length > 0 && !equalsBytes(proposalDigest(proposal), preparedDigest)) {
    throw new IbftMessageError('bad-proposal', 'the prepared block does not hash to the digest')
  }
  return {
    ...base,
    preparedDigest,
    preparedRound,
    certificate: { proposal: pp, prepares: prepares as Prepare[] },
    proposal: proposal.length > 0 ? proposal : undefined,
  }
}

function uint(b: Uint8Array, what: string): bigint {
  if (b.length > 8 || (b.length > 0 && b[0] === 0))
    throw new IbftMessageError('bad-field', `${what} is not a minimal uint64`)
  const v = bytesToBigInt(b)
  if (v > MAX_UINT64) throw new IbftMessageError('bad-field', `${what} is outside uint64`)
  return v
}

function digestOf(b: Uint8Array): Uint8Array {
  if (b.length !== DIGEST_BYTES)
    throw new IbftMessageError('bad-field', `digest must be ${DIGEST_BYTES} bytes, got ${b.length}`)
  return b
}

function codeLabel(code: number): string {
  return CODE_NAMES[code as MessageCode] ?? `code ${code}`
}

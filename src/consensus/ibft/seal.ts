/**
 * IBFT seals: secp256k1 signatures, 65 bytes r‖s‖v (v = recovery id 0/1, s in the lower half).
 *
 *   proposerSeal  = sign(keccak256(hash))
 *   proposalHash  = keccak256(hash ‖ uint64BE(round))
 *   committedSeal = sign(keccak256(proposalHash ‖ 0x02))
 *
 * `hash` is the IBFT block hash (ibftBlockHash), which ignores the seals and the round.
 */
import { bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util'
import { keccak256 } from '../../util/keccak.js'
import secp256k1 from 'secp256k1'

import { IbftSealError, type IbftSealErrorReason } from './errors.js'
import { type IbftExtra, SEAL_BYTES, decodeExtra, encodeExtra, roundToBytes } from '../../chain/ibft/extra.js'
import { extraDataOf, hashWithExtra, withExtraData } from '../../chain/ibft/hash.js'
import { quorumSize } from './proposer.js'

/** Message-type byte appended to the proposal hash before signing a committed seal. */
const COMMIT_MSG_CODE = Uint8Array.of(0x02)
/** Half the secp256k1 group order: seals with a larger s are rejected (one encoding per signer). */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** privateKeyToAddress derives the 20-byte address of a 32-byte secp256k1 private key. */
export function privateKeyToAddress(privKey: Uint8Array): Uint8Array {
  const pub = secp256k1.publicKeyCreate(privKey, false)
  return keccak256(pub.subarray(1)).slice(12)
}

/** signProposerSeal signs keccak256(hash) with the proposer's key. */
export function signProposerSeal(hash: Uint8Array, privKey: Uint8Array): Uint8Array {
  return sign(keccak256(hash), privKey)
}

/** recoverProposerSeal returns the address that made a proposer seal; throws IbftSealError if invalid. */
export function recoverProposerSeal(hash: Uint8Array, seal: Uint8Array): Uint8Array {
  return recover(keccak256(hash), seal, 'bad-proposer-seal')
}

/** proposalHash is keccak256(hash ‖ uint64BE(round)), what committers agree on. */
export function proposalHash(hash: Uint8Array, round: bigint): Uint8Array {
  return keccak256(concatBytes(hash, roundToBytes(round)))
}

/** signCommittedSeal signs keccak256(proposalHash(hash, round) ‖ 0x02). */
export function signCommittedSeal(hash: Uint8Array, round: bigint, privKey: Uint8Array): Uint8Array {
  return sign(commitDigest(hash, round), privKey)
}

/** recoverCommittedSeal returns the address that made a committed seal; throws IbftSealError if invalid. */
export function recoverCommittedSeal(hash: Uint8Array, round: bigint, seal: Uint8Array): Uint8Array {
  return recover(commitDigest(hash, round), seal, 'bad-committed-seal')
}

/** The seal part of an extraData, written after the hash is fixed. */
export interface HeaderSeals {
  proposerSeal: Uint8Array
  committedSeals: Uint8Array[]
  round: bigint
}

/**
 * attachSeals returns a copy of the raw header fields whose extraData carries the given seals and
 * round; vanity, validators and parentCommittedSeals are kept, so the block hash is unchanged.
 */
export function attachSeals(rawHeaderFields: Uint8Array[], seals: HeaderSeals): Uint8Array[] {
  return withSeals(rawHeaderFields, decodeExtra(extraDataOf(rawHeaderFields)), seals)
}

function withSeals(rawHeaderFields: Uint8Array[], extra: IbftExtra, seals: HeaderSeals): Uint8Array[] {
  const sealed: IbftExtra = {
    vanity: extra.vanity,
    validators: extra.validators,
    proposerSeal: seals.proposerSeal,
    committedSeals: seals.committedSeals,
    parentCommittedSeals: extra.parentCommittedSeals,
    round: seals.round,
  }
  if (extra.span !== undefined) sealed.span = extra.span
  return withExtraData(rawHeaderFields, encodeExtra(sealed))
}

/**
 * sealHeader seals a header for a chain where one validator is both proposer and sole committer
 * (the dev network): proposer seal and one committed seal by `privKey`, at `round`. The key must
 * belong to a validator listed in the header's extraData, else IbftSealError('signer-not-validator').
 */
export function sealHeader(rawHeaderFields: Uint8Array[], privKey: Uint8Array, round = 0n): Uint8Array[] {
  const extra = decodeExtra(extraDataOf(rawHeaderFields))
  const signer = privateKeyToAddress(privKey)
  if (!extra.validators.some((v) => bytesToHex(v) === bytesToHex(signer))) {
    throw new IbftSealError('signer-not-validator', `${bytesToHex(signer)} is not in the header's validators`)
  }
  const hash = hashWithExtra(rawHeaderFields, extra)
  return withSeals(rawHeaderFields, extra, {
    proposerSeal: signProposerSeal(hash, privKey),
    committedSeals: [signCommittedSeal(hash, round, privKey)],
    round,
  })
}

/**
 * verifyCommittedSeals recovers committed seals over (hash, round) and returns the distinct
 * committers, in seal order. Throws IbftSealError on an invalid seal, a non-validator, a
 * duplicate committer or fewer committers than quorumSize(validators.length) — with `powers`
 * (a span committee, same order as validators), committers holding more than 2/3 of the power.
 * Use it for a header's committedSeals and, with the parent's hash and round, for its
 * parentCommittedSeals.
 */
export function verifyCommittedSeals(
  hash: Uint8Array,
  round: bigint,
  seals: Uint8Array[],
  validators: Uint8Array[],
  powers?: bigint[],
): Uint8Array[] {
  const members = addressSet(validators)
  const seen = new Set<string>()
  const committers: Uint8Array[] = []
  for (let i = 0; i < seals.length; i++) {
    const committer = recoverCommittedSeal(hash, round, seals[i])
    const key = bytesToHex(committer)
    if (!members.has(key)) {
      throw new IbftSealError('committer-not-validator', `committed seal ${i} is from ${key}`)
    }
    if (seen.has(key)) {
      throw new IbftSealError('duplicate-committer', `committed seal ${i} repeats ${key}`)
    }
    seen.add(key)
    committers.push(committer)
  }
  if (powers !== undefined) {
    const weight = new Map(validators.map((v, i) => [bytesToHex(v), powers[i] ?? 0n]))
    const total = powers.reduce((a, b) => a + b, 0n)
    let signed = 0n
    for (const c of committers) signed += weight.get(bytesToHex(c)) ?? 0n
    if (3n * signed <= 2n * total)
      throw new IbftSealError(
        'insufficient-committed-seals',
        `${committers.length} committers hold power ${signed} of ${total}, more than 2/3 needed`,
      )
    return committers
  }
  const quorum = validators.length === 0 ? 1 : quorumSize(validators.length)
  if (committers.length < quorum) {
    throw new IbftSealError(
      'insufficient-committed-seals',
      `${committers.length} committers, quorum of ${validators.length} validators is ${quorum}`,
    )
  }
  return committers
}

/** What verifySeals found in a valid sealed header. */
export interface VerifySealsResult {
  /** IBFT block hash. */
  hash: Uint8Array
  /** Address recovered from the proposer seal. */
  proposer: Uint8Array
  /** Distinct addresses recovered from the committed seals, in seal order. */
  committers: Uint8Array[]
}

/**
 * verifySeals checks a sealed header against the validator set that must finalize it: the
 * proposer seal recovers to a validator, and the committed seals (over the extraData's round) come
 * from a quorum of distinct validators (by power when `powers` is given). It does not check that the proposer is the one
 * selectProposer expects, nor the parentCommittedSeals (see verifyCommittedSeals).
 * Throws IbftExtraError on a malformed extraData, IbftSealError on bad seals.
 */
export function verifySeals(
  rawHeaderFields: Uint8Array[],
  validators: Uint8Array[],
  powers?: bigint[],
): VerifySealsResult {
  const extra = decodeExtra(extraDataOf(rawHeaderFields))
  const hash = hashWithExtra(rawHeaderFields, extra)
  if (extra.proposerSeal.length === 0) {
    throw new IbftSealError('missing-proposer-seal', 'extraData has an empty proposerSeal')
  }
  const proposer = recoverProposerSeal(hash, extra.proposerSeal)
  if (!addressSet(validators).has(bytesToHex(proposer))) {
    throw new IbftSealError('proposer-not-validator', `proposer seal is from ${bytesToHex(proposer)}`)
  }
  const committers = verifyCommittedSeals(hash, extra.round, extra.committedSeals, validators, powers)
  return { hash, proposer, committers }
}

function commitDigest(hash: Uint8Array, round: bigint): Uint8Array {
  return keccak256(concatBytes(proposalHash(hash, round), COMMIT_MSG_CODE))
}

function sign(digest: Uint8Array, privKey: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(digest, privKey)
  const seal = new Uint8Array(SEAL_BYTES)
  seal.set(signature, 0)
  seal[64] = recid
  return seal
}

function recover(digest: Uint8Array, seal: Uint8Array, reason: IbftSealErrorReason): Uint8Array {
  if (seal.length !== SEAL_BYTES) {
    throw new IbftSealError(reason, `seal is ${seal.length} bytes, expected ${SEAL_BYTES}`)
  }
  const recid = seal[64]
  if (recid !== 0 && recid !== 1) {
    throw new IbftSealError(reason, `recovery id is ${recid}, expected 0 or 1`)
  }
  if (bytesToBigInt(seal.subarray(32, 64)) > SECP256K1_HALF_N) {
    throw new IbftSealError(reason, 'signature s is in the upper half of the curve order')
  }
  let pub: Uint8Array
  try {
    pub = secp256k1.ecdsaRecover(seal.subarray(0, 64), recid, digest, false)
  } catch (err) {
    throw new IbftSealError(reason, `signature does not recover: ${(err as Error).message}`, err)
  }
  return keccak256(pub.subarray(1)).slice(12)
}

function addressSet(addresses: Uint8Array[]): Set<string> {
  const set = new Set<string>()
  for (const a of addresses) set.add(bytesToHex(a))
  return set
}

/**
 * signDigest signs a 32-byte digest with the validator key (65 bytes r‖s‖v, v = 0/1): what IBFT
 * consensus messages carry (src/consensus/ibft/messages.ts signs keccak256 of their body).
 */
export function signDigest(digest: Uint8Array, privKey: Uint8Array): Uint8Array {
  return sign(digest, privKey)
}

/** recoverDigestSigner returns the address that signed `digest`; throws IbftSealError('bad-message-signature'). */
export function recoverDigestSigner(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  return recover(digest, signature, 'bad-message-signature')
}

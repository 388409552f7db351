/**
 * Span consent: validators of the set at the reference block sign the span they expect, and the
 * switch takes effect only when signers holding more than 2/3 of that set's power signed.
 *
 *   proposal  = (chainId, spanId, start, end, committee, refBlockHash)
 *   digest    = keccak256(0x02 ‖ RLP([chainId, spanId, start, end, [[signer, power], …], refBlockHash]))
 *               integers minimal big-endian (0 = empty string), signer 20 bytes, refBlockHash 32 bytes,
 *               committee in ascending signer order; 0x02 is the span domain (checkpoints use 0x01),
 *               chainId keeps a signature from being replayed on another chain
 *   signature = secp256k1 over digest, 65 bytes r‖s‖v (v = 0/1, low s)
 *   carried   = in the span's first block, ordered by ascending recovered signer (chain/ibft/span.ts)
 *   holds iff every signature recovers to a distinct member of the set at R, ascending, and
 *             3 · Σ power(signers) > 2 · Σ power(set)
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes } from '@ethereumjs/util'
import secp256k1 from 'secp256k1'

import { compareBytes, SPAN_SIGNATURE_BYTES } from '../chain/ibft/span.js'
import { keccak256 } from '../util/keccak.js'
import type { Committee } from './draw.js'
import { SpanConsentError } from './errors.js'
import { totalPower, type ValidatorSet } from './set.js'

/** Domain byte before the RLP of a span proposal (checkpoint signatures use 0x01). */
export const SPAN_CONSENT_DOMAIN = 0x02
/** Half the secp256k1 group order: a signature with a larger s is refused (one encoding per signer). */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** What validators sign for a span. */
export interface SpanProposal {
  chainId: bigint
  spanId: bigint
  start: bigint
  end: bigint
  committee: Committee
  refBlockHash: Uint8Array
}

/** consentDigest is the 32 bytes a validator signs for `p` (module doc). */
export function consentDigest(p: SpanProposal): Uint8Array {
  const body = RLP.encode([
    bigIntToUnpaddedBytes(p.chainId),
    bigIntToUnpaddedBytes(p.spanId),
    bigIntToUnpaddedBytes(p.start),
    bigIntToUnpaddedBytes(p.end),
    p.committee.map((m) => [m.signer, bigIntToUnpaddedBytes(m.power)]),
    p.refBlockHash,
  ])
  return keccak256(concatBytes(Uint8Array.of(SPAN_CONSENT_DOMAIN), body))
}

/** signConsent signs a proposal with a validator's signer key. */
export function signConsent(p: SpanProposal, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(consentDigest(p), privateKey)
  const out = new Uint8Array(SPAN_SIGNATURE_BYTES)
  out.set(signature, 0)
  out[64] = recid
  return out
}

/** recoverConsentSigner returns the address that signed `p`; throws SpanConsentError('bad-signature'). */
export function recoverConsentSigner(p: SpanProposal, signature: Uint8Array, digest = consentDigest(p)): Uint8Array {
  if (signature.length !== SPAN_SIGNATURE_BYTES)
    throw new SpanConsentError('bad-signature', `signature is ${signature.length} bytes, expected ${SPAN_SIGNATURE_BYTES}`)
  const recid = signature[64] as number
  if (recid !== 0 && recid !== 1) throw new SpanConsentError('bad-signature', `recovery id is ${recid}, expected 0 or 1`)
  if (bytesToBigInt(signature.subarray(32, 64)) > SECP256K1_HALF_N)
    throw new SpanConsentError('bad-signature', 'signature s is in the upper half of the curve order')
  let pub: Uint8Array
  try {
    pub = secp256k1.ecdsaRecover(signature.subarray(0, 64), recid, digest, false)
  } catch (err) {
    throw new SpanConsentError('bad-signature', `signature does not recover: ${(err as Error).message}`, err)
  }
  return keccak256(pub.subarray(1)).slice(12)
}

/** hasSupermajority: 3 · signed > 2 · total (more than 2/3 of the power). */
export function hasSupermajority(signed: bigint, total: bigint): boolean {
  return 3n * signed > 2n * total
}

/**
 * verifyConsent checks that `signatures` (ascending by signer) prove more than 2/3 of the power of
 * `set` signed `p`; returns the signers. Throws SpanConsentError.
 */
export function verifyConsent(p: SpanProposal, signatures: Uint8Array[], set: ValidatorSet): Uint8Array[] {
  if (set.length === 0) throw new SpanConsentError('empty-set', 'no validators at the reference block')
  const power = new Map(set.map((v) => [bytesToHex(v.signer), v.power]))
  const digest = consentDigest(p)
  const signers: Uint8Array[] = []
  let signed = 0n
  for (let i = 0; i < signatures.length; i++) {
    const signer = recoverConsentSigner(p, signatures[i] as Uint8Array, digest)
    const w = power.get(bytesToHex(signer))
    if (w === undefined)
      throw new SpanConsentError('not-a-validator', `signature ${i} is by ${bytesToHex(signer)}, not in the set at the reference block`)
    const previous = signers[i - 1]
    if (previous !== undefined && compareBytes(previous, signer) >= 0)
      throw new SpanConsentError('unordered-signatures', `signature ${i} (${bytesToHex(signer)}) is not after ${bytesToHex(previous)}`)
    signers.push(signer)
    signed += w
  }
  const total = totalPower(set)
  if (!hasSupermajority(signed, total))
    throw new SpanConsentError('insufficient-power', `signers hold ${signed} of ${total}, more than 2/3 needed`)
  return signers
}

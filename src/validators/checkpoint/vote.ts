/**
 * Checkpoint votes: what a validator signs for a checkpoint, and the message that carries a
 * signature between validators (the IBFT gossip topic, after a tag byte, as span consents).
 *
 *   digest    = keccak256(0x01 ‖ abi.encode(proposer, start, end, root, childChainId, baseChainId,
 *                                           manager, keccak256(abi.encode(newSigners, newPowers))))
 *               (VALIDATORS.md: Polygon's digest plus a domain — chain ids and contract — so a
 *               signature cannot be replayed on another chain or contract; the set-change hash
 *               makes the carried validator set part of what was signed)
 *   signature = secp256k1 over the digest itself (no EIP-191 prefix), 65 bytes r‖s‖v, v = 27/28, low s
 *   wire      = 0x43 ‖ RLP([proposer, start, end, root, [newSigners…], [newPowers…], signature])
 *
 * A vote carries its whole proposal, so a validator that never saw the proposer's message can
 * check and sign it from any peer's vote. The tag 0x43 ('C') is below every RLP list prefix
 * (0xc0…), so it is never taken for an IBFT message, and differs from span consents' 0x53.
 */
import { RLP } from '@ethereumjs/rlp'
import { bigIntToUnpaddedBytes, bytesToBigInt, bytesToHex, concatBytes, equalsBytes } from '@ethereumjs/util'
import secp256k1 from 'secp256k1'

import { keccak256 } from '../../util/keccak.js'
import { CheckpointVoteError } from './baseErrors.js'
import { addressWord, type CheckpointData, encodeSetChange, MAX_ABI_ARRAY, uintWord } from './managerAbi.js'

/** The checkpoint domain byte (span consents use 0x02). */
export const CHECKPOINT_DOMAIN = 0x01
/** First byte of a checkpoint vote on the IBFT topic. */
export const CHECKPOINT_VOTE_WIRE_TAG = 0x43
/** Bytes of a signature r‖s‖v. */
export const CHECKPOINT_SIGNATURE_BYTES = 65
/** Largest vote accepted: a set change of the DAO's 150 seats is about 8 KB; 64 KB bounds any garbage. */
export const CHECKPOINT_VOTE_MAX_WIRE_BYTES = 64 * 1024
/** Half the secp256k1 group order: a larger s is refused (the contract refuses it too). */
const SECP256K1_HALF_N = 0x7fffffffffffffffffffffffffffffff5d576e7357a4501ddfe92f46681b20a0n

/** What validators sign: the checkpoint and where it goes. */
export interface CheckpointProposal extends CheckpointData {
  childChainId: bigint
  baseChainId: bigint
  manager: Uint8Array
}

/** keccak256(abi.encode(newSigners, newPowers)). */
export function setChangeHash(p: Pick<CheckpointData, 'newSigners' | 'newPowers'>): Uint8Array {
  return keccak256(encodeSetChange(p.newSigners, p.newPowers))
}

/** checkpointDigest: the 32 bytes a validator signs (module doc); equals the contract's checkpointDigest(...). */
export function checkpointDigest(p: CheckpointProposal): Uint8Array {
  return keccak256(
    concatBytes(
      Uint8Array.of(CHECKPOINT_DOMAIN),
      addressWord(p.proposer),
      uintWord(p.start),
      uintWord(p.end),
      p.root,
      uintWord(p.childChainId),
      uintWord(p.baseChainId),
      addressWord(p.manager),
      setChangeHash(p),
    ),
  )
}

/** A key of the proposal for maps: its digest in hex. */
export function proposalKey(p: CheckpointProposal): string {
  return bytesToHex(checkpointDigest(p))
}

/** signCheckpoint signs `digest` with a validator key: r‖s‖v, v = 27 + recovery id. */
export function signCheckpoint(digest: Uint8Array, privateKey: Uint8Array): Uint8Array {
  const { signature, recid } = secp256k1.ecdsaSign(digest, privateKey)
  const out = new Uint8Array(CHECKPOINT_SIGNATURE_BYTES)
  out.set(signature, 0)
  out[64] = 27 + recid
  return out
}

/** recoverCheckpointSigner returns the address that signed `digest`; throws CheckpointVoteError('bad-signature'). */
export function recoverCheckpointSigner(digest: Uint8Array, signature: Uint8Array): Uint8Array {
  if (signature.length !== CHECKPOINT_SIGNATURE_BYTES)
    throw new CheckpointVoteError('bad-signature', `signature of ${signature.length} bytes, expected ${CHECKPOINT_SIGNATURE_BYTES}`)
  const v = signature[64] as number
  if (v !== 27 && v !== 28) throw new CheckpointVoteError('bad-signature', `v is ${v}, expected 27 or 28`)
  if (bytesToBigInt(signature.subarray(32, 64)) > SECP256K1_HALF_N)
    throw new CheckpointVoteError('bad-signature', 'signature s is in the upper half of the curve order')
  let pub: Uint8Array
  try {
    pub = secp256k1.ecdsaRecover(signature.subarray(0, 64), v - 27, digest, false)
  } catch (err) {
    throw new CheckpointVoteError('bad-signature', `signature does not recover: ${(err as Error).message}`)
  }
  return keccak256(pub.subarray(1)).slice(12)
}

/** A vote as it travels: the checkpoint (without the domain, which every receiver adds itself) and one signature. */
export interface CheckpointVoteWire {
  checkpoint: CheckpointData
  signature: Uint8Array
}

export function isCheckpointVoteWire(wire: Uint8Array): boolean {
  return wire[0] === CHECKPOINT_VOTE_WIRE_TAG
}

export function encodeVoteWire(v: CheckpointVoteWire): Uint8Array {
  const c = v.checkpoint
  return concatBytes(
    Uint8Array.of(CHECKPOINT_VOTE_WIRE_TAG),
    RLP.encode([
      c.proposer,
      bigIntToUnpaddedBytes(c.start),
      bigIntToUnpaddedBytes(c.end),
      c.root,
      c.newSigners,
      c.newPowers.map((p) => bigIntToUnpaddedBytes(p)),
      v.signature,
    ]),
  )
}

function uint(b: unknown, what: string, maxBytes = 32): bigint {
  if (!(b instanceof Uint8Array) || b.length > maxBytes || b[0] === 0)
    throw new CheckpointVoteError('malformed', `${what} is not a minimal integer`)
  return bytesToBigInt(b)
}

function bytesOf(b: unknown, length: number, what: string): Uint8Array {
  if (!(b instanceof Uint8Array) || b.length !== length)
    throw new CheckpointVoteError('malformed', `${what} is not ${length} bytes`)
  return b
}

/** decodeVoteWire parses a vote; throws CheckpointVoteError('malformed'). */
export function decodeVoteWire(wire: Uint8Array): CheckpointVoteWire {
  if (!isCheckpointVoteWire(wire)) throw new CheckpointVoteError('malformed', 'not a checkpoint vote')
  if (wire.length > CHECKPOINT_VOTE_MAX_WIRE_BYTES)
    throw new CheckpointVoteError('malformed', `vote of ${wire.length} bytes (at most ${CHECKPOINT_VOTE_MAX_WIRE_BYTES})`)
  let item: unknown
  try {
    item = RLP.decode(wire.subarray(1))
  } catch (err) {
    throw new CheckpointVoteError('malformed', `not RLP: ${(err as Error).message}`)
  }
  if (!Array.isArray(item) || item.length !== 7)
    throw new CheckpointVoteError('malformed', 'not [proposer, start, end, root, signers, powers, signature]')
  const [proposer, start, end, root, signers, powers, signature] = item as unknown[]
  if (!Array.isArray(signers) || !Array.isArray(powers) || signers.length !== powers.length || signers.length > MAX_ABI_ARRAY)
    throw new CheckpointVoteError('malformed', 'set change: signers and powers differ in length')
  return {
    checkpoint: {
      proposer: bytesOf(proposer, 20, 'proposer'),
      start: uint(start, 'start', 8),
      end: uint(end, 'end', 8),
      root: bytesOf(root, 32, 'root'),
      newSigners: signers.map((s, i) => bytesOf(s, 20, `signer ${i}`)),
      newPowers: powers.map((p, i) => uint(p, `power ${i}`)),
    },
    signature: bytesOf(signature, CHECKPOINT_SIGNATURE_BYTES, 'signature'),
  }
}

/** sameCheckpoint compares two checkpoints field by field. */
export function sameCheckpoint(a: CheckpointData, b: CheckpointData): boolean {
  return (
    equalsBytes(a.proposer, b.proposer) &&
    a.start === b.start &&
    a.end === b.end &&
    equalsBytes(a.root, b.root) &&
    a.newSigners.length === b.newSigners.length &&
    a.newSigners.every((s, i) => equalsBytes(s, b.newSigners[i] as Uint8Array)) &&
    a.newPowers.every((p, i) => p === b.newPowers[i])
  )
}

/** hasCheckpointQuorum: 3 · signed > 2 · total (more than 2/3 of the contract's power), as the contract checks. */
export function hasCheckpointQuorum(signed: bigint, total: bigint): boolean {
  return total > 0n && 3n * signed > 2n * total
}

/** sortSignatures orders signatures by ascending signer and concatenates them (the contract's `sigs`). */
export function concatSignatures(bySigner: Iterable<{ signer: Uint8Array; signature: Uint8Array }>): Uint8Array {
  const list = [...bySigner].sort((a, b) => Buffer.compare(a.signer, b.signer))
  return concatBytes(...list.map((s) => s.signature))
}

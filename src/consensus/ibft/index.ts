/**
 * consensus/ibft — Istanbul BFT: extraData codec, block hash, seals, proposer rotation, quorum.
 * (The multi-validator state machine and its messages build on these.)
 *
 * A header's extraData goes through three states; the block hash is fixed in the first and
 * never changes, because it covers neither the seals nor the round:
 *
 *    built                        proposed (PRE-PREPARE)    final (COMMITs from a quorum, round r)
 *   ┌────────────────────────┐   ┌──────────────────┐      ┌─────────────────────────────┐
 *   │ vanity, validators,    │   │                  │      │ + committedSeals (≥ quorum) │
 *   │ parentCommittedSeals;  │──▶│ + proposerSeal   │─────▶│ + round r (8 bytes BE)      │
 *   │ seals and round empty  │   │                  │      │                             │
 *   └────────────────────────┘   └──────────────────┘      └─────────────────────────────┘
 *
 *   extraData     = vanity(32) ‖ RLP([validators, proposerSeal, committedSeals, parentCommittedSeals, round])
 *   block hash    = keccak256(RLP(header with extraData blanked: proposerSeal 0x80, committedSeals 0xc0,
 *                   round 0x80))                                          — hash.ts
 *   proposerSeal  = sign(keccak256(hash))                                   — seal.ts
 *   proposalHash  = keccak256(hash ‖ uint64BE(round))
 *   committedSeal = sign(keccak256(proposalHash ‖ 0x02))
 *   proposer      = validators[(index(lastProposer) + round + 1) mod n]    — proposer.ts
 *   quorum        = floor(2n/3) + 1 distinct validators
 *   round timeout = base · 2^round + block time
 *
 * What must hold:
 * - Sealing never changes the block hash: the hash covers vanity, validators and
 *   parentCommittedSeals, never proposerSeal, committedSeals or round.
 * - Every IBFT header has mixHash = IBFT_MIX_HASH, sha3Uncles = the empty-list hash, nonce 0,
 *   difficulty 1 (checked by header validation, not here).
 * - A header is final only with a proposer seal from a validator and committed seals from a quorum
 *   of distinct validators, all over the round written in its extraData (verifySeals).
 * - Seals are 65 bytes r‖s‖v with v ∈ {0, 1} and low s; anything else is rejected.
 * - Block 1 has no last proposer: its round r is proposed by validators[r mod n].
 * - Malformed input throws IbftExtraError / IbftSealError with a `reason`; nothing else is thrown
 *   for bad bytes from the network.
 */
export {
  IbftError,
  IbftExtraError,
  type IbftExtraErrorReason,
  IbftSealError,
  type IbftSealErrorReason,
} from './errors.js'
export {
  ADDRESS_BYTES,
  IBFT_MIX_HASH,
  IBFT_MIX_HASH_HEX,
  type IbftExtra,
  MAX_ROUND,
  ROUND_BYTES,
  SEAL_BYTES,
  VANITY_BYTES,
  blankedExtra,
  decodeExtra,
  encodeExtra,
  roundToBytes,
} from './extra.js'
export { EXTRA_DATA_INDEX, extraDataOf, hashWithExtra, ibftBlockHash, withExtraData } from './hash.js'
export {
  MAX_ROUND_TIMEOUT_MS,
  proposerIndex,
  quorumSize,
  roundTimeoutMs,
  selectProposer,
} from './proposer.js'
export {
  type HeaderSeals,
  type VerifySealsResult,
  attachSeals,
  privateKeyToAddress,
  proposalHash,
  recoverCommittedSeal,
  recoverProposerSeal,
  sealHeader,
  signCommittedSeal,
  signProposerSeal,
  verifyCommittedSeals,
  verifySeals,
} from './seal.js'

/**
 * consensus/ibft — Istanbul BFT: the IBFT 2.0 state machine (engine.ts) with its messages
 * (messages.ts) and certificates (certificates.ts), over the extraData codec, block hash, seals,
 * proposer rotation and quorum.
 *
 * One height, as one validator runs it (n validators, quorum q = floor(2n/3)+1, f = floor((n-1)/3)):
 *
 *                       start(h): round 0, timer = base·2^0 + block time
 *                                      │
 *          ┌───────────────────────────▼─────────────────────────────┐
 *          │ NEW ROUND r                                             │◀──────────────────────────┐
 *          │  proposer(r), r = 0: at parent time + block time build  │                           │
 *          │    a block, send PREPREPARE                             │                           │
 *          │  proposer(r), r > 0: on q ROUND_CHANGE(r) send          │                           │
 *          │    PREPREPARE(block of the highest PC in them, else a   │                           │
 *          │    new block, + those ROUND_CHANGEs as the RCC)         │                           │
 *          └───────────────────────────┬─────────────────────────────┘                           │
 *            PREPREPARE(h, r) from proposer(r), RCC valid (r > 0), block executes and verifies   │
 *            (first one only: an equivocating proposer's second block is never prepared here)   │
 *                                      │ send PREPARE(h, r, B)                                   │
 *          ┌───────────────────────────▼─────────────────────────────┐                           │
 *          │ PREPARE: waiting for q PREPARE(h, r, B)                 │── timeout of round r ──▶  │
 *          └───────────────────────────┬─────────────────────────────┘   r := r+1, send          │
 *            q PREPAREs: PC := (PREPREPARE, PREPAREs), latest prepared   ROUND_CHANGE(h, r, PC), │
 *                                      │ send COMMIT(h, r, B, seal)      timer base·2^r + block ─┤
 *          ┌───────────────────────────▼─────────────────────────────┐   time; re-sent while     │
 *          │ COMMIT: waiting for q COMMIT(h, r', B) (any round r')   │   waiting                 │
 *          └───────────────────────────┬─────────────────────────────┘                           │
 *            q valid committed seals    │      f+1 ROUND_CHANGEs for rounds > r: move to the     │
 *                                      │      lowest of the f+1 highest, send ROUND_CHANGE ─────┘
 *          ┌───────────────────────────▼─────────────────────────────┐
 *          │ FINAL: block + seals + round r' inserted; start(h+1)    │
 *          └─────────────────────────────────────────────────────────┘
 *   From any state: a block of height ≥ h inserted by sync or gossip ─▶ start(head+1) (the sequence
 *   of h is cancelled). Messages for heights h+1…h+16 wait in a bounded buffer; older heights and
 *   rounds are dropped. Our own messages are handled like received ones (they count toward quorums).
 *
 * What must hold (for n ≥ 3f+1 with at most f faulty):
 * - Agreement: two different blocks are never both decided at one height — two quorums share an
 *   honest validator, which prepares one block per round and, after preparing, only ever sees its
 *   block re-proposed (certificates.ts).
 * - Every decided block carries ≥ q committed seals over (hash, round) of distinct validators.
 * - Messages are signed by their sender; a message from outside the height's validator set, or with
 *   a certificate that does not prove what it claims, changes nothing.
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
} from '../../chain/ibft/extra.js'
export { EXTRA_DATA_INDEX, extraDataOf, hashWithExtra, ibftBlockHash, withExtraData } from '../../chain/ibft/hash.js'
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
export type { EngineOptions, EngineState, EngineTimers, Finalized, IbftBackend } from './backend.js'
export {
  checkPreparedCertificate,
  checkRoundChange,
  checkRoundChangeCertificate,
  HeightContext,
  highestPrepared,
} from './certificates.js'
export {
  IBFT_MAX_FUTURE_HEIGHTS,
  IBFT_MAX_FUTURE_MESSAGES,
  IBFT_MAX_ROUNDS_KEPT,
  IBFT_OWN_MESSAGES_KEPT,
  IBFT_ROUND_CHANGE_RESEND_MS,
  IbftEngine,
} from './engine.js'
export { IbftMessageError, type IbftMessageErrorReason } from './errors.js'
export {
  type Commit,
  decodeMessage,
  encodeMessage,
  IBFT_MAX_MESSAGE_BYTES,
  type IbftMessage,
  MessageCode,
  type PreparedCertificate,
  type Prepare,
  type PrePrepare,
  proposalDigest,
  type RoundChange,
  type Signer,
  signCommit,
  signPrepare,
  signPrePrepare,
  signRoundChange,
} from './messages.js'
export { recoverDigestSigner, signDigest } from './seal.js'

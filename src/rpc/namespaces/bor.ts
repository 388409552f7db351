/**
 * The bor namespace (issue 19; served when `bor` is in `[jsonrpc] api`): Polygon Bor's
 * block-producer methods, answered in Bor's JSON shapes (consensus/bor/api.go, valset/validator.go)
 * from ibex's IBFT chain and span committees (spanReads.ts).
 *
 *   bor_getAuthor(block?)                  the proposer, recovered from the block's proposer seal
 *   bor_getCurrentValidators()             the committee deciding the next block, as Bor's Validator
 *                                          {ID, signer, power, accum}
 *   bor_getCurrentProposer()               the proposer of the next block's round 0
 *   bor_getSignersAtHash(hash)             the committee members whose committed seals the block carries
 *   bor_getSnapshotProposerSequence(block?) the committee ranked by the first round each proposes at
 *                                          the block's height, {Signers: [{Signer, Difficulty}], Diff, Author}
 *   bor_getRootHash(start, end)            the checkpoint root of blocks start..end (src/validators/checkpoint/
 *                                          root.ts), lower-case hex without 0x; start and end are plain JSON
 *                                          numbers (Go uint64). Bor's checks in Bor's order and words, -32000:
 *                                          length end − start + 1 in uint64 arithmetic over 2^15 (so start >
 *                                          end + 1 wraps and lands here) `Start: S and end block: E exceed max
 *                                          allowed checkpoint length: 32768`; then start > end or end beyond
 *                                          the head `Invalid parameters start: S and end block: E params`.
 *                                          The widest range reads 2^15 canonical-index entries and hashes
 *                                          as many pairs on the main thread (~170 ms on the 2-core box);
 *                                          the last 10 answers are kept, as Bor keeps them
 *
 * Departures from Bor, where ibex has no such thing:
 *   ID      = the signer's DAO seat in the validator set at the head (0 when the DAO names none, e.g.
 *             spans off on a chain without seats); Bor: Heimdall's validator id
 *   power   = the member's voting power in IBFT: times drawn into the span's committee (1 each with
 *             spans off or `producers` = 0); Bor: stake-derived voting power. The stake itself is
 *             validators_getValidators' `power`
 *   accum   = 0: rotation is by slots ((height + round) mod Σ power), not Tendermint priorities
 *   getSignersAtHash: the signers that actually sealed the block (ascending); Bor answers the
 *             authorized set of its snapshot, which here is bor_getCurrentValidators at that point
 *   Difficulty = committee size − rank in the height's round order (the round-0 proposer has the
 *             largest), as Bor ranks in-turn signers
 *   getRootHash: the leaves are the block hashes themselves (zero-padded, keccak256(left ‖ right), as
 *             Bor's tree); Bor's leaf is keccak256(number ‖ time ‖ txRoot ‖ receiptsRoot), each padded to
 *             32 bytes. The IBFT block hash commits to those and to every other header field
 * Unknown blocks answer -32000 `unknown block` (Bor's errUnknownBlock).
 */
import { bytesToHex } from '@ethereumjs/util'

import { decodeExtra } from '../../chain/ibft/extra.js'
import type { ChainBlock } from '../../chain/store.js'
import { recoverCommittedSeal } from '../../consensus/ibft/seal.js'
import {
  CheckpointBlockMissingError,
  checkpointRoot,
  rangeHashes,
  ROOT_RANGE_MAX_BLOCKS,
} from '../../validators/checkpoint/index.js'
import { type Backend, resolveBlock } from '../backend.js'
import { ServerError } from '../errors.js'
import { BlockTag, GoUint64, Hash, LATEST, optional } from '../params/index.js'
import { method, type Namespace } from '../types.js'
import { address, authorOf, currentCommittee, heightContext, UNKNOWN_BLOCK, validatorSetAt } from './spanReads.js'

/** Bor's valset.Validator as JSON. */
export interface BorValidator {
  ID: number
  signer: string
  power: number
  accum: number
}

/** Bor's BlockSigners as JSON (no json tags: Go's field names). */
export interface BorBlockSigners {
  Signers: { Signer: string; Difficulty: number }[]
  Diff: number
  Author: string
}

function blockOrUnknown(block: ChainBlock | undefined): ChainBlock {
  if (block === undefined) throw new ServerError(UNKNOWN_BLOCK)
  return block
}

async function currentValidators(b: Backend): Promise<BorValidator[]> {
  const committee = currentCommittee(b)
  const seats = new Map((await validatorSetAt(b, b.head())).map((v) => [bytesToHex(v.signer), v.seat]))
  return committee.map((m) => ({
    ID: Number(seats.get(bytesToHex(m.signer)) ?? 0n),
    signer: address(m.signer),
    power: Number(m.power),
    accum: 0,
  }))
}

/** The distinct signers of a block's committed seals, ascending. */
function sealSigners(block: ChainBlock): string[] {
  const extra = decodeExtra(block.header.extraData)
  const signers = new Set<string>()
  for (const seal of extra.committedSeals) {
    try {
      signers.add(address(recoverCommittedSeal(block.hash, extra.round, seal)))
    } catch {
      // a seal that does not recover seals nothing (import refuses such blocks; genesis has none)
    }
  }
  return [...signers].sort()
}

function proposerSequence(b: Backend, block: ChainBlock): BorBlockSigners {
  const ctx = heightContext(b, block.header.number)
  const n = ctx.validators.length
  // every member proposes within one turn of the rotation: n rounds unweighted, Σ power slots weighted
  const rounds = ctx.weighted ? ctx.totalPower : BigInt(n)
  const ranked: string[] = []
  for (let r = 0n; r < rounds && ranked.length < n; r++) {
    const who = ctx.proposer(r)
    if (!ranked.includes(who)) ranked.push(who)
  }
  const Signers = ranked.map((Signer, rank) => ({ Signer, Difficulty: n - rank }))
  const author = address(authorOf(block))
  return { Signers, Diff: Signers.find((s) => s.Signer === author)?.Difficulty ?? 0, Author: author }
}

/** Roots kept per node: Bor keeps the last 10 answers of GetRootHash (an ARC cache). */
const ROOT_CACHE_ENTRIES = 10
/** Go's uint64 wraps: Bor computes end − start + 1 in it. */
const UINT64_MASK = (1n << 64n) - 1n
/** The last roots answered, per backend, keyed by start and the end block's hash (which fixes every block before it). */
const rootCache = new WeakMap<Backend, Map<string, string>>()

function rootHash(b: Backend, start: bigint, end: bigint): string {
  const length = (end - start + 1n) & UINT64_MASK
  if (length > BigInt(ROOT_RANGE_MAX_BLOCKS)) {
    throw new ServerError(
      `Start: ${start} and end block: ${end} exceed max allowed checkpoint length: ${ROOT_RANGE_MAX_BLOCKS}`,
    )
  }
  if (start > end || end > b.head().header.number) {
    throw new ServerError(`Invalid parameters start: ${start} and end block: ${end} params`)
  }
  const endHash = b.canonicalHash(end)
  if (endHash === undefined) throw new ServerError(UNKNOWN_BLOCK)
  let cache = rootCache.get(b)
  if (cache === undefined) {
    cache = new Map()
    rootCache.set(b, cache)
  }
  const key = `${start}-${bytesToHex(endHash)}`
  const known = cache.get(key)
  if (known !== undefined) return known
  let hashes: Uint8Array[]
  try {
    hashes = rangeHashes(b, start, end)
  } catch (err) {
    // Bor answers errUnknownBlock for a header it lacks (pruned); ibex keeps every block, so only a race can
    if (err instanceof CheckpointBlockMissingError) throw new ServerError(UNKNOWN_BLOCK)
    throw err
  }
  const root = bytesToHex(checkpointRoot(hashes)).slice(2)
  if (cache.size >= ROOT_CACHE_ENTRIES) cache.delete(cache.keys().next().value as string)
  cache.set(key, root)
  return root
}

export const borNamespace: Namespace<Backend> = {
  name: 'bor',
  methods: {
    bor_getAuthor: method([optional(BlockTag, LATEST)], (b, [ref]) =>
      address(authorOf(blockOrUnknown(resolveBlock(b, ref)))),
    ),
    bor_getCurrentValidators: method([], (b) => currentValidators(b)),
    bor_getCurrentProposer: method([], (b) => heightContext(b, b.head().header.number + 1n).proposer(0n)),
    bor_getSignersAtHash: method([Hash], (b, [hash]) => sealSigners(blockOrUnknown(b.blockByHash(hash)))),
    bor_getSnapshotProposerSequence: method([optional(BlockTag, LATEST)], (b, [ref]) =>
      proposerSequence(b, blockOrUnknown(resolveBlock(b, ref))),
    ),
    bor_getRootHash: method([GoUint64, GoUint64], (b, [start, end]) => rootHash(b, start, end)),
  },
}

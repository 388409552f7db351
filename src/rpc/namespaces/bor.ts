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
 * Unknown blocks answer -32000 `unknown block` (Bor's errUnknownBlock).
 */
import { bytesToHex } from '@ethereumjs/util'

import { decodeExtra } from '../../chain/ibft/extra.js'
import type { ChainBlock } from '../../chain/store.js'
import { recoverCommittedSeal } from '../../consensus/ibft/seal.js'
import { type Backend, resolveBlock } from '../backend.js'
import { ServerError } from '../errors.js'
import { BlockTag, Hash, LATEST, optional } from '../params/index.js'
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
  },
}

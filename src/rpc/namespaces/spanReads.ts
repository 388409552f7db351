/**
 * What the bor_ and validators_ namespaces read about the validator layer (issue 19), over the
 * Backend only: committees from headers (Backend.spans), the DAO's validator set through view calls
 * on the exec pool (Backend.call, as eth_call runs), proposers recovered from seals.
 *
 *   "current" = after the head: the committee of the span block head+1 belongs to, the one deciding
 *               now (Bor's snapshot at the head header answers the same question)
 *   committee of height h = spans on:  the span's committee (SpanCommittees, from headers)
 *                           spans off: the parent header's validators, power 1 each
 */
import { bytesToHex } from '@ethereumjs/util'

import { decodeExtra } from '../../chain/ibft/extra.js'
import type { ChainBlock } from '../../chain/store.js'
import { HeightContext } from '../../consensus/ibft/certificates.js'
import { recoverProposerSeal } from '../../consensus/ibft/seal.js'
import {
  type Committee,
  readValidatorSet,
  spanOf,
  ValidatorSetError,
  type ValidatorSet,
  type ViewCaller,
} from '../../validators/index.js'
import type { Backend } from '../backend.js'
import { HeaderNotFoundError, ServerError } from '../errors.js'

/** Bor's errUnknownBlock text, for a block or hash the chain does not have. */
export const UNKNOWN_BLOCK = 'unknown block'

/** The view caller of the namespaces: eth_call's path (exec pool, the node's gas cap and time limit). */
export function backendCaller(b: Backend): ViewCaller {
  return {
    callAt(blockHash, to, data) {
      const block = b.blockByHash(blockHash)
      if (block === undefined) throw new HeaderNotFoundError()
      return b.call(block, { to, data })
    },
  }
}

/**
 * validatorSetAt reads ValidatorSigners.validatorSet() at `block`. A set the contract answers
 * malformed is a -32000 naming the fault; a call that failed keeps its own error (busy, timeout).
 */
export async function validatorSetAt(b: Backend, block: ChainBlock): Promise<ValidatorSet> {
  try {
    return await readValidatorSet(backendCaller(b), block.hash)
  } catch (err) {
    if (!(err instanceof ValidatorSetError)) throw err
    if (err.reason === 'call-failed' && err.cause !== undefined) throw err.cause
    throw new ServerError(err.message)
  }
}

/** committeeAt is the committee deciding `height` (module doc); undefined while it is not known. */
export function committeeAt(b: Backend, height: bigint): Committee | undefined {
  if (b.spans !== undefined) return b.spans.committeeOf(spanOf(height, b.spans.params.spanBlocks))
  const parent = b.blockByNumber(height > 0n ? height - 1n : 0n)
  if (parent === undefined) return undefined
  return decodeExtra(parent.header.extraData).validators.map((signer) => ({ signer, power: 1n }))
}

/** The committee deciding the block after the head. */
export function currentCommittee(b: Backend): Committee {
  const committee = committeeAt(b, b.head().header.number + 1n)
  if (committee === undefined) throw new ServerError(`committee of block ${b.head().header.number + 1n} is not known`)
  return committee
}

/** authorOf recovers the proposer of a sealed block from its proposer seal; -32000 for genesis or a bad seal. */
export function authorOf(block: ChainBlock): Uint8Array {
  if (block.header.number === 0n) throw new ServerError('the genesis block has no author: it is not sealed')
  try {
    return recoverProposerSeal(block.hash, decodeExtra(block.header.extraData).proposerSeal)
  } catch (err) {
    throw new ServerError(`block ${block.header.number} has no valid proposer seal: ${(err as Error).message}`)
  }
}

/**
 * heightContext is IBFT's view of `height` (proposer rotation, powers), built as the validator
 * builds it: the committee of the height and the proposer of its parent. Needs block height-1.
 */
export function heightContext(b: Backend, height: bigint): HeightContext {
  const parent = b.blockByNumber(height - 1n)
  const committee = committeeAt(b, height)
  if (parent === undefined || committee === undefined) throw new ServerError(UNKNOWN_BLOCK)
  const lastProposer = parent.header.number === 0n ? null : authorOf(parent)
  const signers = committee.map((m) => m.signer)
  return b.spans === undefined
    ? new HeightContext(height, signers, lastProposer)
    : new HeightContext(
        height,
        signers,
        lastProposer,
        committee.map((m) => m.power),
      )
}

/** Lowercase 0x address. */
export function address(bytes: Uint8Array): string {
  return bytesToHex(bytes)
}

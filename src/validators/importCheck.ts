/**
 * The span check of `ibex import` (src/block/importer.ts `checkConsensus`): a file's blocks carry
 * no trusted peer, so each block is held to the committee its own chain names, before it runs.
 *
 *   block n ─▶ validators in its extraData = committeeAt(n) (SpanCommittees over the imported headers)
 *           ─▶ a span record (only in a span's last block): verifySpanRecord against the set read
 *              from our own state at its reference block R (already imported: R comes before it)
 *
 * Seals are not checked by import (importer.ts); a node syncing from peers checks them too
 * (src/consensus/ibftImport.ts).
 */
import { bytesToHex, equalsBytes } from '@ethereumjs/util'

import { decodeExtra } from '../chain/ibft/extra.js'
import { committeeSigners, type SpanCommittees, verifySpanRecord } from './committees.js'
import type { ValidatorSet } from './set.js'
import { referenceBlock, spanOf } from './spans.js'

export interface SpanImportCheckOptions {
  chainId: bigint
  committees: SpanCommittees
  /** Hash of canonical block `number` (the chain imported so far). */
  hashAt(number: bigint): Uint8Array | undefined
  /** The validator set at a block (readValidatorSet over an exec pool). */
  readSet(blockHash: Uint8Array): Promise<ValidatorSet>
}

/** spanImportCheck returns the importer's `checkConsensus` hook for a chain with spans; it throws Error. */
export function spanImportCheck(o: SpanImportCheckOptions): (number: bigint, extraData: Uint8Array) => Promise<void> {
  return async (number, extraData) => {
    const extra = decodeExtra(extraData)
    const committee = o.committees.committeeAt(number)
    if (committee === undefined) throw new Error(`committee of block ${number} is unknown`)
    const want = committeeSigners(committee)
    if (extra.validators.length !== want.length || extra.validators.some((v, i) => !equalsBytes(v, want[i] as Uint8Array)))
      throw new Error(
        `validators ${extra.validators.map(bytesToHex).join(',')} are not the committee of the block's span (${want.map(bytesToHex).join(',')})`,
      )
    if (extra.span === undefined) return
    const S = o.committees.params.spanBlocks
    const ref = referenceBlock(spanOf(number, S) + 1n, S)
    const refHash = o.hashAt(ref)
    if (refHash === undefined) throw new Error(`span record: reference block ${ref} is not in the chain`)
    verifySpanRecord({
      chainId: o.chainId,
      params: o.committees.params,
      height: number,
      record: extra.span,
      refBlockHash: refHash,
      set: await o.readSet(refHash),
    })
  }
}

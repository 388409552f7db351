/**
 * Span arithmetic. With S = span_blocks > 0 the chain after genesis is cut into spans of S blocks:
 *
 *   span k = blocks [k·S + 1, (k+1)·S]          (block 0, genesis, is before span 0)
 *   span 0 is produced by the genesis validators (the header's validators, power 1 each)
 *   the committee of span k+1 is drawn at reference block R(k+1) = k·S + 1, the first block of span k
 *
 * S = 0 switches spans off: one committee (the genesis validators) forever, IBFT unweighted, and
 * headers never carry a span record — exactly the chain as before spans existed.
 */

/** The two numbers that shape spans (config [ibft] span_blocks and producers; every node of a network must agree). */
export interface SpanParams {
  /** Blocks per span; 0 = spans off. */
  spanBlocks: bigint
  /** Seats drawn per committee (with replacement); 0 = the whole validator set, power 1 each. */
  producers: number
}

/** spansOn tells whether spans are configured. */
export function spansOn(p: SpanParams | undefined): p is SpanParams {
  return p !== undefined && p.spanBlocks > 0n
}

/** spanOf is the span of block `height` (genesis counts as span 0). */
export function spanOf(height: bigint, spanBlocks: bigint): bigint {
  return height === 0n ? 0n : (height - 1n) / spanBlocks
}

/** spanStart is the first block of span `spanId`. */
export function spanStart(spanId: bigint, spanBlocks: bigint): bigint {
  return spanId * spanBlocks + 1n
}

/** spanEnd is the last block of span `spanId`. */
export function spanEnd(spanId: bigint, spanBlocks: bigint): bigint {
  return (spanId + 1n) * spanBlocks
}

/** isSpanStart tells whether `height` is the first block of a span after span 0 (where a committee may change). */
export function isSpanStart(height: bigint, spanBlocks: bigint): boolean {
  return height > spanBlocks && (height - 1n) % spanBlocks === 0n
}

/** referenceBlock is R of span `spanId` (≥ 1): the first block of the span before it. */
export function referenceBlock(spanId: bigint, spanBlocks: bigint): bigint {
  if (spanId < 1n) throw new RangeError('span 0 has no reference block: it is the genesis validators')
  return spanStart(spanId - 1n, spanBlocks)
}

/**
 * The span settings of a node ([ibft] span_blocks and producers, issue 19) as the validator layer
 * takes them. Kept apart from ibftNetwork.ts so that node start-up can refuse a bad value before
 * it loads libp2p or opens anything.
 */
import { ConfigError } from '../config/errors.js'
import type { IbexConfig } from '../config/types.js'
import type { SpanParams } from '../validators/index.js'

/**
 * spanParamsOf reads [ibft] span_blocks and producers; undefined when spans are off (0).
 * Throws ConfigError for span_blocks = 1: the record of a span rides in the previous span's last
 * block, which with one-block spans would be the reference block whose hash seeds the draw.
 */
export function spanParamsOf(config: IbexConfig): SpanParams | undefined {
  const { spanBlocks, producers } = config.ibft
  if (spanBlocks === 0) return undefined
  if (spanBlocks === 1)
    throw new ConfigError(
      'ibft.span_blocks = 1 is not allowed: a span needs at least 2 blocks (its first block seeds the next draw, its last carries the consent); use 0 (spans off) or ≥ 2',
    )
  return { spanBlocks: BigInt(spanBlocks), producers }
}

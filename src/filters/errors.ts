/**
 * Errors of log queries and filters, with geth's messages (eth/filters) and, for the limits geth
 * does not have, reth's. src/rpc/errors.ts gives each kind its JSON-RPC code.
 */
import { IbexError } from '../util/errors.js'

/** The filter id is unknown, expired, or of another kind than the call needs. */
export class FilterNotFoundError extends IbexError {
  readonly kind = 'filterNotFound'
  constructor() {
    super('filter not found')
  }
}

/** A block of the query's range is not stored. */
export class UnknownBlockError extends IbexError {
  readonly kind = 'unknownBlock'
  constructor() {
    super('unknown block')
  }
}

/** The query's blockHash names no stored block. */
export class HeaderForHashNotFoundError extends IbexError {
  readonly kind = 'headerForHashNotFound'
  constructor() {
    super('header for hash not found')
  }
}

/** fromBlock is past toBlock. */
export class InvalidBlockRangeError extends IbexError {
  readonly kind = 'invalidBlockRange'
  constructor() {
    super('invalid block range params')
  }
}

/** toBlock is past the head. */
export class RangeBeyondHeadError extends IbexError {
  readonly kind = 'rangeBeyondHead'
  constructor() {
    super('block range extends beyond current head block')
  }
}

/** geth's --rpc.rangelimit: the range spans more blocks than allowed. */
export class BlockRangeLimitError extends IbexError {
  readonly kind = 'blockRangeLimit'
  constructor(readonly limit: number) {
    super(`exceed maximum block range ${limit}`)
  }
}

/** reth's --rpc.max-logs-per-response; `to` is the last block whose logs all fit. */
export class LogResultLimitError extends IbexError {
  readonly kind = 'logResultLimit'
  constructor(
    readonly max: number,
    readonly from: bigint,
    readonly to: bigint,
  ) {
    super(`query exceeds max results ${max}, retry with the range ${from}-${to}`)
  }
}

/** A filter or subscription limit is reached; `key` names the config key that sets it. */
export class TooManyFiltersError extends IbexError {
  readonly kind = 'tooManyFilters'
  constructor(
    readonly limit: number,
    readonly key: string,
  ) {
    super(`too many filters and subscriptions: limit ${limit} reached (${key})`)
  }
}

export type FilterError =
  | FilterNotFoundError
  | UnknownBlockError
  | HeaderForHashNotFoundError
  | InvalidBlockRangeError
  | RangeBeyondHeadError
  | BlockRangeLimitError
  | LogResultLimitError
  | TooManyFiltersError

/** Builders, as the query code calls them. */
export const filterErrors = {
  notFound: () => new FilterNotFoundError(),
  unknownBlock: () => new UnknownBlockError(),
  headerForHash: () => new HeaderForHashNotFoundError(),
  invalidRange: () => new InvalidBlockRangeError(),
  beyondHead: () => new RangeBeyondHeadError(),
  rangeLimit: (limit: number) => new BlockRangeLimitError(limit),
  resultLimit: (max: number, from: bigint, to: bigint) => new LogResultLimitError(max, from, to),
  tooMany: (limit: number, key: string) => new TooManyFiltersError(limit, key),
}

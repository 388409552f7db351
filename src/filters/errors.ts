/**
 * Errors of log queries and filters, with geth's messages (eth/filters) and, for the limits
 * geth does not have, reth's. Each carries its JSON-RPC code (mapped in src/rpc/errors.ts).
 */
export class FilterError extends Error {
  readonly code: number
  constructor(code: number, message: string) {
    super(message)
    this.name = 'FilterError'
    this.code = code
  }
}

const SERVER = -32000
const INVALID_PARAMS = -32602

export const filterErrors = {
  notFound: () => new FilterError(SERVER, 'filter not found'),
  unknownBlock: () => new FilterError(SERVER, 'unknown block'),
  headerForHash: () => new FilterError(SERVER, 'header for hash not found'),
  invalidRange: () => new FilterError(INVALID_PARAMS, 'invalid block range params'),
  beyondHead: () => new FilterError(INVALID_PARAMS, 'block range extends beyond current head block'),
  /** geth's --rpc.rangelimit. */
  rangeLimit: (limit: number) => new FilterError(INVALID_PARAMS, `exceed maximum block range ${limit}`),
  /** reth's --rpc.max-logs-per-response; `to` is the last block whose logs all fit. */
  resultLimit: (max: number, from: bigint, to: bigint) =>
    new FilterError(INVALID_PARAMS, `query exceeds max results ${max}, retry with the range ${from}-${to}`),
}

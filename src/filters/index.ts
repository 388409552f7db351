/**
 * Filters, subscriptions and log queries. They match and hand out domain values (ChainLog: a log
 * with its block and transaction position; block hashes; pool transactions) and take decoded
 * criteria (LogQuery); the RPC layer decodes the JSON filter object (src/rpc/params) and formats
 * what comes back (src/rpc/format). Nothing here imports src/rpc.
 *
 *   sealer onBlock ──▶ ChainEvents.emitBlock ──┬─▶ FilterSystem: block hashes and matching logs
 *   pool (pending) ──▶ ChainEvents.emitPendingTx┤   queue up per filter until eth_getFilterChanges
 *                                              └─▶ Subscriptions (one set per WebSocket): items
 *                                                  handed to the connection, which sends them as
 *                                                  eth_subscription notifications
 *   eth_getLogs / eth_getFilterLogs ──▶ queryLogs: log index (src/chain/logIndex.ts) ─▶ receipts
 *                                      ─▶ ChainLog[] (kept per block, keptLogs.ts)
 *
 * What always holds: each block hash, log and pending transaction reaches a filter at most once
 * and is handed out by exactly one eth_getFilterChanges; a filter not polled for the filter
 * timeout is gone (`filter not found`), a subscription lasts as long as its connection; a log
 * query answers with geth's range errors and within the configured range and result limits.
 */
export { ChainLog, type LogBlockInfo } from './chainLog.js'
export { type FilterError, filterErrors } from './errors.js'
export { ChainEvents, type NewBlockEvent } from './events.js'
export {
  EventRing,
  FILTER_MAX_CHANGES,
  FILTER_SWEEP_MIN_MS,
  type FilterChanges,
  FilterSystem,
  newRpcId,
} from './filters.js'
export { type LogQuery, type LogQueryLimits, type LogRangeBound, queryLogs } from './query.js'
export {
  type DeliverItem,
  SubscriptionHub,
  type SubscriptionItem,
  type SubscriptionKind,
  type SubscriptionLimits,
  Subscriptions,
} from './subscriptions.js'
export { MatcherIndex } from './matcherIndex.js'

/**
 * Filters, subscriptions and log queries.
 *
 *   sealer onBlock ──▶ ChainEvents.emitBlock ──┬─▶ FilterSystem: block hashes and matching logs
 *   pool (pending) ──▶ ChainEvents.emitPendingTx┤   queue up per filter until eth_getFilterChanges
 *                                              └─▶ Subscriptions (one set per WebSocket): pushed
 *                                                  as eth_subscription notifications
 *   eth_getLogs / eth_getFilterLogs ──▶ queryLogs: log index (src/chain/logIndex.ts) ─▶ receipts
 *
 * What always holds: each block hash, log and pending transaction reaches a filter at most once
 * and is handed out by exactly one eth_getFilterChanges; a filter not polled for the filter
 * timeout is gone (`filter not found`), a subscription lasts as long as its connection; a log
 * query answers with geth's range errors and within the configured range and result limits.
 */
export { type FilterError, filterErrors } from './errors.js'
export { ChainEvents, type NewBlockEvent } from './events.js'
export { FILTER_SWEEP_MIN_MS, FilterSystem, newRpcId } from './filters.js'
export { type LogQuery, type LogQueryLimits, queryLogs } from './query.js'
export { type SubscriptionKind, Subscriptions } from './subscriptions.js'

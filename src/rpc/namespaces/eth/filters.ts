/**
 * Polling filters (src/filters/filters.ts): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
 * Unknown or expired ids answer -32000 `filter not found`, except eth_uninstallFilter (false).
 */
import type { Backend } from '../../backend.js'
import { Bool, type FilterCriteria, FilterId, FilterOptions, optional } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

export const filterMethods: MethodTable<Backend> = {
  eth_newFilter: {
    params: [FilterOptions],
    handler: (b, [criteria]) => b.filters.newLogFilter(criteria as FilterCriteria),
  },
  eth_newBlockFilter: {
    params: [],
    handler: (b) => b.filters.newBlockFilter(),
  },
  eth_newPendingTransactionFilter: {
    params: [optional(Bool, false)],
    handler: (b, [fullTx]) => b.filters.newPendingTransactionFilter(fullTx as boolean),
  },
  eth_getFilterChanges: {
    params: [FilterId],
    handler: (b, [id]) => b.filters.changes(id as string),
  },
  eth_getFilterLogs: {
    params: [FilterId],
    handler: (b, [id]) => b.filters.logs(id as string),
  },
  eth_uninstallFilter: {
    params: [FilterId],
    handler: (b, [id]) => b.filters.uninstall(id as string),
  },
}

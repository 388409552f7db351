/**
 * Polling filters (src/filters/filters.ts): eth_newFilter, eth_newBlockFilter,
 * eth_newPendingTransactionFilter, eth_getFilterChanges, eth_getFilterLogs, eth_uninstallFilter.
 * Unknown or expired ids answer -32000 `filter not found`, except eth_uninstallFilter (false).
 * New filters count against the caller's IP (`jsonrpc.max_filters_per_ip`) and the total.
 * The filters hand out domain values; they are formatted here (src/rpc/format).
 */
import type { Backend } from '../../backend.js'
import { formatFilterChanges } from '../../format/filterChanges.js'
import { formatLogs } from '../../format/log.js'
import { Bool, FilterId, FilterOptions, optional } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

export const filterMethods: MethodTable<Backend> = {
  eth_newFilter: method([FilterOptions], (b, [criteria], client) => b.filters.newLogFilter(criteria, client)),
  eth_newBlockFilter: method([], (b, _, client) => b.filters.newBlockFilter(client)),
  eth_newPendingTransactionFilter: method([optional(Bool, false)], (b, [fullTx], client) =>
    b.filters.newPendingTransactionFilter(fullTx, client),
  ),
  eth_getFilterChanges: method([FilterId], (b, [id]) => formatFilterChanges(b.filters.changes(id))),
  eth_getFilterLogs: method([FilterId], (b, [id]) => b.filters.logs(id).then(formatLogs)),
  eth_uninstallFilter: method([FilterId], (b, [id]) => b.filters.uninstall(id)),
}

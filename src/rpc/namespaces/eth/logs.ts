/**
 * eth_getLogs: logs of a block range (or of one block by hash) filtered by address and
 * positional topics, served from the log index (src/filters/query.ts) within the range and
 * result limits of `[jsonrpc]`.
 */
import { queryLogs } from '../../../filters/index.js'
import type { Backend } from '../../backend.js'
import { type FilterCriteria, FilterOptions } from '../../params/index.js'
import type { MethodTable } from '../../types.js'

export const logMethods: MethodTable<Backend> = {
  eth_getLogs: {
    params: [FilterOptions],
    handler: (b, [criteria]) => queryLogs(b.store, criteria as FilterCriteria, b.filters.limits),
  },
}

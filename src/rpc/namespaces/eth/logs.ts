/**
 * eth_getLogs: logs of a block range (or of one block by hash) filtered by address and
 * positional topics, served from the log index (src/filters/query.ts) within the range and
 * result limits of `[jsonrpc]`; the ChainLogs found are formatted here (src/rpc/format/log.ts).
 */
import type { Backend } from '../../backend.js'
import { formatLogs } from '../../format/log.js'
import { FilterOptions } from '../../params/index.js'
import { method, type MethodTable } from '../../types.js'

export const logMethods: MethodTable<Backend> = {
  eth_getLogs: method([FilterOptions], (b, [criteria]) => b.getLogs(criteria).then(formatLogs)),
}

/** eth_ chain facts: chain id, head number, sync status, accounts. */
import type { Backend } from '../../backend.js'
import { toQuantity } from '../../hex.js'
import type { MethodTable } from '../../types.js'

export const chainMethods: MethodTable<Backend> = {
  eth_chainId: { params: [], handler: (b) => toQuantity(b.chainId) },
  eth_blockNumber: { params: [], handler: (b) => toQuantity(b.store.head.header.number) },
  // a single node with no peers to catch up with is always in sync (block sync: IBFT network issue)
  eth_syncing: { params: [], handler: () => false },
  // the node holds no client keys
  eth_accounts: { params: [], handler: () => [] },
}

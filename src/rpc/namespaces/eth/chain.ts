/** eth_ chain facts: chain id, head number, sync status (eth_accounts: ../dev/accounts.ts). */
import type { Backend } from '../../backend.js'
import { toQuantity } from '../../../util/hex.js'
import { method, type MethodTable } from '../../types.js'

export const chainMethods: MethodTable<Backend> = {
  eth_chainId: method([], (b) => toQuantity(b.chainId)),
  eth_blockNumber: method([], (b) => toQuantity(b.head().header.number)),
  // false unless block sync (src/p2p/sync.ts) is catching up with a peer that is ahead
  eth_syncing: method([], (b) => {
    const s = b.network?.syncStatus()
    if (s === undefined) return false
    return {
      startingBlock: toQuantity(s.startingBlock),
      currentBlock: toQuantity(s.currentBlock),
      highestBlock: toQuantity(s.highestBlock),
    }
  }),
}

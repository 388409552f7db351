/**
 * The txpool namespace in geth's shapes (internal/ethapi TxPoolAPI):
 *
 *   txpool_content      {pending, queued}: checksummed sender → nonce (decimal string) → transaction
 *   txpool_contentFrom  {pending, queued} of one sender: nonce → transaction
 *   txpool_inspect      as content, each transaction as "<to>: <value> wei + <gas> gas × <price> wei"
 *                       ("contract creation: …" without a recipient; price = fee cap for 1559)
 *   txpool_status       {pending, queued} as quantities
 *
 * Transactions are RPCTransaction objects of pending transactions: blockHash, blockNumber and
 * transactionIndex null, gasPrice the fee cap. Senders appear in ascending order as Go writes map
 * keys; nonce keys follow JSON object rules (integer-like keys ascend numerically).
 */
import { toChecksumAddress } from '@ethereumjs/util'
import type { PoolTx } from '../../txpool/index.js'
import type { Backend } from '../backend.js'
import { formatTransaction } from '../format/transaction.js'
import { toQuantity } from '../../util/hex.js'
import { Address } from '../params/index.js'
import { method, type MethodTable, type Namespace } from '../types.js'

function rpcTx(ptx: PoolTx): unknown {
  return formatTransaction(ptx.tx, { from: ptx.sender })
}

/** geth's Inspect formatter. */
function summary(ptx: PoolTx): string {
  const { tx } = ptx
  const tail = `${tx.value} wei + ${tx.gasLimit} gas × ${ptx.feeCap} wei`
  return tx.to === undefined ? `contract creation: ${tail}` : `${toChecksumAddress(tx.to.toString())}: ${tail}`
}

function byNonce<T>(txs: readonly PoolTx[], format: (ptx: PoolTx) => T): Record<string, T> {
  const out: Record<string, T> = {}
  for (const ptx of txs) out[ptx.nonce.toString()] = format(ptx)
  return out
}

function bySender<T>(groups: Map<string, PoolTx[]>, format: (ptx: PoolTx) => T): Record<string, Record<string, T>> {
  const out: Record<string, Record<string, T>> = {}
  const senders = [...groups.keys()].map((s) => [toChecksumAddress(s), s] as const)
  senders.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  for (const [checksummed, sender] of senders) out[checksummed] = byNonce(groups.get(sender) ?? [], format)
  return out
}

export const txpoolMethods: MethodTable<Backend> = {
  txpool_content: method([], (b) => {
    const { pending, queued } = b.poolContent()
    return { pending: bySender(pending, rpcTx), queued: bySender(queued, rpcTx) }
  }),
  txpool_contentFrom: method([Address], (b, [address]) => {
    const { pending, queued } = b.poolContentFrom(address)
    return { pending: byNonce(pending, rpcTx), queued: byNonce(queued, rpcTx) }
  }),
  txpool_inspect: method([], (b) => {
    const { pending, queued } = b.poolContent()
    return { pending: bySender(pending, summary), queued: bySender(queued, summary) }
  }),
  txpool_status: method([], (b) => {
    const { pending, queued } = b.poolStats()
    return { pending: toQuantity(pending), queued: toQuantity(queued) }
  }),
}

export const txpoolNamespace: Namespace<Backend> = { name: 'txpool', methods: txpoolMethods }

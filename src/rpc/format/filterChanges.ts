/**
 * What polling filters and subscriptions hand out (src/filters: block hashes, ChainLogs, pool
 * transactions), as JSON-RPC results:
 *
 *   eth_getFilterChanges ─▶ FilterChanges ─▶ formatFilterChanges: hashes as data, log objects
 *                                             (log.ts, kept), transaction hashes or objects
 *   Subscriptions ─▶ (id, item) ─▶ NotificationWriter.text ─▶ geth's eth_subscription message
 *
 * A pending transaction's object is built once, whoever asks (WeakMap on the pool's entry).
 */
import type { ChainBlock } from '../../chain/store.js'
import type { FilterChanges, SubscriptionItem } from '../../filters/index.js'
import type { PoolTx } from '../../txpool/index.js'
import { toData } from '../../util/hex.js'
import { formatHeader, type RpcObject } from './block.js'
import { formatLog, formatLogs } from './log.js'
import { formatTransaction } from './transaction.js'

const pendingObjects = new WeakMap<PoolTx, RpcObject>()

/** The transaction object of a pending transaction (no block fields; gasPrice is the fee cap). */
export function formatPendingTransaction(ptx: PoolTx): RpcObject {
  let o = pendingObjects.get(ptx)
  if (o === undefined) {
    o = formatTransaction(ptx.tx, { from: ptx.sender })
    pendingObjects.set(ptx, o)
  }
  return o
}

/** The result of eth_getFilterChanges. */
export function formatFilterChanges(changes: FilterChanges): unknown[] {
  switch (changes.kind) {
    case 'blocks':
      return changes.hashes.map((h) => toData(h))
    case 'logs':
      return formatLogs(changes.logs)
    case 'pendingTxs':
      return changes.fullTx ? changes.txs.map(formatPendingTransaction) : changes.txs.map((t) => t.hashHex)
  }
}

/**
 * The notification texts of one connection's subscriptions, geth's shape:
 *
 *   {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}
 *
 * The result text of the last head and of the last pending transaction object is kept, so
 * several subscriptions of one kind on a connection serialize each once.
 */
export class NotificationWriter {
  #headBlock: ChainBlock | undefined
  #headText = ''
  #fullTx: PoolTx | undefined
  #fullTxText = ''

  text(id: string, item: SubscriptionItem): string {
    return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${this.#result(item)}}}`
  }

  #result(item: SubscriptionItem): string {
    switch (item.kind) {
      case 'newHeads':
        if (item.block !== this.#headBlock) {
          this.#headBlock = item.block
          this.#headText = JSON.stringify(formatHeader(item.block))
        }
        return this.#headText
      case 'logs':
        return JSON.stringify(formatLog(item.log))
      case 'newPendingTransactions':
        if (!item.fullTx) return JSON.stringify(item.tx.hashHex)
        if (item.tx !== this.#fullTx) {
          this.#fullTx = item.tx
          this.#fullTxText = JSON.stringify(formatPendingTransaction(item.tx))
        }
        return this.#fullTxText
    }
  }
}

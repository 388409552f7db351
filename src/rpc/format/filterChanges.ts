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
import type { ChainLog, FilterChanges, SubscriptionItem } from '../../filters/index.js'
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
 * Result texts shared by every connection: a head, log or pending transaction object is
 * serialized once however many subscriptions receive it (weakly held: gone with the item).
 */
let headBlock: ChainBlock | undefined
let headText = ''
const logTexts = new WeakMap<ChainLog, string>()
const fullTxTexts = new WeakMap<PoolTx, string>()

/**
 * The notification texts of subscriptions, geth's shape:
 *
 *   {"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":ID,"result":…}}
 *
 * Only the envelope with the id is built per subscriber; the result text is shared (above).
 */
export class NotificationWriter {
  text(id: string, item: SubscriptionItem): string {
    return `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":${resultText(item)}}}`
  }
}

/** The JSON text of an item's result, built on first use. */
export function resultText(item: SubscriptionItem): string {
  switch (item.kind) {
    case 'newHeads':
      if (item.block !== headBlock) {
        headBlock = item.block
        headText = JSON.stringify(formatHeader(item.block))
      }
      return headText
    case 'logs': {
      let t = logTexts.get(item.log)
      if (t === undefined) {
        t = JSON.stringify(formatLog(item.log))
        logTexts.set(item.log, t)
      }
      return t
    }
    case 'newPendingTransactions': {
      if (!item.fullTx) return `"${item.tx.hashHex}"`
      let t = fullTxTexts.get(item.tx)
      if (t === undefined) {
        t = JSON.stringify(formatPendingTransaction(item.tx))
        fullTxTexts.set(item.tx, t)
      }
      return t
    }
  }
}

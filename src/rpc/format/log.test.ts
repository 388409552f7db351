import { afterEach, describe, expect, it } from 'vitest'
import { type ChainLog, queryLogs, SubscriptionHub, type SubscriptionItem } from '../../filters/index.js'
import { criteria, hex, num, openFilterChain, T, topic } from '../../../test/helpers/filters.js'
import { formatFilterChanges, NotificationWriter } from './filterChanges.js'
import { formatLog, formatLogs } from './log.js'
import { formatBlockReceipts, formatReceipt } from './receipt.js'

const cleanups: (() => Promise<void>)[] = []
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c()
})

async function setup() {
  const chain = await openFilterChain()
  cleanups.push(chain.close)
  return chain
}

const none = { maxBlockRange: 0, maxResults: 0 }
const q = (n: bigint | number) => `0x${n.toString(16)}`

describe('log objects from ChainLogs', () => {
  it("are geth's log objects, field for field, and the receipts' own objects", async () => {
    const { store, mine } = await setup()
    await mine([1, 10])
    const b2 = await mine([2, 20], [3, 30])
    const [first, second] = formatLogs(await queryLogs(store, criteria({ blockHash: b2.hash }), none))
    const tx1 = b2.transactions[1]?.hash() as Uint8Array
    const address = (store.getReceipts(b2.hash)?.[1]?.logs[0]?.[0] ?? new Uint8Array()) as Uint8Array
    expect(JSON.stringify(second)).toBe(
      `{"address":"${hex(address)}","topics":["${T(3)}","${T(30)}"],"data":"0x",` +
        `"blockNumber":"0x2","transactionHash":"${hex(tx1)}","transactionIndex":"0x1",` +
        `"blockHash":"${hex(b2.hash)}","blockTimestamp":"${q(b2.header.timestamp)}","logIndex":"0x1","removed":false}`,
    )
    // frozen: the dispatcher keeps their texts and answers long arrays as bytes
    expect(Object.isFrozen(first)).toBe(true)
    // one object per log, whichever asked first
    const receipts = formatBlockReceipts(b2, store.getReceipts(b2.hash) ?? [])
    expect(receipts.flatMap((r) => r.logs as unknown[])).toEqual([first, second])
    expect((receipts[1]?.logs as unknown[])[0]).toBe(second)
  })

  it('a receipt formatted first gives getLogs its log objects', async () => {
    const { store, mine } = await setup()
    const b1 = await mine([4, 40], [5, 50])
    const receipt = formatReceipt(b1, store.getReceipts(b1.hash) ?? [], 1, b1.transactions[1] as never)
    const [log] = formatLogs(await queryLogs(store, criteria({ fromBlock: num(0n), topics: [[topic(5)]] }), none))
    expect((receipt.logs as unknown[])[0]).toBe(log)
    expect((log as { logIndex: string }).logIndex).toBe('0x1')
  })

  it('a range served again builds no object again, whatever store found the logs', async () => {
    const { store, mine } = await setup()
    await mine([1, 1], [1, 2])
    await mine([1, 3])
    const all = formatLogs(await queryLogs(store, criteria({ fromBlock: num(0n) }), none))
    expect(all.map((l) => (l as { blockNumber: string }).blockNumber)).toEqual(['0x1', '0x1', '0x2'])
    const again = formatLogs(await queryLogs(store, criteria({ fromBlock: num(0n) }), none))
    for (const [i, l] of again.entries()) expect(l).toBe(all[i])
    const one = await queryLogs(store, criteria({ fromBlock: num(0n), topics: [null, [topic(3)]] }), none)
    expect(formatLog(one[0] as ChainLog)).toBe(all[2])
  })
})

describe('filter changes and notifications', () => {
  it('answer eth_getFilterChanges as before: hashes, log objects, transaction hashes or objects', async () => {
    const { filters, mine } = await setup()
    const blocks = filters.newBlockFilter()
    const logs = filters.newLogFilter(criteria({ topics: [[topic(6)]] }))
    const hashes = filters.newPendingTransactionFilter(false)
    const full = filters.newPendingTransactionFilter(true)
    const b1 = await mine([6, 1], [7, 1])
    expect(formatFilterChanges(filters.changes(blocks))).toEqual([hex(b1.hash)])
    const [log] = formatFilterChanges(filters.changes(logs)) as { topics: string[]; blockHash: string }[]
    expect([log?.topics[0], log?.blockHash]).toEqual([T(6), hex(b1.hash)])
    const txHashes = formatFilterChanges(filters.changes(hashes))
    expect(txHashes).toEqual(b1.transactions.map((tx) => hex(tx.hash())))
    const objects = formatFilterChanges(filters.changes(full)) as Record<string, unknown>[]
    expect(objects.map((o) => [o.hash, o.blockHash, o.blockNumber, o.transactionIndex])).toEqual(
      txHashes.map((h) => [h, null, null, null]),
    )
    expect(formatFilterChanges(filters.changes(full))).toEqual([])
  })

  it("are geth's eth_subscription messages", async () => {
    const { events, mine } = await setup()
    const writer = new NotificationWriter()
    const sent: string[] = []
    const subs = new SubscriptionHub(events).connection((id: string, item: SubscriptionItem) =>
      sent.push(writer.text(id, item)),
    )
    const heads = subs.add('newHeads')
    const logs = subs.add('logs', { query: criteria({ topics: [[topic(9)]] }) })
    const pending = subs.add('newPendingTransactions')
    subs.activate()
    const b1 = await mine([9, 1])
    const txHash = hex(b1.transactions[0]?.hash() as Uint8Array)
    const envelope = (id: string) =>
      `{"jsonrpc":"2.0","method":"eth_subscription","params":{"subscription":"${id}","result":`
    expect(sent[0]).toBe(`${envelope(pending)}"${txHash}"}}`)
    const head = JSON.parse(sent[1] as string)
    expect(sent[1]?.startsWith(envelope(heads))).toBe(true)
    expect([head.params.result.number, head.params.result.hash]).toEqual(['0x1', hex(b1.hash)])
    const log = JSON.parse(sent[2] as string)
    expect(sent[2]?.startsWith(envelope(logs))).toBe(true)
    expect([log.params.result.transactionHash, log.params.result.logIndex, log.params.result.removed]).toEqual([
      txHash,
      '0x0',
      false,
    ])
    expect(sent).toHaveLength(3)
    subs.close()
  })
})

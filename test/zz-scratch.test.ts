import { it, expect, afterAll } from 'vitest'
import { keccak256 } from 'viem'
import { startNode, rpc, cleanupNodes, waitForReceipt } from './helpers/node.js'
import { sendTx } from './helpers/tx.js'
import { DEV_ACCOUNTS } from './helpers/dev.js'
import { headerFieldList, hexToBytes, RLP, encodeHeader, bytesToHex } from './helpers/header.js'
afterAll(cleanupNodes)
it('size', async () => {
  const n = await startNode()
  const h1 = await sendTx(n.url, DEV_ACCOUNTS[0].privateKey, { to: DEV_ACCOUNTS[1].address, value: 1n, type: 'legacy' })
  await waitForReceipt(n.url, h1)
  const h2 = await sendTx(n.url, DEV_ACCOUNTS[0].privateKey, { to: DEV_ACCOUNTS[1].address, value: 1n })
  const r = await waitForReceipt(n.url, h2)
  for (const bn of ['0x0', '0x1', r.blockNumber]) {
    const b = await rpc(n.url, 'eth_getBlockByNumber', [bn, false])
    expect(bytesToHex(keccak256(encodeHeader(b), 'bytes'))).toBe(b.hash)
    const txItems: unknown[] = []
    for (const h of b.transactions) { const raw = hexToBytes(await rpc(n.url, 'eth_getRawTransactionByHash', [h])); txItems.push(raw[0] >= 0xc0 ? RLP.decode(raw) : raw) }
    const enc = RLP.encode([headerFieldList(b), txItems as any, [], []])
    console.log(bn, b.size, enc.length, b.transactions.length)
  }
})

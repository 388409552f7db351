/**
 * Issue 18 item 4 through the binary: polling filters and WebSocket subscriptions are capped per
 * client IP (and in all), with -32005 naming the config key; uninstalling or unsubscribing
 * frees a slot. Limits set low by flags so the test stays small.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import WebSocket from 'ws'

import { cleanupNodes, type IbexNode, rpcResponse, startNode, waitFor } from './helpers/node.js'

let node: IbexNode

beforeAll(async () => {
  node = await startNode({ args: ['--rpc.max-filters-per-ip', '3', '--ws.max-subscriptions-per-ip', '2'] })
}, 60_000)
afterAll(cleanupNodes)

interface Reply {
  id: number
  result?: unknown
  error?: { code: number; message: string }
}

/** A WebSocket JSON-RPC client answering one call at a time. */
async function connect(url: string) {
  const ws = new WebSocket(url.replace('http', 'ws'))
  await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
  let id = 0
  const call = (method: string, params: unknown[]) =>
    new Promise<Reply>((resolve) => {
      const mine = id++
      const onMessage = (data: WebSocket.RawData) => {
        const msg = JSON.parse(data.toString()) as Reply
        if (msg.id !== mine) return
        ws.off('message', onMessage)
        resolve(msg)
      }
      ws.on('message', onMessage)
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: mine, method, params }))
    })
  return { ws, call }
}

describe('filter and subscription limits', () => {
  it('the filter past max_filters_per_ip is refused with -32005; uninstalling frees its slot', async () => {
    const ids: string[] = []
    for (let i = 0; i < 3; i++) {
      const res = await rpcResponse(node.url, 'eth_newBlockFilter', [])
      ids.push(res.result as string)
    }
    const refused = await rpcResponse(node.url, 'eth_newFilter', [{}])
    expect(refused.error?.code).toBe(-32005)
    expect(refused.error?.message).toMatch(/limit 3 reached \(jsonrpc\.max_filters_per_ip\)/)
    expect((await rpcResponse(node.url, 'eth_uninstallFilter', [ids[0]])).result).toBe(true)
    expect(typeof (await rpcResponse(node.url, 'eth_newFilter', [{}])).result).toBe('string')
  })

  it('the subscription past max_subscriptions_per_ip is refused, also on a second connection of the same IP', async () => {
    const a = await connect(node.url)
    const b = await connect(node.url)
    try {
      expect(typeof (await a.call('eth_subscribe', ['newHeads'])).result).toBe('string')
      expect(typeof (await a.call('eth_subscribe', ['logs', {}])).result).toBe('string')
      const refused = await b.call('eth_subscribe', ['newPendingTransactions'])
      expect(refused.error?.code).toBe(-32005)
      expect(refused.error?.message).toMatch(/limit 2 reached \(jsonrpc\.max_subscriptions_per_ip\)/)
      // unsubscribing, or closing the connection, frees slots
      const ids = [(await a.call('eth_subscribe', ['newHeads'])).error]
      expect(ids[0]?.code).toBe(-32005)
      a.ws.close()
      await waitFor(async () => typeof (await b.call('eth_subscribe', ['newHeads'])).result === 'string', {
        timeoutMs: 10_000,
        intervalMs: 50,
        what: 'the closed connection to free its subscriptions',
      })
    } finally {
      a.ws.close()
      b.ws.close()
    }
  })
})

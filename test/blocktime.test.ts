/**
 * Block production on a configured block time: with `--block-time 1s` the single validator
 * seals a block about every second, empty ones included, with strictly increasing timestamps;
 * with the dev default (0) no block appears until a transaction arrives.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupNodes, rpc, startNode, waitFor } from './helpers/node.js'

afterAll(cleanupNodes)

describe('block time', () => {
  it('--block-time 1s seals empty blocks on the clock', async () => {
    const node = await startNode({ args: ['--block-time', '1s'] })
    const first = Number(await rpc<string>(node.url, 'eth_blockNumber'))
    const started = Date.now()
    await waitFor(async () => Number(await rpc<string>(node.url, 'eth_blockNumber')) >= first + 3, {
      timeoutMs: 10_000,
    })
    const elapsed = Date.now() - started
    // three blocks take roughly three seconds: not a burst, not a stall
    expect(elapsed).toBeGreaterThan(1_500)
    const head = Number(await rpc<string>(node.url, 'eth_blockNumber'))
    let previous = -1
    for (let n = 1; n <= head; n++) {
      const block = await rpc<{ transactions: unknown[]; timestamp: string }>(node.url, 'eth_getBlockByNumber', [
        `0x${n.toString(16)}`,
        false,
      ])
      expect(block.transactions).toEqual([])
      const ts = Number(block.timestamp)
      expect(ts).toBeGreaterThan(previous)
      previous = ts
    }
    await node.stop()
  })

  it('block time 0 seals only when transactions arrive', async () => {
    const node = await startNode()
    await new Promise((r) => setTimeout(r, 1_500))
    expect(await rpc<string>(node.url, 'eth_blockNumber')).toBe('0x0')
    await node.stop()
  })
})

/**
 * Start time as an operator sees it: `ibex start --network dev` (what `npm start` runs, minus the
 * build) on an empty datadir and again on the initialised one, at the default log level, with
 * `--http.port 0`: the node must print its RPC URL and answer eth_chainId within 5 s of spawn.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { cleanupNodes, type IbexNode, rpc, startNode } from './helpers/node.js'

/** What "answers quickly" means for a dev node. */
const START_BUDGET_MS = 5_000

afterAll(cleanupNodes)

describe('startup', () => {
  let first: IbexNode

  it(`a fresh datadir answers eth_chainId within ${START_BUDGET_MS} ms and prints its URL`, async () => {
    first = await startNode({ logLevel: 'info', readyTimeoutMs: 20_000 })
    console.log(
      `startup: fresh datadir ready in ${Math.round(first.readyMs)} ms (${first.url}, from ${first.urlSource})`,
    )
    expect(first.urlSource, 'the RPC URL should be printed in the start banner').toBe('banner')
    expect(await rpc(first.url, 'eth_chainId')).toBe('0x539')
    expect(first.readyMs).toBeLessThan(START_BUDGET_MS)
  })

  it(`an initialised datadir starts within ${START_BUDGET_MS} ms too`, async () => {
    const t0 = performance.now()
    const stopped = await first.stop('SIGTERM')
    console.log(`startup: SIGTERM → exit in ${Math.round(performance.now() - t0)} ms (code ${stopped.code})`)
    expect(stopped).toMatchObject({ code: 0, timedOut: false })
    const again = await startNode({ datadir: first.datadir, logLevel: 'info', readyTimeoutMs: 20_000 })
    console.log(`startup: existing datadir ready in ${Math.round(again.readyMs)} ms`)
    expect(again.readyMs).toBeLessThan(START_BUDGET_MS)
    expect(await rpc(again.url, 'net_version')).toBe('1337')
  })
})

/**
 * eth_blockNumber on a dev ibex against the bare node:http server, alternating short closed-loop
 * runs at 32 connections so both see the same background load: prints each pair and the median
 * ratio. A quick check of the framing path (the full harness's compare scenario is the record).
 *
 *   npm run build && node dist/bench/frame-ab.js [rounds=5] [seconds=4] [method=eth_blockNumber]
 */
import { generate } from './load/index.js'
import { percentile, startBenchNode } from './node-process.js'
import { startBare, stopAll } from './peers/index.js'

const ROUNDS = Number(process.argv[2] ?? 5)
const SECONDS = Number(process.argv[3] ?? 4)
const METHOD = process.argv[4] ?? 'eth_blockNumber'
const CONNECTIONS = 32

const node = await startBenchNode([])
const bare = await startBare(undefined)
const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method: METHOD, params: [] })
const run = async (url: string) =>
  (
    await generate({
      url,
      requests: [{ tag: METHOD, body }],
      connections: CONNECTIONS,
      durationMs: SECONDS * 1000,
      warmupMs: 500,
      timeoutMs: 5000,
    })
  ).rps
const ratios: number[] = []
try {
  for (let i = 0; i < ROUNDS; i++) {
    const a = await run(node.url)
    const b = await run(bare.url)
    ratios.push(a / b)
    console.log(
      `round ${i + 1}: ibex ${Math.round(a)} req/s, node:http ${Math.round(b)} req/s, ratio ${(a / b).toFixed(3)}`,
    )
  }
  console.log(`median ratio ${percentile(ratios, 50).toFixed(3)}`)
} finally {
  await node.stop()
  await stopAll()
}

/**
 * eth_call throughput and latency through the execution pool, whole node over HTTP (autocannon):
 * 1 worker and 2 workers. Two calls: a contract call
 * that does work (Loop.run(N), a few ms of EVM) and a trivial one (a call to an account without
 * code: mostly the hop and the fixed cost). While each load runs, eth_blockNumber is probed every
 * 20 ms: its p99 shows whether the main thread stays free. A 1-connection run of the trivial call
 * shows the hop's latency cost. Every request has its own `from` (a counter), so no call is answered
 * from the per-thread result cache (src/exec/pool/callCache.ts): each one runs the EVM.
 *
 *   npm run build && node dist/bench/exec-pool.js [seconds=8] [connections=16] [loopN=200]
 */
import { createRequire } from 'node:module'
import { compileFixtures, loopRunData, percentile, rpc, Sender, startBenchNode } from './node-process.js'

interface AutocannonResult {
  requests: { average: number }
  latency: { p50: number; p99: number }
  errors: number
  non2xx: number
  timeouts: number
}
/** autocannon ships no types: the slice used here. */
const autocannon = createRequire(import.meta.url)('autocannon') as (opts: {
  url: string
  method: string
  headers: Record<string, string>
  connections: number
  duration: number
  requests: { setupRequest: (req: Record<string, unknown>) => Record<string, unknown> }[]
}) => Promise<AutocannonResult>

let fromCounter = 1
/** The call with a fresh `from`: the same execution, never a cache hit. */
function freshBody(call: { to: string; data?: string }): string {
  const from = `0x${(fromCounter++).toString(16).padStart(40, '0')}`
  return JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'eth_call', params: [{ from, ...call }, 'latest'] })
}

const SECONDS = Number(process.argv[2] ?? 8)
const CONNECTIONS = Number(process.argv[3] ?? 16)
const LOOP_N = Number(process.argv[4] ?? 200)
const PROBE_MS = 20

const CONFIGS: { label: string; args: string[] }[] = [
  { label: 'pool, 1 worker', args: ['--exec.workers', '1'] },
  { label: 'pool, 2 workers', args: ['--exec.workers', '2'] },
]

interface Row {
  config: string
  call: string
  connections: number
  reqPerSec: number
  p50: number
  p99: number
  probeP99: number
  errors: number
}

async function load(
  url: string,
  call: { to: string; data?: string },
  connections: number,
  seconds: number,
): Promise<{ reqPerSec: number; p50: number; p99: number; errors: number; probeP99: number }> {
  const probes: number[] = []
  let probing = true
  const probe = (async () => {
    while (probing) {
      const t = performance.now()
      await rpc(url, 'eth_blockNumber')
      probes.push(performance.now() - t)
      await new Promise((r) => setTimeout(r, PROBE_MS))
    }
  })()
  const result = await autocannon({
    url,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    connections,
    duration: seconds,
    requests: [{ setupRequest: (req) => ({ ...req, body: freshBody(call) }) }],
  })
  probing = false
  await probe
  return {
    reqPerSec: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors + result.non2xx + result.timeouts,
    probeP99: percentile(probes, 99),
  }
}

async function main(): Promise<void> {
  const bytecode = compileFixtures()
  const rows: Row[] = []
  for (const cfg of CONFIGS) {
    const node = await startBenchNode(cfg.args)
    try {
      const sender = new Sender(node.url)
      const loop = (await sender.send(undefined, bytecode.Loop as string)).contractAddress as string
      const work = { to: loop, data: loopRunData(LOOP_N) }
      const trivial = { to: sender.address }
      // check the calls answer a result, and warm up (JIT, worker caches)
      await rpc(node.url, 'eth_call', [work, 'latest'])
      for (let i = 0; i < 50; i++)
        await Promise.all([
          rpc(node.url, 'eth_call', JSON.parse(freshBody(work)).params),
          rpc(node.url, 'eth_call', JSON.parse(freshBody(trivial)).params),
        ])
      const runs: [string, { to: string; data?: string }, number][] = [
        [`Loop.run(${LOOP_N})`, work, CONNECTIONS],
        ['trivial', trivial, CONNECTIONS],
        ['trivial', trivial, 1],
      ]
      for (const [call, body, connections] of runs) {
        const r = await load(node.url, body, connections, SECONDS)
        rows.push({ config: cfg.label, call, connections, ...r })
        console.log(
          `${cfg.label.padEnd(24)} ${call.padEnd(14)} c=${String(connections).padEnd(3)} ${r.reqPerSec.toFixed(0).padStart(6)} req/s  p50 ${r.p50} ms  p99 ${r.p99} ms  eth_blockNumber p99 ${r.probeP99.toFixed(1)} ms  errors ${r.errors}`,
        )
      }
    } finally {
      await node.stop()
    }
  }
  console.log('\n| config | call | connections | req/s | p50 ms | p99 ms | eth_blockNumber p99 ms during load |')
  console.log('|---|---|---|---|---|---|---|')
  for (const r of rows) {
    console.log(
      `| ${r.config} | ${r.call} | ${r.connections} | ${r.reqPerSec.toFixed(0)} | ${r.p50} | ${r.p99} | ${r.probeP99.toFixed(1)} |`,
    )
  }
}

await main()

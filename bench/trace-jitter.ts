/**
 * Block-interval jitter while debug traces run: a dev node sealing on a clock (`--block-time`),
 * first idle, then with clients tracing a heavy transaction back to back. The interval between
 * `sealed block` log lines (stamped on arrival) should stay at the block time when traces run on
 * the trace worker (traces never run on the main thread).
 *
 *   npm run build && node dist/bench/trace-jitter.js [seconds=10] [blockTimeMs=500] [clients=2] [loopN=3000]
 */
import { compileFixtures, loopRunData, percentile, rpc, Sender, startBenchNode } from './node-process.js'

const SECONDS = Number(process.argv[2] ?? 10)
const BLOCK_TIME_MS = Number(process.argv[3] ?? 500)
const CLIENTS = Number(process.argv[4] ?? 2)
const LOOP_N = Number(process.argv[5] ?? 3000)

const CONFIGS: { label: string; args: string[] }[] = [{ label: 'traces on the trace worker', args: [] }]

interface Stats {
  blocks: number
  meanMs: number
  p99Ms: number
  maxMs: number
  maxLateMs: number
}

function intervals(at: number[]): Stats {
  const d: number[] = []
  for (let i = 1; i < at.length; i++) d.push((at[i] as number) - (at[i - 1] as number))
  const mean = d.reduce((a, b) => a + b, 0) / Math.max(1, d.length)
  const max = Math.max(...d)
  return { blocks: d.length, meanMs: mean, p99Ms: percentile(d, 99), maxMs: max, maxLateMs: max - BLOCK_TIME_MS }
}

function sealedBetween(lines: { at: number; text: string }[], from: number, to: number): number[] {
  return lines.filter((l) => l.at >= from && l.at <= to && l.text.includes('sealed block')).map((l) => l.at)
}

async function main(): Promise<void> {
  const loop = compileFixtures().Loop as string
  const rows: string[] = []
  for (const cfg of CONFIGS) {
    const node = await startBenchNode([
      '--block-time',
      `${BLOCK_TIME_MS}ms`,
      '--log-level',
      'info',
      '--rpc.response-limit',
      '0',
      ...cfg.args,
    ])
    try {
      const sender = new Sender(node.url)
      const address = (await sender.send(undefined, loop)).contractAddress as string
      const traced = (await sender.send(address, loopRunData(LOOP_N), 29_000_000n)).transactionHash as string
      const first = (await rpc(node.url, 'debug_traceTransaction', [traced, { disableStorage: true }])).structLogs
        .length as number
      const t0 = performance.now()
      await new Promise((r) => setTimeout(r, SECONDS * 1000))
      const idle = intervals(sealedBetween(node.lines, t0, performance.now()))
      const phases: [string, Stats][] = [['idle', idle]]
      // struct logger (~150 bytes of JSON per step: large answers) and callTracer (tiny answers)
      for (const [name, options] of [
        ['struct logger', { disableStorage: true }],
        ['callTracer', { tracer: 'callTracer' }],
      ] as const) {
        const t1 = performance.now()
        let traces = 0
        let stop = false
        const clients = Array.from({ length: CLIENTS }, async () => {
          while (!stop) {
            // read the answer but do not parse it: this process shares the CPU with the node
            const res = await fetch(node.url, {
              method: 'POST',
              headers: { 'content-type': 'application/json' },
              body: JSON.stringify({
                jsonrpc: '2.0',
                id: 1,
                method: 'debug_traceTransaction',
                params: [traced, { ...options, timeout: '60s' }],
              }),
            })
            const body = await res.arrayBuffer()
            if (body.byteLength < 100) throw new Error(Buffer.from(body).toString())
            traces++
          }
        })
        await new Promise((r) => setTimeout(r, SECONDS * 1000))
        stop = true
        const busyEnd = performance.now()
        await Promise.all(clients)
        phases.push([
          `${CLIENTS} clients tracing (${name}, ${traces} traces)`,
          intervals(sealedBetween(node.lines, t1, busyEnd)),
        ])
      }
      for (const [phase, s] of phases) {
        const line = `| ${cfg.label} | ${phase} | ${s.blocks} | ${s.meanMs.toFixed(0)} | ${s.p99Ms.toFixed(0)} | ${s.maxMs.toFixed(0)} | ${s.maxLateMs.toFixed(0)} |`
        rows.push(line)
        console.log(line)
      }
      console.log(`   (the traced transaction has ${first} steps)`)
    } finally {
      await node.stop()
    }
  }
  console.log(`\nblock time ${BLOCK_TIME_MS} ms, traced tx = Loop.run(${LOOP_N})`)
  console.log('| config | phase | intervals | mean ms | p99 ms | max ms | worst lateness ms |')
  console.log('|---|---|---|---|---|---|---|')
  for (const r of rows) console.log(r)
}

await main()

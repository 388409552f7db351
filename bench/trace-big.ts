/**
 * A 30M-gas loop traced with memory on: the struct logger's JSON would be gigabytes, so the trace
 * worker writes it into a byte buffer bounded by `trace_max_bytes` and stops with -32005 when it
 * is full, instead of exhausting the heap. Prints, for a bounded and for a smaller trace that fits,
 * the answer (size or error), the time, and the node's peak RSS (VmHWM, all threads) before and
 * after.
 *
 *   npm run build && node dist/bench/trace-big.js [gas=29000000] [fitsLoopN=4000]
 */
import { compileFixtures, loopRunData, peakRssMiB, rpc, Sender, startBenchNode } from './node-process.js'

const GAS = BigInt(process.argv[2] ?? 29_000_000)
const FITS_LOOP_N = Number(process.argv[3] ?? 4000)

/** The n whose Loop.run(n) uses about `gas`: the loop's gas is linear in n, so two small estimates fix it. */
async function loopFor(url: string, to: string, gas: bigint): Promise<number> {
  const estimate = async (n: number) =>
    Number(BigInt(await rpc<string>(url, 'eth_estimateGas', [{ to, data: loopRunData(n) }])))
  const [a, b] = [await estimate(100), await estimate(1100)]
  const perIteration = (b - a) / 1000
  return Math.floor((Number(gas) - a) / perIteration) + 100
}

async function traceOnce(url: string, pid: number, label: string, hash: string, options: object): Promise<void> {
  const before = peakRssMiB(pid)
  const t = performance.now()
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'debug_traceTransaction', params: [hash, options] }),
  })
  const text = await res.text()
  const ms = performance.now() - t
  const after = peakRssMiB(pid)
  const outcome = text.startsWith('{"jsonrpc":"2.0","id":1,"error"')
    ? text.slice(0, 200)
    : `${(text.length / 1024 / 1024).toFixed(1)} MiB of JSON`
  console.log(
    `| ${label} | ${JSON.stringify(options)} | ${outcome} | ${(ms / 1000).toFixed(1)} s | ${before.toFixed(0)} → ${after.toFixed(0)} MiB |`,
  )
}

async function main(): Promise<void> {
  const loop = compileFixtures().Loop as string
  // no response cap: the trace's own bound (trace_max_bytes, 256 MiB) is what is measured
  const node = await startBenchNode(['--rpc.response-limit', '0'])
  try {
    const sender = new Sender(node.url)
    const address = (await sender.send(undefined, loop)).contractAddress as string
    const n = await loopFor(node.url, address, GAS - 200_000n)
    const big = await sender.send(address, loopRunData(n), GAS)
    const fits = await sender.send(address, loopRunData(FITS_LOOP_N), GAS)
    console.log(
      `Loop.run(${n}) used ${BigInt(big.gasUsed)} gas; Loop.run(${FITS_LOOP_N}) used ${BigInt(fits.gasUsed)} gas`,
    )
    console.log('| trace | options | answer | time | node peak RSS |')
    console.log('|---|---|---|---|---|')
    // the bounded one first: its peak RSS is not hidden behind the answer that fits
    await traceOnce(node.url, node.pid, `Loop.run(${n}), 30M gas`, big.transactionHash, {
      enableMemory: true,
      timeout: '600s',
    })
    await traceOnce(node.url, node.pid, `Loop.run(${n}), 30M gas`, big.transactionHash, {
      tracer: 'callTracer',
      timeout: '600s',
    })
    await traceOnce(node.url, node.pid, `Loop.run(${FITS_LOOP_N})`, fits.transactionHash, {
      enableMemory: true,
      timeout: '600s',
    })
  } finally {
    await node.stop()
  }
}

await main()

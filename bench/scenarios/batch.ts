/** Batches of 10, 100 and 1,000 read-mix calls (eth_getLogs left out), closed loop, BATCH_CONNECTIONS. */
import { generate } from '../load/index.js'
import { job, type Row, rowOf, type Scenario } from './types.js'

export const BATCH_SIZES = [10, 100, 1000]
export const BATCH_CONNECTIONS = 4

export const batch: Scenario = {
  name: 'batch',
  title: `JSON-RPC batches of read-mix calls (closed loop, ${BATCH_CONNECTIONS} connections)`,
  async run(ctx) {
    const rows: Row[] = []
    for (const size of BATCH_SIZES) {
      const requests = ctx.requests.batches(size, Math.max(8, Math.ceil(2000 / size)))
      for (const node of ctx.nodes) {
        const s = await generate({ ...job(ctx, node.url, requests, BATCH_CONNECTIONS), timeoutMs: 30_000 }, ctx.gen)
        rows.push(rowOf(node.name, `batch ${size}`, s))
        ctx.log(
          `  ${node.name.padEnd(9)} batch ${size}: ${s.rps.toFixed(1)} batches/s (${Math.round(s.callsPerSec)} calls/s) p99 ${s.p99.toFixed(1)} ms`,
        )
      }
    }
    return {
      name: 'batch',
      title: this.title,
      unit: 'batches/s',
      rows,
      notes: ['calls/s counts the calls inside successful batches; a batch with any error object is not a success.'],
    }
  },
}

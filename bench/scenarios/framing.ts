/**
 * Framing ceiling: eth_chainId and eth_blockNumber (answers that cost nothing to compute) at 10,
 * 100 and 1,000 keep-alive connections, closed loop, next to the bare node:http server answering
 * a fixed reply in the same run — the most any Node.js HTTP stack reaches on this machine.
 */
import { generate } from '../load/index.js'
import { job, type Row, rowOf, type Scenario } from './types.js'

export const FRAMING_CONNECTIONS = [10, 100, 1000]
export const FRAMING_METHODS = ['eth_chainId', 'eth_blockNumber']

export const framing: Scenario = {
  name: 'framing',
  title: 'Framing ceiling (closed loop, keep-alive)',
  async run(ctx) {
    const rows: Row[] = []
    const targets = ctx.bare === undefined ? ctx.nodes : [ctx.bare, ...ctx.nodes]
    for (const method of FRAMING_METHODS) {
      const requests = ctx.requests.single(method, 16)
      for (const connections of FRAMING_CONNECTIONS) {
        for (const node of targets) {
          const s = await generate(job(ctx, node.url, requests, connections), ctx.gen)
          rows.push(rowOf(node.name, `${method} ×${connections}`, s))
          ctx.log(
            `  ${node.name.padEnd(9)} ${method} ×${connections}: ${Math.round(s.rps)} req/s p99 ${s.p99.toFixed(1)} ms`,
          )
        }
      }
    }
    return {
      name: 'framing',
      title: this.title,
      unit: 'req/s',
      rows,
      notes: ['node:http answers a fixed reply whatever the method.'],
    }
  },
}

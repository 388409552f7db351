/**
 * `--metrics`: GET /metrics serves the families the operations issue lists, and their values move
 * under load (requests by method and outcome, latency, batch sizes, rate-limited calls, head,
 * block interval, transactions, exec pool, txpool, database size, process). Also /health and
 * /ready as documented, and no metrics listener without the flag.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS, randomAddress } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, startNode, waitForReceipt } from '../helpers/node.js'
import { sendTx } from '../helpers/tx.js'
import { call, clientFrom, post } from './client.js'

let node: IbexNode
let metricsUrl: string

/** Families every scrape must carry. */
const FAMILIES = [
  'ibex_info',
  'ibex_rpc_requests_total',
  'ibex_rpc_request_duration_seconds',
  'ibex_rpc_http_requests_in_flight',
  'ibex_rpc_batch_size',
  'ibex_rpc_rate_limited_total',
  'ibex_chain_head_block',
  'ibex_chain_head_timestamp_seconds',
  'ibex_chain_block_interval_seconds',
  'ibex_chain_transactions_total',
  'ibex_ibft_round',
  'ibex_ibft_round_changes_total',
  'ibex_txpool_transactions',
  'ibex_p2p_peers',
  'ibex_exec_queue_depth',
  'ibex_exec_threads',
  'ibex_exec_tasks_completed_total',
  'ibex_db_size_bytes',
  'ibex_state_flat_accounts_ready',
  'ibex_state_flat_accounts_backfill_rows',
  'process_cpu_seconds_total',
  'process_resident_memory_bytes',
  'nodejs_eventloop_lag_seconds',
  'nodejs_heap_size_used_bytes',
]

/** The value of one sample line (`name{labels} value`), or undefined. */
function sample(text: string, series: string): number | undefined {
  for (const line of text.split('\n')) {
    if (line.startsWith(`${series} `)) return Number(line.slice(series.length + 1))
  }
  return undefined
}

async function scrape(): Promise<string> {
  const res = await fetch(metricsUrl)
  expect(res.status).toBe(200)
  expect(res.headers.get('content-type')).toContain('text/plain')
  return res.text()
}

beforeAll(async () => {
  node = await startNode({
    args: [
      '--metrics',
      '--metrics.port',
      '0',
      '--rpc.ratelimit',
      '1000',
      '--rpc.ratelimit.logs',
      '2',
      '--rpc.ratelimit.burst',
      '1s',
    ],
  })
  const m = /Metrics: +(http:\/\/[^\s]+)/.exec(node.stdout())
  expect(m, node.stdout()).not.toBeNull()
  metricsUrl = (m as RegExpExecArray)[1] as string
})

afterAll(cleanupNodes)

describe('Prometheus metrics', () => {
  it('serves every family, and the values move under load', async () => {
    const before = await scrape()
    for (const family of FAMILIES) expect(before, family).toContain(`# TYPE ${family} `)
    expect(before).toContain('ibex_info{version="0.1.0",network="dev",chain_id="1337"} 1')

    // load: cheap reads, a batch, eth_calls (worker pool), getLogs over its budget, two blocks
    const client = clientFrom(node.url, '127.0.0.1', 4)
    await Promise.all(Array.from({ length: 200 }, () => post(client, call('eth_blockNumber'))))
    await post(
      client,
      Array.from({ length: 7 }, () => call('eth_chainId')),
    )
    for (let i = 0; i < 5; i++)
      await post(
        client,
        // distinct calldata: a repeated call would be answered from the result cache, not a worker
        call('eth_call', [{ to: '0x0000000000000000000000000000000000000004', data: `0x0${i + 1}` }, 'latest']),
      )
    await post(client, call('no_suchMethod'))
    const logs = await Promise.all(
      Array.from({ length: 6 }, () => post(client, call('eth_getLogs', [{ fromBlock: '0x0' }]))),
    )
    expect(logs.some((r) => r.status === 429)).toBe(true)
    for (let i = 0; i < 2; i++) {
      const hash = await sendTx(node.url, DEV_ACCOUNTS[1].privateKey, { to: randomAddress(), value: 1n })
      await waitForReceipt(node.url, hash)
    }
    await client.destroy()

    const after = await scrape()
    const grew = (series: string, by: number) => {
      const a = sample(before, series) ?? 0
      const b = sample(after, series)
      expect(
        b,
        `${series} in\n${after
          .split('\n')
          .filter((l) => l.startsWith(series.split('{')[0] as string))
          .join('\n')}`,
      ).toBeDefined()
      expect((b as number) - a, series).toBeGreaterThanOrEqual(by)
    }
    grew('ibex_rpc_requests_total{method="eth_blockNumber",outcome="ok"}', 200)
    grew('ibex_rpc_requests_total{method="eth_chainId",outcome="ok"}', 7)
    grew('ibex_rpc_requests_total{method="eth_call",outcome="ok"}', 5)
    grew('ibex_rpc_requests_total{method="other",outcome="error"}', 1)
    grew('ibex_rpc_requests_total{method="eth_getLogs",outcome="limited"}', 1)
    grew('ibex_rpc_rate_limited_total{budget="logs"}', 1)
    grew('ibex_rpc_request_duration_seconds_count{method="eth_blockNumber"}', 200)
    grew('ibex_rpc_batch_size_count', 1)
    grew('ibex_rpc_batch_size_bucket{le="10"}', 1)
    grew('ibex_chain_head_block', 2)
    grew('ibex_chain_transactions_total', 2)
    grew('ibex_chain_block_interval_seconds_count', 1)
    grew('ibex_exec_tasks_completed_total{lane="calls"}', 5)
    grew('process_cpu_seconds_total', 0.01)
    expect(sample(after, 'ibex_db_size_bytes')).toBeGreaterThan(0)
    // a fresh dev chain's flat account table follows every block: never rebuilt
    expect(sample(after, 'ibex_state_flat_accounts_ready')).toBe(1)
    expect(sample(after, 'ibex_state_flat_accounts_backfill_rows')).toBe(0)
    expect(sample(after, 'ibex_rpc_http_requests_in_flight')).toBe(0)
    expect(sample(after, 'ibex_ibft_round')).toBe(0)
    expect(sample(after, 'ibex_txpool_transactions{subpool="pending"}')).toBe(0)
    expect(sample(after, 'ibex_exec_threads{lane="calls"}')).toBeGreaterThanOrEqual(1)
    // a client cannot grow the label set with made-up method names
    expect(after).not.toContain('no_suchMethod')
  })

  it('answers 404 outside /metrics', async () => {
    const res = await fetch(metricsUrl.replace('/metrics', '/other'))
    expect(res.status).toBe(404)
  })
})

describe('/health and /ready', () => {
  it('/health: 200 while the process serves, with the head', async () => {
    const res = await fetch(`${node.url}/health`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ status: 'ok', synced: true })
    expect(body.head).toBe(Number(BigInt(await rpc<string>(node.url, 'eth_blockNumber'))))
  })

  it('/ready: 200 with the checks when the node should get traffic', async () => {
    const res = await fetch(`${node.url}/ready`)
    expect(res.status).toBe(200)
    const body = (await res.json()) as Record<string, unknown>
    expect(body).toMatchObject({ status: 'ok', ready: true, database: 'open', synced: true, peers: 0 })
    expect(typeof body.headAgeSeconds).toBe('number')
    const head = await fetch(`${node.url}/ready`, { method: 'HEAD' })
    expect(head.status).toBe(200)
  })

  it('/ready: 503 "no peers" for a p2p node whose bootnodes are unreachable', async () => {
    const lonely = await startNode({
      args: [
        '--p2p.port',
        '0',
        '--bootnodes',
        '/ip4/127.0.0.1/tcp/9/p2p/12D3KooWEyoppNCUx8Yx66oV9fJnriXwCcXwDDUA2kj6vnc6iDEp',
      ],
    })
    const res = await fetch(`${lonely.url}/ready`)
    expect(res.status).toBe(503)
    expect(await res.json()).toMatchObject({ status: 'unavailable', ready: false, peers: 0, reasons: ['no peers'] })
    expect((await fetch(`${lonely.url}/health`)).status).toBe(200)
    await lonely.stop()
  })

  it('without --metrics nothing listens for metrics', async () => {
    const plain = await startNode()
    expect(plain.stdout()).not.toContain('Metrics:')
    await plain.stop()
  })
})

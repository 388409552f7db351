/**
 * What installed filters and subscriptions cost the node (issue 18, item 4): 300 transfers sent
 * one after another through eth_sendTransaction on a dev node (1 s blocks), timed until the last
 * receipt, with eth_blockNumber probed every 50 ms beside them — first on a node with nothing
 * installed, then with `filters` polling filters (a quarter block filters, a quarter pending
 * transaction filters, half log filters on distinct addresses) and `subscriptions` subscriptions
 * (half newHeads, half newPendingTransactions, over 10 WebSocket connections), the limits lifted
 * so the attack of the issue fits. Prints seconds, probe p50/p99 and RSS for each.
 *
 *   npm run build && node dist/bench/subscriptions-load.js [filters=100000] [subscriptions=10000] [transfers=300]
 */
import WebSocket from 'ws'
import { percentile, rpc, rssMiB, startBenchNode } from './node-process.js'

const FILTERS = Number(process.argv[2] ?? 100_000)
const SUBSCRIPTIONS = Number(process.argv[3] ?? 10_000)
const TRANSFERS = Number(process.argv[4] ?? 300)
/** Filters installed per JSON-RPC batch. */
const FILTER_BATCH = 1000
/** WebSocket connections the subscriptions are spread over. */
const CONNECTIONS = 10
const PROBE_INTERVAL_MS = 50
const SINK = '0x000000000000000000000000000000000000dEaD'

const UNLIMITED = [
  '--rpc.max-filters=0',
  '--rpc.max-filters-per-ip=0',
  '--ws.max-subscriptions=0',
  '--ws.max-subscriptions-per-ip=0',
  '--block-time',
  '1s',
  '--log-level',
  'warn',
]

function filterCall(k: number): { method: string; params: unknown[] } {
  if (k % 4 === 0) return { method: 'eth_newBlockFilter', params: [] }
  if (k % 4 === 1) return { method: 'eth_newPendingTransactionFilter', params: [] }
  return { method: 'eth_newFilter', params: [{ address: `0x${k.toString(16).padStart(40, '0')}` }] }
}

async function installFilters(url: string, n: number): Promise<void> {
  for (let start = 0; start < n; start += FILTER_BATCH) {
    const calls = []
    for (let k = start; k < Math.min(n, start + FILTER_BATCH); k++)
      calls.push({ jsonrpc: '2.0', id: k, ...filterCall(k) })
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(calls),
    })
    const answers = (await res.json()) as { error?: unknown }[]
    const failed = answers.find((a) => a.error !== undefined)
    if (failed !== undefined) throw new Error(`filter refused: ${JSON.stringify(failed.error)}`)
  }
}

async function subscribe(url: string, n: number): Promise<WebSocket[]> {
  const sockets: WebSocket[] = []
  const per = Math.ceil(n / CONNECTIONS)
  for (let c = 0; c < CONNECTIONS && c * per < n; c++) {
    const ws = new WebSocket(url.replace(/^http/, 'ws'))
    await new Promise((resolve, reject) => ws.once('open', resolve).once('error', reject))
    let answered = 0
    const count = Math.min(per, n - c * per)
    const done = new Promise<void>((resolve) =>
      ws.on('message', (data) => {
        if (String(data).includes('"id"') && ++answered === count) resolve()
      }),
    )
    for (let j = 0; j < count; j++) {
      const kind = j % 2 === 0 ? 'newHeads' : 'newPendingTransactions'
      ws.send(JSON.stringify({ jsonrpc: '2.0', id: j, method: 'eth_subscribe', params: [kind] }))
    }
    await done
    sockets.push(ws)
  }
  return sockets
}

async function measure(filters: number, subscriptions: number): Promise<Record<string, string | number>> {
  const node = await startBenchNode(UNLIMITED)
  let sockets: WebSocket[] = []
  try {
    await installFilters(node.url, filters)
    sockets = await subscribe(node.url, subscriptions)
    const accounts = await rpc<string[]>(node.url, 'eth_accounts')
    const probes: number[] = []
    let probing = true
    const probe = (async () => {
      while (probing) {
        const t = performance.now()
        await rpc(node.url, 'eth_blockNumber')
        probes.push(performance.now() - t)
        await new Promise((r) => setTimeout(r, PROBE_INTERVAL_MS))
      }
    })()
    const t0 = performance.now()
    const hashes: string[] = []
    for (let i = 0; i < TRANSFERS; i++) {
      const from = accounts[i % accounts.length]
      hashes.push(await rpc<string>(node.url, 'eth_sendTransaction', [{ from, to: SINK, value: '0x1' }]))
    }
    for (const h of hashes) {
      while ((await rpc(node.url, 'eth_getTransactionReceipt', [h])) === null)
        await new Promise((r) => setTimeout(r, 100))
    }
    const seconds = (performance.now() - t0) / 1000
    probing = false
    await probe
    return {
      filters,
      subscriptions,
      'transfers mined (s)': seconds.toFixed(2),
      'eth_blockNumber p50 (ms)': percentile(probes, 50).toFixed(1),
      'p99 (ms)': percentile(probes, 99).toFixed(1),
      'RSS (MiB)': Math.round(rssMiB(node.pid)),
    }
  } finally {
    for (const ws of sockets) ws.terminate()
    await node.stop()
  }
}

const rows = [
  await measure(0, 0),
  await measure(FILTERS, 0),
  await measure(0, SUBSCRIPTIONS),
  await measure(FILTERS, SUBSCRIPTIONS),
]
console.table(rows)

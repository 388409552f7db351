/**
 * Graceful shutdown: SIGTERM while a read mix (cheap reads, batches, eth_getLogs, eth_call, and
 * eth_calls that loop for seconds) hammers the node. Every request the node had received is
 * answered (200 with a JSON-RPC answer), the node reports none cut, exits 0 well inside
 * systemd's stop timeout, and the next start on the same datadir is clean.
 */
import { Pool } from 'undici'
import { afterAll, describe, expect, it } from 'vitest'

import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { cleanupNodes, rpc, startNode, waitForReceipt } from '../helpers/node.js'
import { sendTx } from '../helpers/tx.js'
import { call, post } from './client.js'

/** Runtime code `JUMPDEST PUSH1 0 JUMP`: loops until its gas or the eth_call time limit runs out. */
const LOOP_INIT_CODE = '0x635b6000566000526004601cf3'
/** Load before the signal, ms. */
const LOAD_BEFORE_SIGNAL_MS = 2000
/** Parallel clients of the read mix. */
const CLIENTS = 12
/** systemd's default stop timeout is 90 s; the unit sets 60 s. Shutdown must fit far inside. */
const STOP_BUDGET_MS = 15_000

type Outcome = 'answered' | 'refused-connection' | 'bad-answer'

interface Record_ {
  startedMs: number
  endedMs: number
  outcome: Outcome
  detail: string
}

/** Connection-level errors of requests the node never received (its listener closed, or an idle keep-alive socket it closed). */
const CONNECTION_CODES = new Set(['ECONNREFUSED', 'ECONNRESET', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED', 'EPIPE'])

afterAll(cleanupNodes)

describe('SIGTERM under a read-mix load', () => {
  it('answers every request the node received, exits 0, and starts clean again', async () => {
    // two call workers: the looping calls keep one busy, the read mix's eth_calls use the other
    const node = await startNode({ logLevel: 'info', args: ['--log-format', 'json', '--exec.workers', '2'] })
    const deployer = DEV_ACCOUNTS[0]
    const hash = await sendTx(node.url, deployer.privateKey, { to: null, data: LOOP_INIT_CODE, gas: 200_000n })
    const loop = (await waitForReceipt(node.url, hash)).contractAddress as string
    const head = await rpc<string>(node.url, 'eth_blockNumber')

    const mix = [
      () => call('eth_blockNumber'),
      () => call('eth_getBalance', [deployer.address, 'latest']),
      () => call('eth_getBlockByNumber', ['latest', true]),
      () => call('eth_getLogs', [{ fromBlock: '0x0', toBlock: 'latest' }]),
      () => call('eth_call', [{ to: '0x0000000000000000000000000000000000000004', data: '0x1234' }, 'latest']),
      () => [call('eth_chainId'), call('eth_getTransactionCount', [deployer.address, 'latest']), call('eth_gasPrice')],
    ]
    // 10M gas of a 12-gas loop: about a second of EVM work, so one is always running at SIGTERM
    const slow = () => call('eth_call', [{ to: loop, gas: '0x989680' }, 'latest'])
    const pool = new Pool(node.url, { connections: CLIENTS + 2 })
    const records: Record_[] = []
    let running = true
    const client = async (index: number) => {
      for (let i = 0; running; i++) {
        const body = index === 0 ? slow() : (mix[(index + i) % mix.length] as () => unknown)()
        const startedMs = performance.now()
        try {
          const r = await post(pool, body)
          const answers = Array.isArray(r.json) ? r.json : [r.json]
          const good =
            r.status === 200 &&
            answers.length > 0 &&
            answers.every((a) => a !== undefined && a.jsonrpc === '2.0' && ('result' in a || 'error' in a))
          // the looping call answers an error (out of gas / time limit): still an answer
          records.push({
            startedMs,
            endedMs: performance.now(),
            outcome: good ? 'answered' : 'bad-answer',
            detail: `${r.status} ${r.text.slice(0, 200)}`,
          })
        } catch (err) {
          const code = (err as { code?: string }).code ?? ''
          records.push({
            startedMs,
            endedMs: performance.now(),
            outcome: CONNECTION_CODES.has(code) ? 'refused-connection' : 'bad-answer',
            detail: `${code} ${(err as Error).message}`,
          })
          if (CONNECTION_CODES.has(code) && !node.isRunning()) break
          await new Promise((r) => setTimeout(r, 20))
        }
      }
    }
    const clients = Array.from({ length: CLIENTS }, (_, i) => client(i))
    await new Promise((r) => setTimeout(r, LOAD_BEFORE_SIGNAL_MS))
    const answeredBefore = records.filter((r) => r.outcome === 'answered').length
    const signalMs = performance.now()
    const status = await node.stop('SIGTERM', STOP_BUDGET_MS)
    const stopMs = performance.now() - signalMs
    running = false
    await Promise.all(clients)
    await pool.destroy()

    const bad = records.filter((r) => r.outcome === 'bad-answer')
    const answeredDuringDrain = records.filter(
      (r) => r.outcome === 'answered' && r.startedMs < signalMs && r.endedMs > signalMs,
    )
    console.log(
      `shutdown: ${answeredBefore} answered before SIGTERM, ${answeredDuringDrain.length} in flight at SIGTERM and answered, ` +
        `${records.filter((r) => r.outcome === 'refused-connection').length} refused at the connection after, exit in ${Math.round(stopMs)} ms`,
    )
    expect(bad.map((r) => r.detail)).toEqual([])
    expect(answeredBefore).toBeGreaterThan(10)
    expect(answeredDuringDrain.length).toBeGreaterThan(0)
    expect(status).toMatchObject({ code: 0, signal: null, timedOut: false })
    expect(stopMs).toBeLessThan(STOP_BUDGET_MS)
    const lines = node
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string; inFlight?: number; cut?: number })
    const drain = lines.find((l) => l.msg.startsWith('json-rpc stopped'))
    expect(drain, node.stderr()).toBeDefined()
    expect(drain?.cut).toBe(0)
    expect(lines.some((l) => l.msg === 'stopped cleanly: database closed')).toBe(true)
    expect(lines.filter((l) => l.level === 'error')).toEqual([])

    // the next start on the same datadir is clean: same chain, no warnings, ready at once
    const again = await startNode({ datadir: node.datadir, logLevel: 'info', args: ['--log-format', 'json'] })
    expect(await rpc<string>(again.url, 'eth_blockNumber')).toBe(head)
    expect(await rpc<string>(again.url, 'eth_getCode', [loop, 'latest'])).toBe('0x5b600056')
    const ready = await fetch(`${again.url}/ready`)
    expect(ready.status).toBe(200)
    const problems = again
      .stderr()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as { level: string; msg: string })
      .filter((l) => l.level === 'warn' || l.level === 'error')
    expect(problems).toEqual([])
    expect((await again.stop()).code).toBe(0)
  })
})

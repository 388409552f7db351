/**
 * The execution pool under faults, on a real node: eth_call's timeout and the tracer `timeout`
 * stop a pure-compute loop (the worker running it is terminated and replaced), a worker killed
 * mid-request answers -32603, full queues and oversized traces are refused with -32005 — and
 * through all of it the main thread keeps answering and the node keeps serving.
 *
 * The loop is 3 bytes of runtime code (JUMPDEST PUSH0 JUMP). The crash is injected with
 * IBEX_TEST_WORKER_EXIT (workers/execute.ts): a call to that address ends the worker thread.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Hex } from 'viem'
import { CALL_PIPELINE_DEPTH, TRACE_THREAD_NICE } from '../../src/exec/pool/constants.js'
import { DEV_ACCOUNTS } from '../helpers/dev.js'
import { cleanupNodes, type IbexNode, rpc, rpcResponse, startNode, waitFor, waitForReceipt } from '../helpers/node.js'
import { sendTx } from '../helpers/tx.js'

/** Init code returning the runtime 5b5f56: JUMPDEST PUSH0 JUMP, a loop that only gas ends. */
const SPIN_INITCODE: Hex = '0x625b5f565f526003601df3'
/** The address whose calls kill the call worker (fault injection). */
const CRASH_ADDRESS = `0x${'de'.repeat(20)}`
const EVM_TIMEOUT_MS = 1000
/** Under the response cap (25 MB), so it is the trace's own limit that applies. */
const TRACE_MAX_BYTES = 20_000_000
/**
 * Gas cap of this node and gas of the spinning calls: a JUMP loop burns 50M gas (the default
 * cap) in well under EVM_TIMEOUT_MS on the fast interpreter and would end `out of gas`; 2e9 keeps
 * it spinning for seconds on any path, so the timeout is what stops it.
 */
const SPIN_GAS = 2_000_000_000n
/** A main thread answering eth_blockNumber slower than this is blocked. */
const RESPONSIVE_MS = 250

let node: IbexNode
let spin: Hex
const sender = DEV_ACCOUNTS[0]

beforeAll(async () => {
  process.env.IBEX_TEST_WORKER_EXIT = CRASH_ADDRESS
  node = await startNode({
    port: 'free',
    args: [
      '--http.api',
      'eth,net,web3,txpool,debug',
      '--rpc.evmtimeout',
      `${EVM_TIMEOUT_MS}ms`,
      '--rpc.gascap',
      String(SPIN_GAS),
      '--exec.workers',
      '1',
      '--exec.call-queue',
      '2',
      '--exec.trace-queue',
      '1',
      '--exec.queue-timeout',
      '2s',
      '--exec.trace-max-bytes',
      String(TRACE_MAX_BYTES),
    ],
  })
  const hash = await sendTx(node.url, sender.privateKey, { to: null, data: SPIN_INITCODE, gas: 100_000n })
  spin = (await waitForReceipt(node.url, hash)).contractAddress
  // the call worker boots after the node serves: wait until it answers
  await waitFor(
    () =>
      rpc(node.url, 'eth_call', [{ to: sender.address }, 'latest']).then(
        () => true,
        () => false,
      ),
    { timeoutMs: 30_000, what: 'the call worker' },
  )
}, 60_000)

afterAll(async () => {
  delete process.env.IBEX_TEST_WORKER_EXIT
  await cleanupNodes()
})

/** Milliseconds eth_blockNumber takes, worst of `n` tries. */
async function worstBlockNumberMs(n: number): Promise<number> {
  let worst = 0
  for (let i = 0; i < n; i++) {
    const t = performance.now()
    await rpc(node.url, 'eth_blockNumber')
    worst = Math.max(worst, performance.now() - t)
  }
  return worst
}

const spinCall = () => ({ from: sender.address, to: spin, gas: `0x${SPIN_GAS.toString(16)}` })

async function stillServing(): Promise<void> {
  expect(await rpc(node.url, 'eth_call', [{ to: sender.address }, 'latest'])).toBe('0x')
  expect(await rpc(node.url, 'eth_call', [spinCall(), 'latest']).catch((e) => e.message)).toMatch(/timeout = 1s/)
  expect(
    await rpc(node.url, 'eth_estimateGas', [{ from: sender.address, to: DEV_ACCOUNTS[1].address, value: '0x1' }]),
  ).toBe('0x5208')
}

describe('timeouts', () => {
  it('eth_call stops at the evm timeout; the main thread answers meanwhile', async () => {
    const t0 = performance.now()
    const pending = rpcResponse(node.url, 'eth_call', [spinCall(), 'latest'])
    const worst = await worstBlockNumberMs(10)
    const res = await pending
    const elapsed = performance.now() - t0
    expect(res.error).toEqual({ code: -32000, message: 'execution aborted (timeout = 1s)' })
    expect(elapsed).toBeGreaterThanOrEqual(EVM_TIMEOUT_MS - 50)
    expect(elapsed).toBeLessThan(EVM_TIMEOUT_MS + 2000)
    expect(worst).toBeLessThan(RESPONSIVE_MS)
    await stillServing()
  })

  it('eth_estimateGas is bounded by the same timeout', async () => {
    const res = await rpcResponse(node.url, 'eth_estimateGas', [spinCall()])
    expect(res.error?.code).toBe(-32000)
    await stillServing()
  })

  it('a trace stops at its `timeout` with geth\'s "execution timeout"', async () => {
    // 100 ms: the struct logger outgrows TRACE_MAX_BYTES in ~250 ms of this loop on the dev box
    for (const options of [
      { timeout: '100ms' },
      { timeout: '100ms', tracer: 'callTracer' },
      { timeout: '100ms', tracer: 'prestateTracer' },
    ]) {
      const t0 = performance.now()
      const res = await rpcResponse(node.url, 'debug_traceCall', [
        { ...spinCall(), gas: '0x5f5e100' },
        'latest',
        { ...options, enableMemory: false, disableStack: true },
      ])
      const elapsed = performance.now() - t0
      expect(res.error, JSON.stringify(options)).toEqual({ code: -32000, message: 'execution timeout' })
      expect(elapsed).toBeLessThan(2500)
    }
    expect(await worstBlockNumberMs(3)).toBeLessThan(RESPONSIVE_MS)
  })

  it("a bad timeout is geth's Go duration error", async () => {
    const res = await rpcResponse(node.url, 'debug_traceCall', [spinCall(), 'latest', { timeout: '5 s' }])
    expect(res.error).toEqual({ code: -32000, message: 'time: unknown unit " s" in duration "5 s"' })
  })
})

describe('faults and limits', () => {
  it('a worker killed mid-request answers -32603; a new worker serves the next request', async () => {
    for (let i = 0; i < 2; i++) {
      const res = await rpcResponse(node.url, 'eth_call', [{ to: CRASH_ADDRESS }, 'latest'])
      expect(res.error?.code).toBe(-32603)
      expect(await worstBlockNumberMs(3)).toBeLessThan(RESPONSIVE_MS)
      // the replacement worker boots (module loading, ~1 s) before it takes calls
      await waitFor(
        () =>
          rpc(node.url, 'eth_call', [{ to: sender.address }, 'latest']).then(
            () => true,
            () => false,
          ),
        { timeoutMs: 15_000, what: 'a replacement worker' },
      )
      await stillServing()
    }
  })

  it('a full call queue refuses at once with -32005', async () => {
    // the only worker holds CALL_PIPELINE_DEPTH calls (one runs, the rest wait in its inbox), two
    // more wait in the queue (call_queue = 2): the next one is refused
    const running = Array.from({ length: CALL_PIPELINE_DEPTH + 2 }, () =>
      rpcResponse(node.url, 'eth_call', [spinCall(), 'latest']),
    )
    await new Promise((r) => setTimeout(r, 100))
    const t0 = performance.now()
    const refused = await rpcResponse(node.url, 'eth_call', [spinCall(), 'latest'])
    expect(performance.now() - t0).toBeLessThan(RESPONSIVE_MS)
    expect(refused.error?.code).toBe(-32005)
    expect(refused.error?.message).toMatch(/^limit exceeded/)
    // the first runs its 1 s out; the rest run theirs, or are refused busy (-32005) when no worker
    // takes them within exec.queue_timeout (2 s) — never charged with the others' time
    const answers = await Promise.all(running)
    expect(answers.filter((r) => r.error?.message === 'execution aborted (timeout = 1s)').length).toBeGreaterThan(0)
    for (const r of answers) {
      if (r.error?.code === -32005) expect(r.error.message).toMatch(/^busy: request not run/)
      else expect(r.error?.message).toBe('execution aborted (timeout = 1s)')
    }
    await stillServing()
  })

  it('runs traces on a thread of lower priority than the main thread (Linux niceness)', async () => {
    const niceOf = (tid: string) => {
      // the fields after the command's closing parenthesis: nice is the 17th of them
      const stat = readFileSync(`/proc/${node.pid}/task/${tid}/stat`, 'utf8')
      return Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[16])
    }
    const threads = readdirSync(`/proc/${node.pid}/task`)
    expect(niceOf(String(node.pid))).toBe(0)
    expect(threads.filter((t) => niceOf(t) === TRACE_THREAD_NICE).length).toBeGreaterThanOrEqual(1)
  })

  it('a trace larger than trace_max_bytes stops with -32005 instead of growing', async () => {
    const res = await rpcResponse(node.url, 'debug_traceCall', [
      { ...spinCall(), gas: '0x5f5e100' },
      'latest',
      { enableMemory: true, timeout: '30s' },
    ])
    expect(res.error?.code).toBe(-32005)
    expect(res.error?.message).toContain(`exceeds the limit of ${TRACE_MAX_BYTES} bytes`)
    await stillServing()
  })
})

describe('the debug namespace', () => {
  it('is served only when `debug` is in the api list', async () => {
    // the dev preset serves debug by default (cast run needs it): name the namespaces without it
    const plain = await startNode({ port: 'free', args: ['--http.api', 'eth,net,web3'] })
    const res = await rpcResponse(plain.url, 'debug_traceTransaction', [`0x${'00'.repeat(32)}`])
    expect(res.error).toEqual({
      code: -32601,
      message: 'the method debug_traceTransaction does not exist/is not available',
    })
    await plain.stop()
  })
})

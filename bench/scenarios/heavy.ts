/**
 * Heavy execution beside a cheap probe: does a node keep answering eth_blockNumber while clients
 * make it run the most expensive messages its gas cap allows?
 *
 *   deploy LOOP (a counted JUMP loop, 40 gas a turn) ─▶ one of each heavy method alone (timed)
 *   ─▶ probe alone: eth_blockNumber, open loop at PROBE_RATE_PER_S
 *   ─▶ probe again while HEAVY_CLIENTS closed loops send eth_call, eth_estimateGas,
 *      eth_createAccessList and eth_simulateV1 of a ~HEAVY_GAS loop (each client starts at a
 *      different method and takes them in turn)
 *
 * The figure is the probe's p50/p99/max beside the heavy load (issue 16's target: p99 < 20 ms; a
 * node that runs the EVM on its serving thread answers in seconds). Heavy requests are counted as
 * completed (a result), timed out (the node's EVM deadline, or no answer within
 * HEAVY_TIMEOUT_MS), refused (HTTP 429/503 or -32005: a full queue) or failed (any other error).
 * Each heavy request asks for a slightly different loop count, so no result cache answers it.
 * Bounded: HEAVY_SECONDS of load, at most HEAVY_MAX_PER_CLIENT requests a client, then the
 * requests in flight are awaited (each at most HEAVY_TIMEOUT_MS).
 */
import { generate, whileMeasuring } from '../load/index.js'
import type { RunningNode } from '../peers/types.js'
import { rpc, waitReceipt } from '../rpc.js'
import { bytes, signTx } from '../seed/sign.js'
import { type Row, rowOf, type Scenario, type ScenarioContext } from './types.js'

/** Gas each heavy message may use: the 30M (geth's default cap is 50M). */
export const HEAVY_GAS = 30_000_000
/** Gas one turn of the loop costs (JUMPDEST DUP1 ISZERO PUSH1 JUMPI PUSH1 SWAP1 SUB PUSH1 JUMP). */
const LOOP_TURN_GAS = 40
/** Gas left unburnt under HEAVY_GAS: intrinsic gas, calldata, and estimateGas's search bound. */
const LOOP_GAS_MARGIN = 200_000
/** Loop counts vary by up to this many turns (≈40k gas), one per request, to defeat result caches. */
const LOOP_VARIATION = 1000
/** Concurrent heavy clients (the 8). */
export const HEAVY_CLIENTS = 8
/** Seconds the probe is measured beside the heavy load (after PROBE_WARMUP_MS). */
const HEAVY_SECONDS = 20
/** Heavy load runs this long before the probe's window opens (every client has a request in). */
const PROBE_WARMUP_MS = 2000
/** Most requests one heavy client sends (bounds a fast node's run). */
const HEAVY_MAX_PER_CLIENT = 2000
/** A heavy request unanswered this long counts as timed out (the node's own deadline is 5 s). */
const HEAVY_TIMEOUT_MS = 60_000
/** eth_blockNumber probes per second, open loop (latency counted from the scheduled time). */
export const PROBE_RATE_PER_S = 50
const PROBE_CONNECTIONS = 8
/** A probe unanswered this long counts as failed; the histogram keeps the late answers' times. */
const PROBE_TIMEOUT_MS = 30_000
/** The target for the probe's p99 beside the heavy load. */
export const PROBE_P99_TARGET_MS = 20

export const HEAVY_METHODS = ['eth_call', 'eth_estimateGas', 'eth_createAccessList', 'eth_simulateV1'] as const
type HeavyMethod = (typeof HEAVY_METHODS)[number]

/**
 * Runtime: n = calldata word 0; while (n != 0) n -= 1; stop.
 *   00 PUSH1 0 CALLDATALOAD | 03 JUMPDEST DUP1 ISZERO PUSH1 0x10 JUMPI PUSH1 1 SWAP1 SUB PUSH1 3 JUMP
 *   | 10 JUMPDEST STOP
 */
const LOOP_RUNTIME = '6000355b801560105760019003600356' + '5b00'
/** Init code: CODECOPY the runtime (18 bytes at offset 12) to memory and RETURN it. */
const LOOP_INIT = `0x6012600c60003960126000f3${LOOP_RUNTIME}`

/** Loop turns that burn about HEAVY_GAS - LOOP_GAS_MARGIN. */
export const LOOP_TURNS = Math.floor((HEAVY_GAS - LOOP_GAS_MARGIN) / LOOP_TURN_GAS)

interface Outcome {
  completed: number
  timedOut: number
  refused: number
  failed: number
  ms: number[]
  /** First message of each kind of error, for the notes. */
  firstError?: string
}

function heavyBody(method: HeavyMethod, from: string, to: string, turns: number, id: number): string {
  const call = { from, to, gas: `0x${HEAVY_GAS.toString(16)}`, data: `0x${turns.toString(16).padStart(64, '0')}` }
  const params = method === 'eth_simulateV1' ? [{ blockStateCalls: [{ calls: [call] }] }, 'latest'] : [call, 'latest']
  return JSON.stringify({ jsonrpc: '2.0', id, method, params })
}

/** One heavy request, classified. */
async function sendHeavy(url: string, body: string, out: Outcome): Promise<void> {
  const t = performance.now()
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
      signal: AbortSignal.timeout(HEAVY_TIMEOUT_MS),
    })
    const text = await res.text()
    out.ms.push(performance.now() - t)
    if (res.status === 429 || res.status === 503) {
      out.refused++
      return
    }
    const json = JSON.parse(text) as { result?: unknown; error?: { code: number; message: string } }
    if (json.error === undefined) out.completed++
    else if (json.error.code === -32005) out.refused++
    else if (/timeout|timed out|aborted/i.test(json.error.message)) out.timedOut++
    else {
      out.failed++
      out.firstError ??= `[${json.error.code}] ${json.error.message}`.slice(0, 160)
    }
  } catch (err) {
    out.ms.push(performance.now() - t)
    if (err instanceof Error && err.name === 'TimeoutError') out.timedOut++
    else {
      out.failed++
      out.firstError ??= String(err).slice(0, 160)
    }
  }
}

function pct(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number
}

/** Deploys the loop from the seed's deployer and returns its address (auto-mining nodes). */
async function deployLoop(ctx: ScenarioContext, node: RunningNode): Promise<string> {
  const from = ctx.plan.deployer.hex
  const nonce = BigInt(await rpc<string>(node.url, 'eth_getTransactionCount', [from, 'latest']))
  const tx = signTx(ctx.plan.deployer, { nonce, to: undefined, value: 0n, data: bytes(LOOP_INIT), gas: 200_000n })
  await rpc(node.url, 'eth_sendRawTransaction', [tx.raw])
  const receipt = await waitReceipt(node.url, tx.hash)
  if (receipt.status !== '0x1' || typeof receipt.contractAddress !== 'string')
    throw new Error(`loop deployment failed on ${node.name}: ${JSON.stringify(receipt).slice(0, 200)}`)
  return receipt.contractAddress
}

/** HEAVY_CLIENTS closed loops until `stop()` is true or their count is spent; one Outcome per method. */
async function heavyLoad(
  url: string,
  from: string,
  to: string,
  stop: () => boolean,
): Promise<Map<HeavyMethod, Outcome>> {
  const outcomes = new Map<HeavyMethod, Outcome>(
    HEAVY_METHODS.map((m) => [m, { completed: 0, timedOut: 0, refused: 0, failed: 0, ms: [] }]),
  )
  let id = 0
  const client = async (c: number): Promise<void> => {
    for (let i = 0; i < HEAVY_MAX_PER_CLIENT && !stop(); i++) {
      const method = HEAVY_METHODS[(c + i) % HEAVY_METHODS.length] as HeavyMethod
      const turns = LOOP_TURNS - (id % LOOP_VARIATION)
      await sendHeavy(url, heavyBody(method, from, to, turns, ++id), outcomes.get(method) as Outcome)
    }
  }
  await Promise.all(Array.from({ length: HEAVY_CLIENTS }, (_, c) => client(c)))
  return outcomes
}

export const heavy: Scenario = {
  name: 'heavy',
  title: `eth_blockNumber at ${PROBE_RATE_PER_S}/s beside ${HEAVY_CLIENTS} clients looping ${HEAVY_GAS / 1e6}M-gas eth_call, eth_estimateGas, eth_createAccessList, eth_simulateV1`,
  async run(ctx) {
    const rows: Row[] = []
    const notes: string[] = []
    const probe = [{ tag: 'eth_blockNumber', body: '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' }]
    const probeJob = (node: RunningNode, seconds: number) => ({
      url: node.url,
      requests: probe,
      connections: PROBE_CONNECTIONS,
      rate: PROBE_RATE_PER_S,
      durationMs: seconds * 1000,
      warmupMs: PROBE_WARMUP_MS,
      timeoutMs: PROBE_TIMEOUT_MS,
    })
    for (const node of ctx.nodes) {
      await whileMeasuring(node.url, async () => {
        const from = ctx.plan.deployer.hex
        const to = await deployLoop(ctx, node)
        // one of each alone: how long a single heavy request holds the node
        const single: string[] = []
        for (const m of HEAVY_METHODS) {
          const one: Outcome = { completed: 0, timedOut: 0, refused: 0, failed: 0, ms: [] }
          await sendHeavy(node.url, heavyBody(m, from, to, LOOP_TURNS, 0), one)
          const state = one.completed === 1 ? '' : one.timedOut === 1 ? ' timed out' : ` ${one.firstError ?? 'refused'}`
          single.push(`${m} ${((one.ms[0] ?? Number.NaN) / 1000).toFixed(2)} s${state}`)
        }
        notes.push(`${node.name}: one request alone: ${single.join(', ')}`)
        ctx.log(`  ${node.name.padEnd(9)} alone: ${single.join(', ')}`)

        const alone = await generate(probeJob(node, ctx.opts.seconds), ctx.gen)
        rows.push(rowOf(node.name, 'eth_blockNumber alone', alone, { maxMs: alone.max.toFixed(1) }))

        let stopped = false
        const load = heavyLoad(node.url, from, to, () => stopped)
        const t = performance.now()
        const beside = await generate(probeJob(node, HEAVY_SECONDS), ctx.gen).finally(() => {
          stopped = true
        })
        const outcomes = await load
        const seconds = (performance.now() - t) / 1000
        rows.push(
          rowOf(node.name, `eth_blockNumber beside ${HEAVY_CLIENTS} heavy clients`, beside, {
            maxMs: beside.max.toFixed(1),
          }),
        )
        const totals = { completed: 0, timedOut: 0, refused: 0, failed: 0 }
        for (const [m, o] of outcomes) {
          const sent = o.completed + o.timedOut + o.refused + o.failed
          totals.completed += o.completed
          totals.timedOut += o.timedOut
          totals.refused += o.refused
          totals.failed += o.failed
          rows.push({
            node: node.name,
            label: `${m} (${HEAVY_GAS / 1e6}M gas)`,
            rps: o.completed / seconds,
            p50: pct(o.ms, 50),
            p99: pct(o.ms, 99),
            success: sent === 0 ? 1 : o.completed / sent,
            errors: sent - o.completed,
            extra: { completed: o.completed, timedOut: o.timedOut, refused: o.refused, failed: o.failed },
          })
          if (o.firstError !== undefined) notes.push(`${node.name}: ${m} failed with ${o.firstError}`)
        }
        const held = beside.p99 < PROBE_P99_TARGET_MS && beside.success === 1
        const line =
          `probe p50 ${beside.p50.toFixed(1)} / p99 ${beside.p99.toFixed(1)} / max ${beside.max.toFixed(0)} ms ` +
          `(alone ${alone.p50.toFixed(1)} / ${alone.p99.toFixed(1)}), ${(beside.success * 100).toFixed(1)}% answered in time; ` +
          `heavy: ${totals.completed} completed, ${totals.timedOut} timed out, ${totals.refused} refused, ${totals.failed} failed ` +
          `in ${seconds.toFixed(0)} s (p99 < ${PROBE_P99_TARGET_MS} ms: ${held ? 'held' : 'did not hold'})`
        notes.push(`${node.name}: ${line}`)
        ctx.log(`  ${node.name.padEnd(9)} ${line}`)
      })
    }
    return { name: 'heavy', title: this.title, unit: 'req/s', rows, notes }
  },
}

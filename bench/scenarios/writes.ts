/**
 * The write path: the node seals a block every second; pre-signed value transfers from every
 * funded sender (round-robin over senders, nonces in order) arrive through eth_sendRawTransaction
 * at opts.writeRate for opts.writeSeconds, open loop. A poller watches new blocks and stamps when
 * each transaction first appears in one. Reported: transactions finalized per second (included /
 * time from the first send to the last inclusion), the fullest block, send-to-receipt latency
 * (from each transaction's scheduled send), and refused or unanswered sends.
 */
import { performance } from 'node:perf_hooks'
import { Histogram } from '../load/histogram.js'
import { buildRequest, Http1Connection } from '../load/http1.js'
import { whileMeasuring } from '../load/index.js'
import type { RunningNode } from '../peers/types.js'
import { rpc } from '../rpc.js'
import { bytes, type SignedTx, signTx } from '../seed/sign.js'
import type { Row, Scenario, ScenarioContext } from './types.js'

/** Connections the sender uses. */
export const WRITE_CONNECTIONS = 32
/** A send still queued this long after its time is given up. */
const SEND_LATE_MS = 5_000
/** After the last send, how long to wait for the rest to be included. */
const DRAIN_MS = 20_000
/** How often the poller asks for new blocks. */
const POLL_MS = 50
const SINK = bytes(`0x${'5e'.repeat(20)}`)

/** Transfers of 1 wei: `count` of them, round-robin over the plan's senders. */
export function presignTransfers(ctx: ScenarioContext, count: number): SignedTx[] {
  const senders = ctx.plan.senders
  const out: SignedTx[] = []
  for (let i = 0; i < count; i++) {
    const key = senders[i % senders.length] as (typeof senders)[number]
    out.push(
      signTx(key, {
        nonce: BigInt(Math.floor(i / senders.length)),
        to: SINK,
        value: 1n,
        data: new Uint8Array(0),
        gas: 21_000n,
      }),
    )
  }
  return out
}

interface WriteOutcome {
  accepted: number
  refused: number
  unanswered: number
  included: number
  seconds: number
  fullestBlock: number
  blocks: number
  latency: Histogram
  /** Why sends were refused: message → count. */
  reasons: Map<string, number>
}

async function drive(node: RunningNode, txs: SignedTx[], rate: number): Promise<WriteOutcome> {
  const u = new URL(node.url)
  const index = new Map<string, number>()
  const requests = txs.map((t, i) => {
    index.set(t.hash, i)
    return buildRequest(
      u.host,
      '/',
      JSON.stringify({ jsonrpc: '2.0', id: i, method: 'eth_sendRawTransaction', params: [t.raw] }),
    )
  })
  const dueAt = new Float64Array(txs.length)
  const includedAt = new Float64Array(txs.length)
  let accepted = 0
  let refused = 0
  let answered = 0
  const conns: Http1Connection[] = []
  const reasons = new Map<string, number>()
  for (let i = 0; i < WRITE_CONNECTIONS; i++) {
    const c = new Http1Connection(Number(u.port), u.hostname, () => undefined)
    c.keepBodies = true
    conns.push(c)
  }
  await Promise.all(conns.map((c) => c.ready()))
  const idle = [...conns]
  const queue: number[] = []
  let qHead = 0
  const t0 = performance.now()
  let issued = 0
  const pump = (): void => {
    while (idle.length > 0 && qHead < queue.length) {
      const i = queue[qHead++] as number
      if (performance.now() - (dueAt[i] as number) > SEND_LATE_MS) continue
      const c = idle.pop() as Http1Connection
      c.send(
        requests[i] as Buffer,
        (a) => {
          answered++
          if (a.status === 200 && a.rpcErrors === 0) accepted++
          else {
            refused++
            const why =
              a.status !== 200
                ? `HTTP ${a.status}`
                : (/"message":"([^"]*)"/.exec(a.body?.toString() ?? '')?.[1] ?? 'error')
            reasons.set(why, (reasons.get(why) ?? 0) + 1)
          }
          idle.push(c)
          pump()
        },
        () => undefined,
      )
    }
  }
  const ticker = setInterval(() => {
    const due = Math.min(txs.length, Math.floor(((performance.now() - t0) * rate) / 1000))
    while (issued < due) {
      dueAt[issued] = t0 + (issued * 1000) / rate
      queue.push(issued++)
    }
    pump()
  }, 1)

  // the poller: new blocks → inclusion times
  let last = Number(BigInt(await rpc<string>(node.url, 'eth_blockNumber')))
  let included = 0
  let fullest = 0
  let blocks = 0
  let lastInclusion = t0
  const sendEnd = t0 + (txs.length * 1000) / rate
  while (performance.now() < sendEnd + DRAIN_MS) {
    await new Promise((r) => setTimeout(r, POLL_MS))
    if (issued >= txs.length && qHead >= queue.length && included >= accepted && performance.now() > sendEnd + 1500)
      break
    let head: number
    try {
      head = Number(BigInt(await rpc<string>(node.url, 'eth_blockNumber', [], 10_000)))
    } catch {
      continue
    }
    for (let n = last + 1; n <= head; n++) {
      const block = await rpc<{ transactions: string[] } | null>(
        node.url,
        'eth_getBlockByNumber',
        [`0x${n.toString(16)}`, false],
        30_000,
      )
      const now = performance.now()
      let mine = 0
      for (const h of block?.transactions ?? []) {
        const i = index.get(h.toLowerCase())
        if (i === undefined || includedAt[i] !== 0) continue
        includedAt[i] = now
        mine++
      }
      if (mine > 0) {
        blocks++
        included += mine
        lastInclusion = now
        if (mine > fullest) fullest = mine
      }
    }
    last = head
  }
  clearInterval(ticker)
  for (const c of conns) c.close()
  const latency = new Histogram()
  for (let i = 0; i < txs.length; i++)
    if (includedAt[i] !== 0) latency.record(((includedAt[i] as number) - (dueAt[i] as number)) * 1000)
  return {
    accepted,
    refused,
    unanswered: txs.length - answered,
    included,
    seconds: (lastInclusion - t0) / 1000,
    fullestBlock: fullest,
    blocks,
    latency,
    reasons,
  }
}

export const writes: Scenario = {
  name: 'writes',
  title: 'Write path: pre-signed transfers via eth_sendRawTransaction, 1 s blocks',
  async run(ctx) {
    const rows: Row[] = []
    const notes: string[] = []
    const count = Math.round(ctx.opts.writeRate * ctx.opts.writeSeconds)
    const t = performance.now()
    const txs = presignTransfers(ctx, count)
    ctx.log(
      `  signed ${count} transfers from ${Math.min(count, ctx.plan.senders.length)} senders in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    )
    for (const original of [...ctx.nodes]) {
      const node = await ctx.intervalMining(original, 1)
      const o = await whileMeasuring(node.url, () => drive(node, txs, ctx.opts.writeRate))
      const tps = o.seconds > 0 ? o.included / o.seconds : 0
      rows.push({
        node: node.name,
        label: `${ctx.opts.writeRate} tx/s offered for ${ctx.opts.writeSeconds} s`,
        rps: tps,
        p50: o.latency.percentileMs(50),
        p99: o.latency.percentileMs(99),
        success: o.included / count,
        errors: o.refused + o.unanswered,
        extra: {
          accepted: o.accepted,
          refused: o.refused,
          unanswered: o.unanswered,
          included: o.included,
          fullestBlock: o.fullestBlock,
          blocks: o.blocks,
        },
      })
      if (o.reasons.size > 0) {
        notes.push(`${node.name} refusals: ${[...o.reasons].map(([m, n]) => `${n}× "${m}"`).join(', ')}`)
      }
      ctx.log(
        `  ${node.name.padEnd(9)} ${Math.round(tps)} tx/s finalized (${o.included}/${count} included, fullest block ${o.fullestBlock}), send→receipt p50 ${o.latency.percentileMs(50).toFixed(0)} ms p99 ${o.latency.percentileMs(99).toFixed(0)} ms, refused ${o.refused}, unanswered ${o.unanswered}`,
      )
    }
    return {
      name: 'writes',
      title: this.title,
      unit: 'tx/s finalized',
      rows,
      notes: [
        ...notes,
        "p50/p99: from each transaction's scheduled send to the poller seeing it in a block (50 ms polling).",
      ],
    }
  },
}

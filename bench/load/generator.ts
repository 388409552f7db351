/**
 * The load generator: closed loop (every connection sends its next request as soon as the last
 * is answered: the throughput ceiling) or open loop (requests issued on a fixed schedule,
 * whatever the node's speed; latency counted from the scheduled time, so a stalled node cannot
 * hide its queue — no coordinated omission).
 *
 * A request is a success when it is answered 200 with no JSON-RPC error object in its body;
 * HTTP errors, JSON-RPC errors, broken connections and requests unanswered within the timeout
 * are counted apart. Requests are taken round-robin from the job's list (already weighted).
 */
import { performance } from 'node:perf_hooks'
import { Histogram } from './histogram.js'
import { type Answer, buildRequest, Http1Connection } from './http1.js'

export interface LoadRequest {
  /** What the request is (method name, scenario part): results are also kept per tag. */
  tag: string
  body: string
  /** JSON-RPC calls the body carries (a batch of n: n). */
  calls?: number
}

export interface LoadJob {
  url: string
  requests: LoadRequest[]
  connections: number
  durationMs: number
  /** Answers in the first warmupMs are not counted. */
  warmupMs: number
  /** Open loop at this many requests/s (all connections together); absent = closed loop. */
  rate?: number
  /** A request not answered this long after it was due counts as failed. */
  timeoutMs: number
  /** Where in the request list to start (generators sharing a job use different offsets). */
  offset?: number
}

export interface TagResult {
  sent: number
  ok: number
  httpErrors: number
  rpcErrors: number
  /** Unanswered (connection lost, timed out, still queued at the end). */
  failed: number
  /** Sparse latency histogram (see histogram.ts) of every answered request. */
  latency: [number, number][]
  maxUs: number
  bodyBytes: number
}

export interface LoadResult {
  /** Measured window, seconds (after warmup). */
  seconds: number
  /** Calls per request, summed over sent requests (batches). */
  calls: number
  tags: Record<string, TagResult>
}

class TagStats {
  sent = 0
  ok = 0
  httpErrors = 0
  rpcErrors = 0
  bodyBytes = 0
  readonly hist = new Histogram()

  toResult(): TagResult {
    return {
      sent: this.sent,
      ok: this.ok,
      httpErrors: this.httpErrors,
      rpcErrors: this.rpcErrors,
      failed: this.sent - this.ok - this.httpErrors - this.rpcErrors,
      latency: this.hist.toSparse(),
      maxUs: this.hist.maxUs,
      bodyBytes: this.bodyBytes,
    }
  }
}

interface Prepared {
  tag: string
  bytes: Buffer
  calls: number
  stats: TagStats
}

export async function runLoad(job: LoadJob): Promise<LoadResult> {
  const u = new URL(job.url)
  const port = Number(u.port || 80)
  const host = u.hostname
  const tags = new Map<string, TagStats>()
  const prepared: Prepared[] = job.requests.map((r) => {
    let stats = tags.get(r.tag)
    if (stats === undefined) {
      stats = new TagStats()
      tags.set(r.tag, stats)
    }
    return { tag: r.tag, bytes: buildRequest(u.host, u.pathname || '/', r.body), calls: r.calls ?? 1, stats }
  })
  if (prepared.length === 0) throw new Error('no requests')
  let next = (job.offset ?? 0) % prepared.length
  const take = (): Prepared => {
    const p = prepared[next] as Prepared
    next = next + 1 === prepared.length ? 0 : next + 1
    return p
  }

  // set once the connections are up: the window is [countFrom, stopAt)
  let countFrom = Number.POSITIVE_INFINITY
  let stopAt = Number.POSITIVE_INFINITY
  let calls = 0
  let stopped = false
  let inflight = 0
  const idle: Http1Connection[] = []
  let settle: (() => void) | undefined

  /** Issued at `dueAt`: counted when inside the window. */
  const issue = (p: Prepared, dueAt: number): boolean => {
    const counted = dueAt >= countFrom && dueAt < stopAt
    if (counted) {
      p.stats.sent++
      calls += p.calls
    }
    return counted
  }
  // unanswered requests are what is left of `sent` (TagStats.toResult)
  const finish = (p: Prepared, dueAt: number, counted: boolean, a: Answer | undefined): void => {
    inflight--
    if (counted && a !== undefined) {
      const s = p.stats
      const us = (performance.now() - dueAt) * 1000
      s.hist.record(us)
      s.bodyBytes += a.bodyBytes
      if (us <= job.timeoutMs * 1000) {
        if (a.status !== 200) s.httpErrors++
        else if (a.rpcErrors > 0) s.rpcErrors++
        else s.ok++
      }
    }
    if (stopped && inflight === 0) settle?.()
  }

  const connections: Http1Connection[] = []
  const open = (): Http1Connection => {
    const c: Http1Connection = new Http1Connection(port, host, (conn) => {
      // the server closed it: replace it while the run lasts
      const i = connections.indexOf(conn)
      if (i >= 0) connections.splice(i, 1)
      const j = idle.indexOf(conn)
      if (j >= 0) idle.splice(j, 1)
      if (!stopped) {
        const fresh = open()
        fresh.ready().then(
          () => release(fresh),
          () => undefined,
        )
      }
    })
    connections.push(c)
    return c
  }

  // open loop: a queue of due requests; closed loop: each connection re-sends when answered
  const queue: { p: Prepared; dueAt: number; counted: boolean }[] = []
  let queueHead = 0
  const release = (c: Http1Connection): void => {
    if (stopped || c.closed) return
    if (job.rate === undefined) {
      const p = take()
      const now = performance.now()
      send(c, p, now, issue(p, now))
      return
    }
    const now = performance.now()
    while (queueHead < queue.length) {
      const q = queue[queueHead++] as { p: Prepared; dueAt: number; counted: boolean }
      // waited past its timeout: never sent, counted unanswered
      if (now - q.dueAt > job.timeoutMs) continue
      send(c, q.p, q.dueAt, q.counted)
      return
    }
    idle.push(c)
  }
  const send = (c: Http1Connection, p: Prepared, dueAt: number, counted: boolean): void => {
    inflight++
    c.send(
      p.bytes,
      (a) => {
        finish(p, dueAt, counted, a)
        release(c)
      },
      () => finish(p, dueAt, counted, undefined),
    )
  }

  for (let i = 0; i < job.connections; i++) open()
  await Promise.all(connections.map((c) => c.ready()))
  const started = performance.now()
  countFrom = started + job.warmupMs
  stopAt = countFrom + job.durationMs

  let ticker: NodeJS.Timeout | undefined
  if (job.rate === undefined) {
    for (const c of [...connections]) release(c)
  } else {
    const rate = job.rate
    let issued = 0
    idle.push(...connections)
    const tick = (): void => {
      const now = performance.now()
      // request k is due at started + k/rate: every k with a due time already past is queued now
      // (floor(...) would queue each one a whole interval late: +20 ms at 50/s)
      const due = Math.ceil(((Math.min(now, stopAt) - started) * rate) / 1000)
      while (issued < due) {
        const dueAt = started + (issued * 1000) / rate
        issued++
        const p = take()
        queue.push({ p, dueAt, counted: issue(p, dueAt) })
      }
      if (queueHead > 4096 && queueHead * 2 > queue.length) {
        queue.splice(0, queueHead)
        queueHead = 0
      }
      while (idle.length > 0 && queueHead < queue.length) release(idle.pop() as Http1Connection)
    }
    ticker = setInterval(tick, 1)
  }

  await new Promise((r) => setTimeout(r, Math.max(0, stopAt - performance.now())))
  stopped = true
  if (ticker !== undefined) clearInterval(ticker)
  // let what is in flight finish (up to the timeout); queued requests are never sent
  if (inflight > 0) {
    await new Promise<void>((r) => {
      settle = r
      setTimeout(r, job.timeoutMs).unref()
    })
  }
  for (const c of connections) c.close()
  const out: Record<string, TagResult> = {}
  for (const [tag, s] of tags) out[tag] = s.toResult()
  return { seconds: job.durationMs / 1000, calls, tags: out }
}

/**
 * eth_getLogs over a long range: a chain of N blocks (default 10,000) where every K-th block
 * (default 10) holds one log-emitting transaction, queried over the whole range through the log
 * index (src/filters/query.ts) with the log objects formatted as eth_getLogs answers them
 * (src/rpc/format/log.ts) and, for comparison, by the previous method (every header's
 * bloom, then the receipts of the blocks that may match). Prints the time of each query and the
 * longest the event loop waited meanwhile (a 1 ms timer's worst lateness).
 *
 *   npm run build && node dist/bench/logs-query.js [blocks=10000] [every=10]
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { ChainStore } from '../src/chain/store.js'
import { devAccounts } from '../src/config/accounts.js'
import { openTestChain } from '../test/helpers/chain.js'
import type { ChainLog } from '../src/filters/index.js'
import { bloomMayMatch, collectMatches, compileMatcher, decodedLogBlock } from '../src/filters/match.js'
import { queryLogs } from '../src/filters/query.js'
import { formatLogs } from '../src/rpc/format/log.js'
import type { FilterCriteria } from '../src/rpc/params/index.js'
import { validateTransaction } from '../src/txpool/validate.js'

const BLOCKS = Number(process.argv[2] ?? 10_000)
const EVERY = Number(process.argv[3] ?? 10)
const T = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

/** Init code: LOG2(topic0 = 1, topic1 = i), then stop. */
function initCode(i: number): Uint8Array {
  return hexToBytes(`0x7f${T(i).slice(2)}7f${T(1).slice(2)}60006000a200` as `0x${string}`)
}

async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; stallMs: number; result: T }> {
  let last = performance.now()
  let stall = 0
  const timer = setInterval(() => {
    const now = performance.now()
    stall = Math.max(stall, now - last - 1)
    last = now
  }, 1)
  await new Promise((r) => setTimeout(r, 5))
  last = performance.now()
  const t = performance.now()
  const result = await fn()
  const ms = performance.now() - t
  await new Promise((r) => setTimeout(r, 5))
  clearInterval(timer)
  return { ms, stallMs: stall, result }
}

/** The previous eth_getLogs: every block, its header bloom, then its receipts (synchronous). */
async function bloomScan(store: ChainStore, c: FilterCriteria, to: bigint): Promise<unknown[]> {
  const m = compileMatcher(c)
  const out: ChainLog[] = []
  for (let n = 0n; n <= to; n++) {
    const block = store.getBlockByNumber(n)
    if (block === undefined || !bloomMayMatch(block.header.logsBloom, m)) continue
    collectMatches(decodedLogBlock(block), store.getReceipts(block.hash) ?? [], m, out, 0, () => new Error('full'))
  }
  return formatLogs(out)
}

const dir = mkdtempSync(join(tmpdir(), 'ibex-logs-bench-'))
try {
  const [alice, validator] = devAccounts(2) as [
    { address: string; privateKey: string },
    { address: string; privateKey: string },
  ]
  const { db, store, common, builder, admission } = await openTestChain(dir, { validator })
  const t = performance.now()
  let nonce = 0n
  let firstContract = ''
  for (let n = 1; n <= BLOCKS; n++) {
    const candidates = []
    if (n % EVERY === 0) {
      const raw = createTx(
        {
          type: 2,
          nonce: nonce++,
          data: initCode(n),
          gasLimit: 100_000n,
          maxFeePerGas: 10n ** 10n,
          maxPriorityFeePerGas: 1n,
        },
        { common },
      )
        .sign(hexToBytes(alice.privateKey as `0x${string}`))
        .serialize()
      candidates.push(await validateTransaction(raw, admission()))
    }
    const { block } = await builder.build(candidates, store.head.header.timestamp + 1n)
    if (firstContract === '' && candidates.length > 0) {
      firstContract = `0x${Buffer.from(store.getReceipts(block.hash)?.[0]?.contractAddress ?? []).toString('hex')}`
    }
  }
  const head = store.head.header.number
  console.log(
    `built ${BLOCKS} blocks (${BLOCKS / EVERY} with a log) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  )

  const base: FilterCriteria = {
    blockHash: undefined,
    fromBlock: { kind: 'number', number: 0n },
    toBlock: undefined,
    addresses: [],
    topics: [],
  }
  const queries: [string, FilterCriteria][] = [
    ['one address (1 log)', { ...base, addresses: [firstContract] }],
    ['topic0 of every log', { ...base, topics: [[hexToBytes(T(1) as `0x${string}`)]] }],
    ['no filter (all logs)', base],
    ['a topic nobody logs', { ...base, topics: [[hexToBytes(T(2) as `0x${string}`)]] }],
  ]
  const limits = { maxBlockRange: 0, maxResults: 0 }
  for (const [name, c] of queries) {
    // fresh stores: no decoded block in memory from an earlier query
    const indexed = await timed(() => queryLogs(new ChainStore(db, common), c, limits).then(formatLogs))
    const scanned = await timed(() => bloomScan(new ChainStore(db, common), c, head))
    if (indexed.result.length !== scanned.result.length) throw new Error(`${name}: results differ`)
    console.log(
      `${name.padEnd(22)} ${String(indexed.result.length).padStart(5)} logs over ${head + 1n} blocks: ` +
        `index ${indexed.ms.toFixed(1)} ms (longest event-loop wait ${indexed.stallMs.toFixed(1)} ms), ` +
        `bloom scan ${scanned.ms.toFixed(1)} ms (longest wait ${scanned.stallMs.toFixed(1)} ms)`,
    )
  }
  await db.close()
} finally {
  rmSync(dir, { recursive: true, force: true })
}

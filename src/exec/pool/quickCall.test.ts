/**
 * eth_calls answered on the calling thread (ExecPool.call → quickCall, `[exec] inline_call_ms`):
 * the same answers as without it — return data, reverts with their data, errors — and a call
 * that outlasts the budget (a JUMP loop) still runs to its end on the regular path.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { afterAll, describe, expect, it } from 'vitest'
import { compileBench } from '../../../bench/seed/plan.js'
import { devAccounts } from '../../config/accounts.js'
import { validateTransaction } from '../../txpool/validate.js'
import { fastCallStats } from '../fast/index.js'
import { openTestChain } from '../testing.js'
import { ExecPool } from './index.js'

const dirs: string[] = []
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

/** JUMPDEST PUSH0 JUMP, forever (as test/trace/faults.test.ts deploys it). */
const SPIN_INITCODE = '0x625b5f565f526003601df3'

describe('quickCall', () => {
  it('answers as the worker path does, and leaves long calls to it', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-quick-'))
    dirs.push(dir)
    const [alice, , validator] = devAccounts(3) as { address: string; privateKey: string }[]
    const chain = await openTestChain(dir, { validator: validator as { address: string; privateKey: string } })
    const key = hexToBytes((alice as { privateKey: string }).privateKey as `0x${string}`)
    const code = compileBench().BenchToken.bytecode.slice(2) + (10n ** 24n).toString(16).padStart(64, '0')
    const raws = [code, SPIN_INITCODE.slice(2)].map((c, nonce) =>
      createTx(
        { type: 2, nonce: BigInt(nonce), data: hexToBytes(`0x${c}`), gasLimit: 3_000_000n, maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n },
        { common: chain.common },
      )
        .sign(key)
        .serialize(),
    )
    const ptxs = []
    for (const raw of raws) ptxs.push(await validateTransaction(raw, chain.admission()))
    const { block } = await chain.builder.build(ptxs, chain.store.head.header.timestamp + 1n)
    const [token, spin] = (chain.store.getReceipts(block.hash) ?? []).map((r) => r.contractAddress as Uint8Array)
    const head = chain.store.head
    const opts = { db: chain.db, store: chain.store, common: chain.common, genesis: {}, workers: 0, callQueue: 0, traceWorkers: 0, traceQueue: 0, workerHeapMb: 0, cacheBytes: 0 }
    const quick = new ExecPool({ ...opts, inlineCallMs: 1 })
    const plain = new ExecPool({ ...opts, inlineCallMs: 0 })
    const word = (hex: string) => hex.replace(/^0x/, '').padStart(64, '0')
    const holder = (alice as { address: string }).address
    const requests = [
      { to: token, data: hexToBytes(`0x70a08231${word(holder)}`) }, // balanceOf(holder)
      ...[1, 2, 3].map((i) => ({ to: token, data: hexToBytes(`0x70a08231${word(i.toString(16))}`) })),
      { to: token, data: hexToBytes(`0xa9059cbb${word('beef')}${word((10n ** 30n).toString(16))}`) }, // transfer beyond the balance: reverts
      { to: token, data: hexToBytes('0xdeadbeef') }, // no such function: reverts without data
      { to: spin, data: new Uint8Array(0), gas: 3_000_000n }, // outlasts 1 ms: out of gas on the regular path
    ]
    const outcome = (p: Promise<unknown>) =>
      p.then(
        (v) => ({ ok: Buffer.from(v as Uint8Array).toString('hex') }),
        (e: Error & { data?: Uint8Array }) => ({ error: e.constructor.name, message: e.message, data: e.data === undefined ? undefined : Buffer.from(e.data).toString('hex') }),
      )
    // the result cache is per thread and keyed by the gas cap too: the plain pool asks with a cap one
    // gas higher (no answer here depends on it), so it runs every call itself
    const ask = (pool: ExecPool, request: (typeof requests)[number]) =>
      outcome(
        pool.call({
          kind: 'call',
          head: head.header.number,
          blockHash: head.hash,
          request: { ...request },
          limits: { gasCap: pool === plain ? 50_000_001n : 50_000_000n, timeoutMs: 5000 },
        }),
      )
    // the first call builds the block's CallState; the rest may be answered inline
    await ask(quick, { to: token, data: hexToBytes(`0x70a08231${word('abc')}`) })
    const answeredBefore = fastCallStats.answered
    const got = []
    for (const r of requests) got.push(await ask(quick, r))
    const answeredInline = fastCallStats.answered - answeredBefore
    const want = []
    for (const r of requests) want.push(await ask(plain, r))
    expect(got).toEqual(want)
    expect(got[0]).toEqual({ ok: (10n ** 24n).toString(16).padStart(64, '0') })
    expect(got[4]).toMatchObject({ error: 'ExecutionRevertedError' })
    expect(got[6]).toMatchObject({ error: 'ExecutionError', message: 'out of gas' })
    // all but the loop were answered by the fast interpreter on this thread
    expect(answeredInline).toBeGreaterThanOrEqual(requests.length - 1)
    await chain.db.close()
  }, 60_000)
})

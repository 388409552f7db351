/**
 * The ots_ and erigon_ methods through the dispatcher with a fake Backend: Otterscan's plain JSON
 * integers (and hex quantities, tags), Erigon's page order of ots_getBlockTransactions, the page
 * size limit checked before any read, what each method answers when its index is off (fees from
 * the receipts, the revert output from a trace worker, a clear -32000 for the others), which
 * tracer a re-executing method asks the trace lane for, and `ots` bringing `erigon`.
 */
import { describe, expect, it } from 'vitest'
import {
  type ExplorerIndex,
  type ExplorerIndexes,
  NO_EXPLORER_INDEXES,
  type TxPosition,
} from '../../chain/explorerIndex.js'
import type { TraceOptions } from '../../exec/pool/index.js'
import { toData } from '../../util/hex.js'
import type { Backend } from '../backend.js'
import { erigonNamespace, OTS_API_LEVEL, otsNamespace, withImpliedNamespaces } from './ots.js'
import { callMethod, chainOf, fakeBackend, receiptsOf, testBlock, transfer } from './testing.js'

const txs = Array.from({ length: 5 }, (_, i) => transfer(BigInt(i), 10n ** 10n, 10n ** 9n))
const blocks = [testBlock(0n), testBlock(1n, txs), testBlock(2n, [transfer(5n, 10n ** 10n, 10n ** 9n)])]
const ADDRESS = `0x${'22'.repeat(20)}`

// biome-ignore lint/suspicious/noExplicitAny: JSON answers
type Json = any

interface FakeIndex {
  enabled?: Partial<ExplorerIndexes>
  before?: (address: Uint8Array, before: bigint, limit: number) => { txs: TxPosition[]; exhausted: boolean }
  after?: (address: Uint8Array, after: bigint, limit: number) => { txs: TxPosition[]; exhausted: boolean }
  fees?: bigint
  revert?: Uint8Array
}

function explorer(f: FakeIndex): ExplorerIndex {
  return {
    enabled: { ...NO_EXPLORER_INDEXES, ...f.enabled },
    appearancesBefore: f.before ?? (() => ({ txs: [], exhausted: true })),
    appearancesAfter: f.after ?? (() => ({ txs: [], exhausted: true })),
    blockFees: () => f.fees,
    revertOutput: () => f.revert,
    txBySenderAndNonce: () => undefined,
    contractCreator: () => undefined,
  } as unknown as ExplorerIndex
}

function backend(f: FakeIndex = {}, extra: Partial<Backend> = {}): Backend {
  return fakeBackend({ ...chainOf(blocks), explorer: explorer(f), otsMaxPageSize: 25, ...extra })
}

const call = (b: Backend, method: string, params: unknown[] = []) => callMethod(otsNamespace, b, method, params)

describe('ots_ params as Otterscan sends them', () => {
  it('takes block numbers as plain JSON integers, hex quantities or tags', async () => {
    const b = backend({ enabled: { fees: true }, fees: 7n })
    const plain = await call(b, 'ots_getBlockDetails', [1])
    expect(plain.result).toMatchObject({
      block: { number: '0x1', transactionCount: 5, logsBloom: null },
      totalFees: '0x7',
    })
    expect((await call(b, 'ots_getBlockDetails', ['0x1'])).result).toEqual(plain.result)
    expect((await call(b, 'ots_getBlockDetails', ['latest'])).result).toMatchObject({ block: { number: '0x2' } })
    expect((await call(b, 'ots_getApiLevel')).result).toBe(OTS_API_LEVEL)
  })

  it('refuses negative, fractional and non-numeric integers with -32602', async () => {
    const b = backend()
    for (const bad of [-1, 1.5, 'x', {}, true]) {
      const r = await call(b, 'ots_getBlockTransactions', [1, bad, 25])
      expect(r.error?.code, JSON.stringify(bad)).toBe(-32602)
      expect(r.error?.message).toMatch(/^invalid argument 1: /)
    }
  })
})

describe('ots_getBlockTransactions', () => {
  it("counts pages from the block's end (Erigon), each page in block order, empty past the start", async () => {
    const b = backend()
    const hashes = txs.map((t) => toData(t.hash()))
    const page = async (p: number) => {
      const r = (await call(b, 'ots_getBlockTransactions', [1, p, 2])).result as Json
      expect(r.receipts.map((x: Json) => x.transactionHash)).toEqual(r.fullblock.transactions.map((t: Json) => t.hash))
      for (const x of r.receipts) expect([x.logs, x.logsBloom]).toEqual([null, null])
      expect(r.fullblock.transactionCount).toBe(5)
      return r.fullblock.transactions.map((t: Json) => t.hash)
    }
    expect(await page(0)).toEqual(hashes.slice(3, 5))
    expect(await page(1)).toEqual(hashes.slice(1, 3))
    expect(await page(2)).toEqual(hashes.slice(0, 1))
    expect(await page(3)).toEqual([])
    expect(await page(1_000_000)).toEqual([])
  })

  it('refuses a page larger than [explorer] max_page_size before reading the block', async () => {
    const b = fakeBackend({ otsMaxPageSize: 25 })
    const r = await call(b, 'ots_getBlockTransactions', [1, 0, 26])
    expect(r.error).toEqual({ code: -32602, message: 'max allowed page size: 25' })
  })
})

describe('ots_searchTransactions*', () => {
  const positions: TxPosition[] = [
    { blockNumber: 2n, index: 0 },
    { blockNumber: 1n, index: 4 },
    { blockNumber: 1n, index: 1 },
  ]

  it('Before: from the tip when 0, firstPage then, lastPage when the index has no more', async () => {
    let asked: [bigint, number] | undefined
    const b = backend({
      enabled: { appearances: true },
      before: (_a, before, limit) => {
        asked = [before, limit]
        return { txs: positions, exhausted: true }
      },
    })
    const r = (await call(b, 'ots_searchTransactionsBefore', [ADDRESS, 0, 2])).result as Json
    expect(asked).toEqual([3n, 2])
    expect(r.txs.map((t: Json) => [t.blockNumber, t.transactionIndex])).toEqual([
      ['0x2', '0x0'],
      ['0x1', '0x4'],
      ['0x1', '0x1'],
    ])
    expect(r.receipts.map((x: Json) => x.timestamp)).toEqual([1_700_000_002, 1_700_000_001, 1_700_000_001])
    expect([r.firstPage, r.lastPage]).toEqual([true, true])
    await call(b, 'ots_searchTransactionsBefore', [ADDRESS, 2, 2])
    expect(asked).toEqual([2n, 2])
  })

  it('After: newest first, lastPage when from genesis, firstPage when the index has no more', async () => {
    const b = backend({
      enabled: { appearances: true },
      after: () => ({ txs: [...positions].reverse(), exhausted: false }),
    })
    const r = (await call(b, 'ots_searchTransactionsAfter', [ADDRESS, 0, 2])).result as Json
    expect(r.txs.map((t: Json) => t.blockNumber)).toEqual(['0x2', '0x1', '0x1'])
    expect([r.firstPage, r.lastPage]).toEqual([false, true])
  })

  it('refuses huge and zero page sizes before reading, and says which index is off', async () => {
    const b = backend()
    expect((await call(b, 'ots_searchTransactionsBefore', [ADDRESS, 0, 4_000_000_000])).error).toEqual({
      code: -32602,
      message: 'max allowed page size: 25',
    })
    expect((await call(b, 'ots_searchTransactionsAfter', [ADDRESS, 0, 0])).error?.code).toBe(-32602)
    expect((await call(b, 'ots_searchTransactionsBefore', [ADDRESS, 0, 25])).error).toEqual({
      code: -32000,
      message:
        'ots_searchTransactionsBefore needs the explorer index [explorer] index_appearances, which is off on this node',
    })
  })
})

describe('methods whose index is off', () => {
  it('ots_getBlockDetails sums the fees from the receipts', async () => {
    const r = (await call(backend(), 'ots_getBlockDetails', [1])).result as Json
    const fees = receiptsOf(blocks[1] as never).reduce((s, x) => s + x.gasUsed * x.effectiveGasPrice, 0n)
    expect(r.totalFees).toBe(`0x${fees.toString(16)}`)
    expect(r.issuance).toEqual({ blockReward: '0x0', uncleReward: '0x0', issuance: '0x0' })
  })

  it('ots_getTransactionError asks a trace worker for the otsError tracer; the index answers when on', async () => {
    const failed = receiptsOf(blocks[1] as never).map((x, i) => (i === 2 ? { ...x, status: 0 as const } : x))
    let tracer: TraceOptions['tracer'] | undefined
    const extra: Partial<Backend> = {
      txLocation: () => ({ blockHash: (blocks[1] as never as { hash: Uint8Array }).hash, blockNumber: 1n, index: 2 }),
      receipts: () => failed,
      traceTransaction: async (_loc, opts) => {
        tracer = opts.tracer
        return [Buffer.from('"0xdead"')]
      },
    }
    const hash = toData(txs[2]?.hash() as Uint8Array)
    expect((await call(backend({}, extra), 'ots_getTransactionError', [hash])).result).toBe('0xdead')
    expect(tracer).toBe('otsError')
    const indexed = backend({ enabled: { reverts: true }, revert: Uint8Array.of(0xbe, 0xef) }, extra)
    expect((await call(indexed, 'ots_getTransactionError', [hash])).result).toBe('0xbeef')
  })

  it('ots_getTransactionBySenderAndNonce and ots_getContractCreator name the index', async () => {
    const b = backend()
    expect((await call(b, 'ots_getTransactionBySenderAndNonce', [ADDRESS, 1])).error?.message).toMatch(
      /index_sender_nonce, which is off/,
    )
    expect((await call(b, 'ots_getContractCreator', [ADDRESS])).error?.message).toMatch(/index_creators, which is off/)
  })
})

describe('re-executing methods', () => {
  it('ots_traceTransaction and ots_getInternalOperations run their tracers on the trace lane; unknown hashes are -32000', async () => {
    const asked: string[] = []
    const b = backend(
      {},
      {
        txLocation: (h) =>
          h[0] === 0xab
            ? undefined
            : { blockHash: (blocks[1] as { hash: Uint8Array }).hash, blockNumber: 1n, index: 0 },
        traceTransaction: async (_loc, opts) => {
          asked.push(opts.tracer)
          return [Buffer.from('[]')]
        },
      },
    )
    const hash = toData(txs[0]?.hash() as Uint8Array)
    expect((await call(b, 'ots_traceTransaction', [hash])).result).toEqual([])
    expect((await call(b, 'ots_getInternalOperations', [hash])).result).toEqual([])
    expect(asked).toEqual(['otsTrace', 'otsInternal'])
    const unknown = await call(b, 'ots_traceTransaction', [`0x${'ab'.repeat(32)}`])
    expect(unknown.error).toEqual({ code: -32000, message: 'transaction not found' })
  })
})

describe('erigon_getHeaderByNumber and the namespaces', () => {
  it('answers a header for a plain number and for latest, null beyond the head', async () => {
    const b = backend()
    const one = await callMethod(erigonNamespace, b, 'erigon_getHeaderByNumber', [1])
    expect(one.result).toMatchObject({ number: '0x1', hash: toData((blocks[1] as { hash: Uint8Array }).hash) })
    expect((await callMethod(erigonNamespace, b, 'erigon_getHeaderByNumber', ['latest'])).result).toMatchObject({
      number: '0x2',
    })
    expect((await callMethod(erigonNamespace, b, 'erigon_getHeaderByNumber', [99])).result).toBeNull()
  })

  it('ots brings erigon; erigon alone does not bring ots', () => {
    expect(withImpliedNamespaces(['eth', 'ots'])).toEqual(['eth', 'ots', 'erigon'])
    expect(withImpliedNamespaces(['eth', 'ots', 'erigon'])).toEqual(['eth', 'ots', 'erigon'])
    expect(withImpliedNamespaces(['eth', 'erigon'])).toEqual(['eth', 'erigon'])
  })
})

/**
 * The explorer indexes (src/chain/explorerIndex.ts) as the BlockBuilder writes them with each
 * block, read back through ExplorerIndex: an address touched only by internal calls (value
 * forwarded by a contract) is found in every block it appears in, newest first and oldest first,
 * in pages that never split a block; sender + nonce, creators (a contract created inside a call
 * included), per-block fees and the return data of a failed transaction are what the chain did;
 * a store with the indexes off writes none of them.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, createContractAddress, hexToBytes, Address as EthAddress } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ALL_EXPLORER_INDEXES, type TxPosition } from '../chain/explorerIndex.js'
import type { ChainBlock } from '../chain/store.js'
import { type ActivityReplay, BUSY, ExplorerBackfill, replayHere } from '../block/explorerBackfill.js'
import type { GenesisJson } from '../chain/common.js'
import { defaultConfig } from '../config/defaults.js'
import { buildGenesis } from '../config/genesis.js'
import { ExecPool } from '../exec/pool/index.js'
import { encodeWireBlock } from '../chain/blockRlp.js'
import { executeIbftBlock } from './ibftImport.js'
import { createLogger } from '../log.js'
import { devKey, type Key, sign, VALIDATOR } from '../../test/helpers/blocks.js'
import { openTestChain, validateTransaction } from '../../test/helpers/chain.js'

/** Runtime: CALL(gas, calldata[0..32) as address, callvalue) — forwards the value it gets. */
const FORWARDER = '0x600f80600b6000396000f3' + '6000600060006000346000355af100'
/** Runtime: CREATE of a 1-byte contract (init 0x60016000f3) — a creation inside a call. */
const FACTORY = '0x601280600b6000396000f3' + '6460016000f36000526005601b6000f05000'
/** Runtime: REVERT with the 4 bytes 0xdeadbeef. */
const REVERTER = '0x600d80600b6000396000f3' + '63deadbeef6000526004601cfd'
const TARGET = `0x${'7a'.repeat(20)}`
/** Blocks of forwarded payments to TARGET; every third block carries two. */
const PAYMENT_BLOCKS = 24

type Chain = Awaited<ReturnType<typeof openTestChain>>

const dirs: string[] = []
let chain: Chain
const nonces = new Map<string, bigint>()
/** Where TARGET appears, oldest first. */
const expected: TxPosition[] = []
const hashes: { payer1Nonce3?: string; factoryCall?: string; revert?: string } = {}

function tx(key: Key, fields: Record<string, unknown>): Uint8Array {
  const nonce = nonces.get(key.address) ?? 0n
  nonces.set(key.address, nonce + 1n)
  return sign(chain.common, key, { nonce, ...fields })
}

/** The raw transactions of each block built, to build the same chain again. */
const history: Uint8Array[][] = []

async function buildOn(c: Chain, raws: Uint8Array[]): Promise<ChainBlock> {
  const ctx = { ...c.admission(), account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }
  const candidates = []
  for (const raw of raws) candidates.push(await validateTransaction(raw, ctx))
  const { block, included } = await c.builder.build(candidates, c.store.head.header.timestamp + 1n)
  expect(included.length).toBe(raws.length)
  return block
}

async function build(raws: Uint8Array[]): Promise<ChainBlock> {
  history.push(raws)
  return buildOn(chain, raws)
}

const deployer = devKey(0)
const payer1 = devKey(1)
const payer2 = devKey(2)
const addressOf = (key: Key, nonce: bigint) =>
  createContractAddress(new EthAddress(hexToBytes(key.address as `0x${string}`)), nonce).toString()
const forwarder = addressOf(deployer, 0n)
const factory = addressOf(deployer, 1n)
const reverter = addressOf(deployer, 2n)
const pay = (key: Key) => tx(key, { to: forwarder, value: 1n, data: `0x${TARGET.slice(2).padStart(64, '0')}` })

beforeAll(async () => {
  const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-'))
  dirs.push(dir)
  chain = await openTestChain(dir, { validator: VALIDATOR, explorer: ALL_EXPLORER_INDEXES })
  await build([
    tx(deployer, { to: undefined, data: FORWARDER }),
    tx(deployer, { to: undefined, data: FACTORY }),
    tx(deployer, { to: undefined, data: REVERTER }),
  ])
  for (let i = 0; i < PAYMENT_BLOCKS; i++) {
    const raws = [pay(payer1)]
    if (i % 3 === 0) raws.push(pay(payer2))
    const block = await build(raws)
    for (let j = 0; j < raws.length; j++) expected.push({ blockNumber: block.header.number, index: j })
    if (i === 3) hashes.payer1Nonce3 = bytesToHex(block.transactions[0]?.hash() as Uint8Array)
  }
  const f = await build([tx(deployer, { to: factory, data: '0x' })])
  hashes.factoryCall = bytesToHex(f.transactions[0]?.hash() as Uint8Array)
  const r = await build([tx(deployer, { to: reverter, data: '0x', gasLimit: 100_000n })])
  hashes.revert = bytesToHex(r.transactions[0]?.hash() as Uint8Array)
}, 60_000)

afterAll(async () => {
  await chain?.db.close()
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true })
})

const target = hexToBytes(TARGET as `0x${string}`)

describe('address appearances', () => {
  it('finds an address touched only by internal calls in every block, newest first, never splitting a block', () => {
    const x = chain.store.explorer
    const seen: TxPosition[] = []
    let before = chain.store.head.header.number + 1n
    let pages = 0
    for (;;) {
      const page = x.appearancesBefore(target, before, 2)
      pages++
      // at least the page size, plus the rest of the last block
      if (!page.exhausted) expect(page.txs.length).toBeGreaterThanOrEqual(2)
      const last = page.txs.at(-1)
      seen.push(...page.txs)
      if (page.exhausted || last === undefined) break
      before = last.blockNumber
    }
    expect(seen).toEqual([...expected].reverse())
    expect(pages).toBeGreaterThan(5)
  })

  it('pages forward oldest first with the same rule', () => {
    const x = chain.store.explorer
    const seen: TxPosition[] = []
    let after = 0n
    for (;;) {
      const page = x.appearancesAfter(target, after, 3)
      seen.push(...page.txs)
      const last = page.txs.at(-1)
      if (page.exhausted || last === undefined) break
      after = last.blockNumber
    }
    expect(seen).toEqual(expected)
  })

  it('a page beyond the end is empty and exhausted', () => {
    const x = chain.store.explorer
    expect(x.appearancesAfter(target, chain.store.head.header.number, 5)).toEqual({ txs: [], exhausted: true })
    expect(x.appearancesBefore(target, 1n, 5)).toEqual({ txs: [], exhausted: true })
    expect(x.appearancesBefore(hexToBytes(`0x${'00'.repeat(19)}42`), 1000n, 5)).toEqual({ txs: [], exhausted: true })
  })

  it('indexes the forwarder (callee of the top frame) and the payer (sender)', () => {
    const x = chain.store.explorer
    const head = chain.store.head.header.number + 1n
    expect(x.appearancesBefore(hexToBytes(forwarder as `0x${string}`), head, 1000).txs.length).toBe(expected.length + 1)
    expect(x.appearancesBefore(hexToBytes(payer2.address as `0x${string}`), head, 1000).txs.length).toBe(
      PAYMENT_BLOCKS / 3,
    )
  })
})

describe('sender + nonce, creators, fees, revert output', () => {
  it('finds a transaction by its sender and nonce', () => {
    const x = chain.store.explorer
    expect(bytesToHex(x.txBySenderAndNonce(hexToBytes(payer1.address as `0x${string}`), 3n) as Uint8Array)).toBe(
      hashes.payer1Nonce3,
    )
    expect(x.txBySenderAndNonce(hexToBytes(payer1.address as `0x${string}`), 1000n)).toBeUndefined()
  })

  it('names the creator of a contract, a contract created inside a call included', () => {
    const x = chain.store.explorer
    const top = x.contractCreator(hexToBytes(forwarder as `0x${string}`))
    expect(bytesToHex(top?.creator as Uint8Array)).toBe(deployer.address)
    const child = addressOf({ address: factory, privateKey: new Uint8Array(0) }, 1n)
    const inner = x.contractCreator(hexToBytes(child as `0x${string}`))
    expect(bytesToHex(inner?.creator as Uint8Array)).toBe(factory)
    expect(bytesToHex(inner?.txHash as Uint8Array)).toBe(hashes.factoryCall)
    expect(x.contractCreator(target)).toBeUndefined()
  })

  it("stores each block's total fees and a failed transaction's return data", () => {
    const x = chain.store.explorer
    for (let n = 1n; n <= chain.store.head.header.number; n++) {
      const block = chain.store.getBlockByNumber(n) as ChainBlock
      const receipts = chain.store.getReceipts(block.hash) ?? []
      const fees = receipts.reduce((s, r) => s + r.gasUsed * r.effectiveGasPrice, 0n)
      expect(x.blockFees(n)).toBe(fees)
    }
    expect(bytesToHex(x.revertOutput(hexToBytes(hashes.revert as `0x${string}`)) as Uint8Array)).toBe('0xdeadbeef')
    expect(x.revertOutput(hexToBytes(hashes.factoryCall as `0x${string}`))).toBeUndefined()
    expect(x.head).toBe(chain.store.head.header.number)
    expect(x.indexedFrom).toBe(0n)
  })
})

describe('the IBFT verifier', () => {
  it('records the same activity as the proposer, for the block it commits', async () => {
    const ctx = { ...chain.admission(), account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }
    const n = (k: Key) => nonces.get(k.address) ?? 0n
    const raws = [
      sign(chain.common, payer1, {
        nonce: n(payer1),
        to: forwarder,
        value: 1n,
        data: `0x${TARGET.slice(2).padStart(64, '0')}`,
      }),
      sign(chain.common, payer2, { nonce: n(payer2), to: factory, data: '0x' }),
      sign(chain.common, deployer, { nonce: n(deployer), to: reverter, data: '0x', gasLimit: 100_000n }),
    ]
    const candidates = []
    for (const raw of raws) candidates.push(await validateTransaction(raw, ctx))
    const proposal = await chain.builder.propose(candidates, chain.store.head.header.timestamp + 1n)
    expect(proposal.activity?.length).toBe(3)
    const opts = { store: chain.store, common: chain.common, baseFeeRecipient: undefined }
    const verified = await executeIbftBlock(opts, chain.store.head, encodeWireBlock(proposal), { kind: 'proposal' })
    expect(verified.activity).toEqual(proposal.activity)
    const touched = (verified.activity?.[0]?.touched ?? []).map((a) => bytesToHex(a))
    expect(touched).toContain(TARGET)
    expect(verified.activity?.[1]?.created.map((c) => bytesToHex(c.creator))).toEqual([factory])
    expect(bytesToHex(verified.activity?.[2]?.revertOutput as Uint8Array)).toBe('0xdeadbeef')
  })
})

describe('backfill of a datadir written without the indexes', () => {
  it('indexes every block, newest first, to what the live commits wrote', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-late-'))
    dirs.push(dir)
    const late = await openTestChain(dir, { validator: VALIDATOR })
    try {
      for (const raws of history) await buildOn(late, raws)
      expect(late.store.head.hash).toEqual(chain.store.head.hash)
      expect(late.store.explorer.head).toBeUndefined()
      late.store.setExplorerIndexes(ALL_EXPLORER_INDEXES)
      const backfill = new ExplorerBackfill(late.store, createLogger('silent'), replayHere(late.store))
      await backfill.done
      const [mine, live] = [late.store.explorer, chain.store.explorer]
      const head = chain.store.head.header.number
      expect(mine.indexedFrom).toBe(0n)
      expect(mine.head).toBe(head)
      expect(mine.appearancesBefore(target, head + 1n, 1000)).toEqual(live.appearancesBefore(target, head + 1n, 1000))
      const child = addressOf({ address: factory, privateKey: new Uint8Array(0) }, 1n)
      expect(mine.contractCreator(hexToBytes(child as `0x${string}`))).toEqual(
        live.contractCreator(hexToBytes(child as `0x${string}`)),
      )
      expect(mine.revertOutput(hexToBytes(hashes.revert as `0x${string}`))).toEqual(
        live.revertOutput(hexToBytes(hashes.revert as `0x${string}`)),
      )
      for (let n = 0n; n <= head; n++) expect(mine.blockFees(n)).toBe(live.blockFees(n))
      // a block committed after the backfill is indexed live, right above it
      const raw = sign(late.common, payer2, {
        nonce: nonces.get(payer2.address) ?? 0n,
        to: forwarder,
        value: 1n,
        data: `0x${TARGET.slice(2).padStart(64, '0')}`,
      })
      const next = await buildOn(late, [raw])
      expect(mine.appearancesBefore(target, next.header.number + 1n, 1).txs[0]).toEqual({
        blockNumber: next.header.number,
        index: 0,
      })
      expect([mine.indexedFrom, mine.head]).toEqual([0n, next.header.number])
      // nothing to do at the next start
      await new ExplorerBackfill(late.store, createLogger('silent'), replayHere(late.store)).done
      expect([mine.indexedFrom, mine.head]).toEqual([0n, next.header.number])
    } finally {
      await late.db.close()
    }
  })
  it('replays the blocks on trace workers, as the node does, and waits out a lane too busy to take one', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-workers-'))
    dirs.push(dir)
    const late = await openTestChain(dir, { validator: VALIDATOR })
    const genesis = buildGenesis({ ...defaultConfig('dev'), datadir: dir }, [VALIDATOR.address])
    const pool = new ExecPool({
      db: late.db,
      store: late.store,
      common: late.common,
      genesis: genesis as unknown as GenesisJson,
      workers: 1,
      callQueue: 10,
      traceWorkers: 1,
      traceQueue: 10,
      workerHeapMb: 0,
      cacheBytes: 4 * 1024 * 1024,
    })
    try {
      for (const raws of history) await buildOn(late, raws)
      late.store.setExplorerIndexes(ALL_EXPLORER_INDEXES)
      const onWorkers = pool.explorerReplay(late.store)
      let replays = 0
      let refused = 0
      // the lane is "busy" for the first replay asked: the backfill asks again later, skipping no block
      const replay: ActivityReplay = async (block) => {
        if (refused === 0) {
          refused++
          return BUSY
        }
        replays++
        return onWorkers(block)
      }
      await new ExplorerBackfill(late.store, createLogger('silent'), replay).done
      expect(refused).toBe(1)
      expect(replays).toBe(history.length)
      // every replay ran on the trace lane's worker
      expect(pool.stats().traces?.completed).toBe(history.length)
      const [mine, live] = [late.store.explorer, chain.store.explorer]
      const head = chain.store.head.header.number
      expect(mine.indexedFrom).toBe(0n)
      expect(mine.appearancesBefore(target, head + 1n, 1000)).toEqual(live.appearancesBefore(target, head + 1n, 1000))
      expect(mine.revertOutput(hexToBytes(hashes.revert as `0x${string}`))).toEqual(
        live.revertOutput(hexToBytes(hashes.revert as `0x${string}`)),
      )
    } finally {
      await pool.close()
      await late.db.close()
    }
  }, 60_000)
})

describe('indexes off', () => {
  it('writes none of them', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'ibex-explorer-off-'))
    dirs.push(dir)
    const off = await openTestChain(dir, { validator: VALIDATOR })
    try {
      const ctx = { ...off.admission(), account: async () => ({ nonce: 0n, balance: 10n ** 30n }) }
      const raw = sign(off.common, deployer, { nonce: 0n, to: undefined, data: FORWARDER })
      await off.builder.build([await validateTransaction(raw, ctx)], off.store.head.header.timestamp + 1n)
      const x = off.store.explorer
      const sender = hexToBytes(deployer.address as `0x${string}`)
      expect(x.appearancesAfter(sender, 0n, 10)).toEqual({ txs: [], exhausted: true })
      expect(x.txBySenderAndNonce(sender, 0n)).toBeUndefined()
      expect(x.blockFees(1n)).toBeUndefined()
      expect(x.head).toBeUndefined()
    } finally {
      await off.db.close()
    }
  })
})

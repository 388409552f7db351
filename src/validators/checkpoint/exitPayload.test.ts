/**
 * Exit payloads over a real in-process dev chain (sealed blocks in RocksDB): a contract whose every
 * call emits a non-burn log then an ERC-20 Transfer to the zero address (a burn), called by a
 * 1559 and a legacy transaction in one block, under a checkpoint of blocks 1..5. The payload is
 * decoded and every part checked the way the base-chain vault checks it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Common } from '@ethereumjs/common'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { createTx } from '@ethereumjs/tx'
import { Address, bytesToBigInt, bytesToHex, createContractAddress, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { openTestChain, validateTransaction } from '../../../test/helpers/chain.js'
import type { StoredReceipt } from '../../chain/receipt.js'
import type { ChainStore } from '../../chain/store.js'
import { devAccounts } from '../../config/accounts.js'
import type { Database } from '../../db/db.js'
import { keccak256 } from '../../util/keccak.js'
import {
  CheckpointRootMismatchError,
  ExitLogIndexError,
  ExitUnknownTxError,
  NotABurnError,
  NotCheckpointedError,
  ReceiptsRootMismatchError,
} from './errors.js'
import { buildExitPayload, type ExitChainReader, isBurnLog, TRANSFER_TOPIC_HEX } from './exitPayload.js'
import { checkpointRoot, verifyBlockProof } from './root.js'
import type { Checkpoint, CheckpointSource } from './source.js'

const [alice, validator] = devAccounts(2) as [
  { address: string; privateKey: string },
  { address: string; privateKey: string },
]
const OTHER_TOPIC = `${'11'.repeat(32)}`
const AMOUNT = 0x1234n

/** Runtime: LOG1(topic 0x11…) with no data, then LOG3(Transfer, caller, 0) with calldata word 0. */
const RUNTIME = `7f${OTHER_TOPIC}5f5fa1` + `5f355f52` + `5f33` + `7f${TRANSFER_TOPIC_HEX.slice(2)}` + '60205fa3' + '00'
/** Initcode: copy the runtime (after these 9 bytes) to memory and return it. */
const INITCODE = `60${(RUNTIME.length / 2).toString(16).padStart(2, '0')}80600${9}5f395ff3${RUNTIME}`

class FixedSource implements CheckpointSource {
  constructor(readonly list: Checkpoint[]) {}
  async checkpointOfBlock(n: bigint) {
    return this.list.find((c) => c.start <= n && n <= c.end)
  }
  async checkpoint(id: bigint) {
    return this.list.find((c) => c.id === id)
  }
  async latest() {
    return this.list[this.list.length - 1]
  }
}

let dir: string
let db: Database
let store: ChainStore
let chain: ExitChainReader
let source: FixedSource
let checkpoint: Checkpoint
let transferTx: Uint8Array
let typedCall: Uint8Array
let legacyCall: Uint8Array
let afterCheckpoint: Uint8Array

function sign(common: Common, fields: Record<string, unknown>) {
  return createTx(
    { maxFeePerGas: 10n ** 10n, maxPriorityFeePerGas: 1n, gasLimit: 200_000n, ...fields },
    { common },
  ).sign(hexToBytes(alice.privateKey as `0x${string}`))
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-exit-'))
  const opened = await openTestChain(dir, { validator })
  db = opened.db
  store = opened.store
  const { common, builder, admission } = opened
  const contract = createContractAddress(new Address(hexToBytes(alice.address as `0x${string}`)), 0n).toString()
  const amount = `0x${AMOUNT.toString(16).padStart(64, '0')}`
  const block = async (txs: ReturnType<typeof sign>[]) => {
    const ctx = admission()
    const ptxs = await Promise.all(txs.map((t) => validateTransaction(t.serialize(), ctx)))
    const { included } = await builder.build(ptxs, store.head.header.timestamp + 1n)
    expect(included.length).toBe(txs.length)
  }
  await block([sign(common, { type: 2, nonce: 0n, data: `0x${INITCODE}` })])
  const t0 = sign(common, { type: 2, nonce: 1n, to: validator.address, value: 1n, gasLimit: 21_000n })
  const t1 = sign(common, { type: 2, nonce: 2n, to: contract, data: amount })
  const t2 = createTx(
    { type: 0, nonce: 3n, to: contract, data: amount, gasLimit: 200_000n, gasPrice: 10n ** 10n },
    { common },
  ).sign(hexToBytes(alice.privateKey as `0x${string}`))
  await block([t0, t1, t2]) // block 2: logs 0,1 (t1) and 2,3 (t2)
  for (let i = 0; i < 3; i++) await block([]) // blocks 3..5
  const t3 = sign(common, { type: 2, nonce: 4n, to: contract, data: amount })
  await block([t3]) // block 6: after the checkpoint
  ;[transferTx, typedCall, legacyCall, afterCheckpoint] = [t0.hash(), t1.hash(), t2.hash(), t3.hash()]

  chain = {
    canonicalHash: (n) => store.getHashByNumber(n),
    blockByHash: (h) => store.getBlockByHash(h),
    receipts: (h) => store.getReceipts(h),
    txLocation: (h) => store.getTxLocation(h),
  }
  const hashes = [1n, 2n, 3n, 4n, 5n].map((n) => store.getHashByNumber(n) as Uint8Array)
  checkpoint = {
    id: 10_000n,
    start: 1n,
    end: 5n,
    root: checkpointRoot(hashes),
    proposer: hexToBytes(validator.address as `0x${string}`),
    signers: [hexToBytes(validator.address as `0x${string}`)],
  }
  source = new FixedSource([checkpoint])
}, 60_000)

afterAll(async () => {
  await db?.close()
  rmSync(dir, { recursive: true, force: true })
})

type Item = Uint8Array | Item[]

describe('buildExitPayload', () => {
  it('builds the eight fields, each checkable the way the vault checks it', async () => {
    const out = await buildExitPayload(chain, source, { txHash: legacyCall, logIndex: 3n })
    const fields = RLP.decode(out.payload) as Item[]
    expect(fields.length).toBe(8)
    const [id, proof, number, headerRlp, receiptRlp, receiptProof, receiptKey, logIndex] = fields as [
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Uint8Array,
      Item[],
      Uint8Array,
      Uint8Array,
    ]
    expect(bytesToBigInt(id)).toBe(10_000n)
    expect(bytesToBigInt(number)).toBe(2n)
    const block = store.getBlockByNumber(2n)
    if (block === undefined) throw new Error('no block 2')
    // the header hashes to the block hash, which the block proof puts under the checkpoint root
    expect(bytesToHex(keccak256(headerRlp))).toBe(bytesToHex(block.hash))
    expect(verifyBlockProof(checkpoint.root, keccak256(headerRlp), 1, proof)).toBe(true)
    const header = RLP.decode(headerRlp) as Uint8Array[]
    expect(bytesToHex(header[5] as Uint8Array)).toBe(bytesToHex(block.header.receiptTrie))
    expect(bytesToBigInt(header[8] as Uint8Array)).toBe(2n)
    // the receipt's trie proof: RLP(txIndex 2) = 0x02; node 0 (its raw RLP item) hashes to the receiptsRoot
    expect(bytesToHex(receiptKey)).toBe('0x02')
    const nodes = receiptProof.map((n) => RLP.encode(n))
    expect(bytesToHex(keccak256(nodes[0] as Uint8Array))).toBe(bytesToHex(block.header.receiptTrie))
    const proven = await verifyMerkleProof(receiptKey, nodes, { root: block.header.receiptTrie })
    expect(bytesToHex(proven as Uint8Array)).toBe(bytesToHex(receiptRlp))
    // a legacy receipt is the bare RLP list [status, cumulativeGas, bloom, logs]; log 1 in it is the burn
    expect(receiptRlp[0]).toBeGreaterThanOrEqual(0xc0)
    const [status, , , logs] = RLP.decode(receiptRlp) as [Uint8Array, Uint8Array, Uint8Array, Item[]]
    expect(bytesToHex(status)).toBe('0x01')
    expect(bytesToBigInt(logIndex)).toBe(1n)
    const burn = logs[1] as [Uint8Array, Uint8Array[], Uint8Array]
    expect(isBurnLog(burn)).toBe(true)
    expect(bytesToHex(burn[1][1] as Uint8Array)).toBe(`0x${'00'.repeat(12)}${alice.address.slice(2).toLowerCase()}`)
    expect(bytesToBigInt(burn[2])).toBe(AMOUNT)
    expect(out.blockLogIndex).toBe(3)
    expect(out.logIndex).toBe(1)
    expect(out.txIndex).toBe(2)
  })

  it('takes the same log by its index in the receipt, and a typed receipt is type ‖ RLP', async () => {
    const byBlock = await buildExitPayload(chain, source, { txHash: typedCall, logIndex: 1n })
    const byReceipt = await buildExitPayload(chain, source, { txHash: typedCall, logIndex: 1n, scope: 'receipt' })
    expect(bytesToHex(byReceipt.payload)).toBe(bytesToHex(byBlock.payload))
    expect(byBlock.receiptRlp[0]).toBe(2)
    expect(bytesToHex(byBlock.receiptKey)).toBe('0x01')
    const legacyByReceipt = await buildExitPayload(chain, source, {
      txHash: legacyCall,
      logIndex: 1n,
      scope: 'receipt',
    })
    expect(legacyByReceipt.blockLogIndex).toBe(3)
  })

  it('refuses an unknown transaction, a log of another transaction, a log that is not a burn', async () => {
    await expect(buildExitPayload(chain, source, { txHash: new Uint8Array(32).fill(9), logIndex: 0n })).rejects.toThrow(
      ExitUnknownTxError,
    )
    // block log 1 belongs to typedCall, not legacyCall; block log 4 to nobody
    for (const logIndex of [1n, 4n, -1n]) {
      await expect(buildExitPayload(chain, source, { txHash: legacyCall, logIndex })).rejects.toThrow(ExitLogIndexError)
    }
    await expect(
      buildExitPayload(chain, source, { txHash: legacyCall, logIndex: 2n, scope: 'receipt' }),
    ).rejects.toThrow('log index 2 out of range: the receipt has 2 logs')
    await expect(buildExitPayload(chain, source, { txHash: transferTx, logIndex: 0n })).rejects.toThrow(
      ExitLogIndexError,
    )
    await expect(buildExitPayload(chain, source, { txHash: legacyCall, logIndex: 2n })).rejects.toThrow(NotABurnError)
  })

  it('refuses a block no checkpoint holds yet, naming the last checkpointed block', async () => {
    await expect(buildExitPayload(chain, source, { txHash: afterCheckpoint, logIndex: 1n })).rejects.toThrow(
      new NotCheckpointedError(6n, 5n),
    )
    await expect(
      buildExitPayload(chain, new FixedSource([]), { txHash: afterCheckpoint, logIndex: 1n }),
    ).rejects.toThrow('block 6 is not checkpointed yet (no checkpoint on the base chain)')
  })

  it('refuses a checkpoint whose root is not the local chain’s, and receipts that do not rebuild receiptsRoot', async () => {
    const forged = new FixedSource([{ ...checkpoint, root: new Uint8Array(32).fill(1) }])
    await expect(buildExitPayload(chain, forged, { txHash: typedCall, logIndex: 1n })).rejects.toThrow(
      CheckpointRootMismatchError,
    )
    const damaged: ExitChainReader = {
      ...chain,
      receipts: (h) =>
        store
          .getReceipts(h)
          ?.map((r, i): StoredReceipt => (i === 0 ? { ...r, cumulativeGasUsed: r.cumulativeGasUsed + 1n } : r)),
    }
    await expect(buildExitPayload(damaged, source, { txHash: typedCall, logIndex: 1n })).rejects.toThrow(
      ReceiptsRootMismatchError,
    )
  })
})

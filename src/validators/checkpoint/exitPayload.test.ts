/**
 * Exit payloads over a real in-process dev chain (sealed blocks in RocksDB, test/helpers/burnChain.ts):
 * a contract whose every call emits a non-burn log then an ERC-20 Transfer to the zero address (a
 * burn), called by a 1559 and a legacy transaction in one block, under a checkpoint of blocks 1..5.
 * The payload is decoded and every part checked the way the base-chain vault checks it.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { verifyMerkleProof } from '@ethereumjs/mpt'
import { RLP } from '@ethereumjs/rlp'
import { bytesToBigInt, bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import {
  BURN_AMOUNT,
  BURNER,
  type BurnChain,
  FixedCheckpoints,
  openBurnChain,
} from '../../../test/helpers/burnChain.js'
import type { LogTuple, StoredReceipt } from '../../chain/receipt.js'
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
import { verifyBlockProof } from './root.js'

let dir: string
let c: BurnChain

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ibex-exit-'))
  c = await openBurnChain(dir)
}, 60_000)

afterAll(async () => {
  await c?.db.close()
  rmSync(dir, { recursive: true, force: true })
})

type Item = Uint8Array | Item[]

describe('buildExitPayload', () => {
  it('builds the eight fields, each checkable the way the vault checks it', async () => {
    const out = await buildExitPayload(c.reader, c.source, { txHash: c.tx.legacyCall, logIndex: 3n })
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
    const block = c.store.getBlockByNumber(2n)
    if (block === undefined) throw new Error('no block 2')
    // the header hashes to the block hash, which the block proof puts under the checkpoint root
    expect(bytesToHex(keccak256(headerRlp))).toBe(bytesToHex(block.hash))
    expect(verifyBlockProof(c.checkpoint.root, keccak256(headerRlp), 1, proof)).toBe(true)
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
    expect(bytesToHex(burn[1][1] as Uint8Array)).toBe(`0x${'00'.repeat(12)}${BURNER.address.slice(2).toLowerCase()}`)
    expect(bytesToBigInt(burn[2])).toBe(BURN_AMOUNT)
    expect(out.blockLogIndex).toBe(3)
    expect(out.logIndex).toBe(1)
    expect(out.txIndex).toBe(2)
  })

  it('takes the same log by its index in the receipt, and a typed receipt is type ‖ RLP', async () => {
    const byBlock = await buildExitPayload(c.reader, c.source, { txHash: c.tx.typedCall, logIndex: 1n })
    const byReceipt = await buildExitPayload(c.reader, c.source, {
      txHash: c.tx.typedCall,
      logIndex: 1n,
      scope: 'receipt',
    })
    expect(bytesToHex(byReceipt.payload)).toBe(bytesToHex(byBlock.payload))
    expect(byBlock.receiptRlp[0]).toBe(2)
    expect(bytesToHex(byBlock.receiptKey)).toBe('0x01')
    const legacyByReceipt = await buildExitPayload(c.reader, c.source, {
      txHash: c.tx.legacyCall,
      logIndex: 1n,
      scope: 'receipt',
    })
    expect(legacyByReceipt.blockLogIndex).toBe(3)
  })

  it('refuses an unknown transaction, a log of another transaction, a log that is not a burn', async () => {
    await expect(
      buildExitPayload(c.reader, c.source, { txHash: new Uint8Array(32).fill(9), logIndex: 0n }),
    ).rejects.toThrow(ExitUnknownTxError)
    // block log 1 belongs to typedCall, not legacyCall; block log 4 to nobody
    for (const logIndex of [1n, 4n, -1n]) {
      await expect(buildExitPayload(c.reader, c.source, { txHash: c.tx.legacyCall, logIndex })).rejects.toThrow(
        ExitLogIndexError,
      )
    }
    await expect(
      buildExitPayload(c.reader, c.source, { txHash: c.tx.legacyCall, logIndex: 2n, scope: 'receipt' }),
    ).rejects.toThrow('log index 2 out of range: the receipt has 2 logs')
    await expect(buildExitPayload(c.reader, c.source, { txHash: c.tx.transfer, logIndex: 0n })).rejects.toThrow(
      ExitLogIndexError,
    )
    await expect(buildExitPayload(c.reader, c.source, { txHash: c.tx.legacyCall, logIndex: 2n })).rejects.toThrow(
      NotABurnError,
    )
  })

  it('refuses a block no checkpoint holds yet, naming the last checkpointed block', async () => {
    await expect(buildExitPayload(c.reader, c.source, { txHash: c.tx.afterCheckpoint, logIndex: 1n })).rejects.toThrow(
      new NotCheckpointedError(6n, 5n),
    )
    await expect(
      buildExitPayload(c.reader, new FixedCheckpoints([]), { txHash: c.tx.afterCheckpoint, logIndex: 1n }),
    ).rejects.toThrow('block 6 is not checkpointed yet (no checkpoint on the base chain)')
  })

  it('refuses a checkpoint whose root is not the local chain’s, and receipts that do not rebuild receiptsRoot', async () => {
    const forged = new FixedCheckpoints([{ ...c.checkpoint, root: new Uint8Array(32).fill(1) }])
    await expect(buildExitPayload(c.reader, forged, { txHash: c.tx.typedCall, logIndex: 1n })).rejects.toThrow(
      CheckpointRootMismatchError,
    )
    const damaged: ExitChainReader = {
      ...c.reader,
      receipts: (h) =>
        c.store
          .getReceipts(h)
          ?.map((r, i): StoredReceipt => (i === 0 ? { ...r, cumulativeGasUsed: r.cumulativeGasUsed + 1n } : r)),
    }
    await expect(buildExitPayload(damaged, c.source, { txHash: c.tx.typedCall, logIndex: 1n })).rejects.toThrow(
      ReceiptsRootMismatchError,
    )
  })
})

describe('isBurnLog', () => {
  const word = (fill: number, at = 31) => {
    const w = new Uint8Array(32)
    w[at] = fill
    return w
  }
  const signature = hexToBytes(TRANSFER_TOPIC_HEX)
  const owner = word(0xaa, 12)
  const burn: LogTuple = [new Uint8Array(20), [signature, owner, new Uint8Array(32)], word(5)]

  it('is an ERC-20 Transfer of a non-zero amount from a clean address to address(0)', () => {
    expect(isBurnLog(burn)).toBe(true)
    expect(isBurnLog([burn[0], [signature, owner, word(1)], burn[2]])).toBe(false) // to someone
    expect(isBurnLog([burn[0], burn[1], new Uint8Array(32)])).toBe(false) // zero amount: nothing to pay
    expect(isBurnLog([burn[0], [signature, word(1, 0), new Uint8Array(32)], burn[2]])).toBe(false) // dirty from
    expect(isBurnLog([burn[0], [word(1), owner, new Uint8Array(32)], burn[2]])).toBe(false) // another event
    expect(isBurnLog([burn[0], [...burn[1], word(7)], burn[2]])).toBe(false) // ERC-721's Transfer has 4 topics
    expect(isBurnLog([burn[0], burn[1], new Uint8Array(64)])).toBe(false)
  })
})

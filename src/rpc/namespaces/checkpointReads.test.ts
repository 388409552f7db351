/**
 * bor_getRootHash, validators_getBlockProof and validators_getExitPayload through the dispatcher:
 * the root over a fake chain of real headers (Bor's answers and errors, param decoding as Go's
 * uint64), the proofs over a real in-process dev chain with burns (test/helpers/burnChain.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { bytesToHex, hexToBytes } from '@ethereumjs/util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { type BurnChain, openBurnChain } from '../../../test/helpers/burnChain.js'
import type { ChainBlock } from '../../chain/store.js'
import { buildExitPayload, checkpointRoot, verifyBlockProof } from '../../validators/checkpoint/index.js'
import { borNamespace } from './bor.js'
import { callMethod, chainOf, fakeBackend, testBlock } from './testing.js'
import { validatorsNamespace } from './validators.js'

const HEAD = 40
const blocks = Array.from({ length: HEAD + 1 }, (_, n) => testBlock(BigInt(n)))
const chain = fakeBackend({
  ...chainOf(blocks),
  canonicalHash: (n) => blocks[Number(n)]?.hash,
})
const rootOf = (start: number, end: number) =>
  bytesToHex(checkpointRoot(blocks.slice(start, end + 1).map((b) => b.hash))).slice(2)
const root = (params: unknown[]) => callMethod(borNamespace, chain, 'bor_getRootHash', params)
const server = (message: string) => ({ error: { code: -32000, message } })
const invalid = (message: string) => ({ error: { code: -32602, message } })

describe('bor_getRootHash', () => {
  it('answers the root of the block hashes as lower-case hex without 0x', async () => {
    const one = await root([7, 7])
    expect(one).toEqual({ result: bytesToHex((blocks[7] as ChainBlock).hash).slice(2) })
    for (const [s, e] of [
      [0, 0],
      [1, 4],
      [1, 8],
      [3, 9],
      [0, HEAD],
    ] as const) {
      const { result } = await root([s, e])
      expect(result, `[${s}, ${e}]`).toBe(rootOf(s, e))
      expect(result).toMatch(/^[0-9a-f]{64}$/)
    }
    // a repeated call (Bor's cache) answers the same
    expect(await root([3, 9])).toEqual({ result: rootOf(3, 9) })
  })

  it("refuses ranges with Bor's words and checks, in Bor's order", async () => {
    expect(await root([5, 4])).toEqual(server('Invalid parameters start: 5 and end block: 4 params'))
    expect(await root([1, HEAD + 1])).toEqual(server(`Invalid parameters start: 1 and end block: ${HEAD + 1} params`))
    // end − start + 1 wraps in uint64 when start > end + 1: Bor's length check answers first
    expect(await root([5, 3])).toEqual(server('Start: 5 and end block: 3 exceed max allowed checkpoint length: 32768'))
    expect(await root([0, 32768])).toEqual(
      server('Start: 0 and end block: 32768 exceed max allowed checkpoint length: 32768'),
    )
    // exactly 2^15 blocks passes the length check (then fails on the head here)
    expect(await root([1, 32768])).toEqual(server('Invalid parameters start: 1 and end block: 32768 params'))
  })

  it("decodes start and end as Go's uint64: plain JSON numbers", async () => {
    expect(await root(['0x1', 2])).toEqual(
      invalid('invalid argument 0: json: cannot unmarshal string into Go value of type uint64'),
    )
    expect(await root([1, -2])).toEqual(
      invalid('invalid argument 1: json: cannot unmarshal number -2 into Go value of type uint64'),
    )
    expect(await root([1.5, 2])).toEqual(
      invalid('invalid argument 0: json: cannot unmarshal number 1.5 into Go value of type uint64'),
    )
    expect(await root([1])).toEqual(invalid('missing value for required argument 1'))
    // null leaves Go's zero value
    expect(await root([null, 0])).toEqual({ result: rootOf(0, 0) })
  })
})

describe('validators_getBlockProof / validators_getExitPayload', () => {
  let dir: string
  let c: BurnChain
  let node: ReturnType<typeof fakeBackend>

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'ibex-exit-rpc-'))
    c = await openBurnChain(dir)
    node = fakeBackend({ ...c.reader, head: () => c.store.head, checkpoints: c.source })
  }, 60_000)

  afterAll(async () => {
    await c?.db.close()
    rmSync(dir, { recursive: true, force: true })
  })

  const call = (b: ReturnType<typeof fakeBackend>, method: string, params: unknown[]) =>
    callMethod(validatorsNamespace, b, method, params)

  it('answers -32000 on a node without a checkpoint service', async () => {
    const bare = fakeBackend({ ...c.reader, checkpoints: undefined })
    const message = 'no checkpoint service is configured on this node'
    expect(await call(bare, 'validators_getBlockProof', ['0x2'])).toEqual(server(message))
    expect(await call(bare, 'validators_getExitPayload', [bytesToHex(c.tx.legacyCall), '0x3'])).toEqual(server(message))
  })

  it("proves a block against the checkpoint holding it, and names the last checkpoint's end otherwise", async () => {
    const { result } = (await call(node, 'validators_getBlockProof', ['0x2'])) as { result: Record<string, unknown> }
    expect(result.checkpoint).toEqual({
      id: '0x2710',
      start: '0x1',
      end: '0x5',
      root: bytesToHex(c.checkpoint.root),
      proposer: bytesToHex(c.checkpoint.proposer),
      signers: c.checkpoint.signers.map((s) => bytesToHex(s)),
      baseTxHash: null,
    })
    expect(result.index).toBe('0x1')
    expect(result.blockHash).toBe(bytesToHex(c.store.getHashByNumber(2n) as Uint8Array))
    const proof = hexToBytes(result.proof as `0x${string}`)
    expect(proof.length).toBe(3 * 32) // 5 blocks: a tree of 8
    expect(verifyBlockProof(c.checkpoint.root, hexToBytes(result.blockHash as `0x${string}`), 1, proof)).toBe(true)
    expect(await call(node, 'validators_getBlockProof', ['0x6'])).toEqual(
      server('block 6 is not checkpointed yet (the last checkpoint ends at block 5)'),
    )
  })

  it('answers the exit payload of a burn named by its block log index', async () => {
    const { result } = (await call(node, 'validators_getExitPayload', [bytesToHex(c.tx.legacyCall), '0x3'])) as {
      result: Record<string, unknown>
    }
    const direct = await buildExitPayload(c.reader, c.source, {
      txHash: c.tx.legacyCall,
      logIndex: 1n,
      scope: 'receipt',
    })
    expect(result).toMatchObject({
      payload: bytesToHex(direct.payload),
      blockNumber: '0x2',
      blockHash: bytesToHex(direct.blockHash),
      txIndex: '0x2',
      logIndex: '0x1',
      blockLogIndex: '0x3',
    })
    expect(await call(node, 'validators_getExitPayload', [bytesToHex(c.tx.legacyCall), '0x2'])).toEqual(
      server('log 0 of the receipt is not a burn (an ERC-20 Transfer to the zero address)'),
    )
    expect(await call(node, 'validators_getExitPayload', [`0x${'ab'.repeat(32)}`, '0x0'])).toEqual(
      server('transaction not found'),
    )
    expect(await call(node, 'validators_getExitPayload', [bytesToHex(c.tx.afterCheckpoint), '0x1'])).toEqual(
      server('block 6 is not checkpointed yet (the last checkpoint ends at block 5)'),
    )
  })
})

/**
 * CheckpointHistory over a fake base chain that answers eth_getLogs and the manager's views from a
 * list of stored checkpoints: events read in pages forward and, until the constructor's set event,
 * backward; a checkpoint by id and by block (binary search over headerBlocks); uptime from the
 * kept CheckpointSigners and ValidatorSetUpdated events.
 */
import { describe, expect, it } from 'vitest'

import { createLogger } from '../../log.js'
import type { BaseChain, ManagerReader } from './baseChain.js'
import { CheckpointHistory, LOG_PAGE_BLOCKS } from './history.js'
import { addressWord, type HeaderBlock, type RawLog, TOPICS, uintWord } from './managerAbi.js'

const a = (byte: number) => Uint8Array.from({ length: 20 }, () => byte)
const MANAGER = a(0xcc)
const concat = (...parts: Uint8Array[]) => Uint8Array.from(parts.flatMap((p) => [...p]))
const addresses = (list: Uint8Array[]) => concat(uintWord(BigInt(list.length)), ...list.map(addressWord))

/** A base chain holding `stored` checkpoints, one every `gap` base blocks from `deployedAt`. */
function fakeBase(stored: { start: bigint; end: bigint; signers: Uint8Array[] }[], deployedAt: bigint, gap: bigint) {
  const set = [a(1), a(2), a(3), a(4)]
  const logs: RawLog[] = [
    {
      topics: [TOPICS.validatorSetUpdated, uintWord(0n)],
      data: concat(uintWord(64n), uintWord(64n + 32n + 32n * 4n), addresses(set), uintWord(4n), ...set.map(() => uintWord(1n))),
      blockNumber: deployedAt,
      transactionHash: new Uint8Array(32),
    },
  ]
  const headers = new Map<bigint, HeaderBlock>()
  stored.forEach((c, i) => {
    const id = BigInt(i + 1) * 10_000n
    const blockNumber = deployedAt + BigInt(i + 1) * gap
    const root = uintWord(BigInt(i + 1))
    headers.set(id, { id, root, start: c.start, end: c.end, createdAt: blockNumber * 12n, proposer: a(1) })
    logs.push({
      topics: [TOPICS.newHeaderBlock, addressWord(a(1)), uintWord(id), uintWord(0n)],
      data: concat(uintWord(c.start), uintWord(c.end), root),
      blockNumber,
      transactionHash: uintWord(id),
    })
    logs.push({ topics: [TOPICS.checkpointSigners, uintWord(id)], data: concat(uintWord(32n), addresses(c.signers)), blockNumber, transactionHash: uintWord(id) })
  })
  const head = deployedAt + BigInt(stored.length + 1) * gap
  const pages: [bigint, bigint][] = []
  const chain = {
    blockNumber: async () => head,
    logs: async (_address: Uint8Array, _topics: unknown, from: bigint, to: bigint) => {
      pages.push([from, to])
      return logs.filter((l) => l.blockNumber >= from && l.blockNumber <= to)
    },
  } as unknown as BaseChain
  const reader = {
    address: MANAGER,
    currentHeaderBlock: async () => BigInt(stored.length) * 10_000n,
    headerBlock: async (id: bigint) =>
      headers.get(id) ?? { id, root: new Uint8Array(32), start: 0n, end: 0n, createdAt: 0n, proposer: new Uint8Array(20) },
  } as unknown as ManagerReader
  return { chain, reader, pages, set }
}

const ranges = (n: number, signers: (k: number) => Uint8Array[]) =>
  Array.from({ length: n }, (_, i) => ({ start: BigInt(i * 10 + 1), end: BigInt(i * 10 + 10), signers: signers(i + 1) }))

describe('CheckpointHistory', () => {
  it('reads back to the deployment, finds checkpoints by id and by block, and computes uptime', async () => {
    const stored = ranges(12, (k) => (k > 8 ? [a(1), a(2), a(3)] : [a(1), a(2), a(3), a(4)]))
    const base = fakeBase(stored, 1_000n, 3_000n)
    const history = new CheckpointHistory({ chain: base.chain, reader: base.reader, uptimeWindow: 700, log: createLogger('silent') })
    await history.refresh()
    expect(history.count).toBe(12n)
    // backward from the head in pages until the constructor's event (deployment at base block 1000)
    expect(base.pages.every(([from, to]) => to - from + 1n <= LOG_PAGE_BLOCKS)).toBe(true)
    expect(base.pages.some(([from, to]) => from <= 1_000n && to >= 1_000n)).toBe(true)
    expect((await history.latest())?.id).toBe(120_000n)
    const c5 = await history.checkpoint(50_000n)
    expect([c5?.start, c5?.end, c5?.signers.length]).toEqual([41n, 50n, 4])
    expect((await history.checkpointOfBlock(1n))?.id).toBe(10_000n)
    expect((await history.checkpointOfBlock(95n))?.id).toBe(100_000n)
    expect((await history.checkpointOfBlock(120n))?.id).toBe(120_000n)
    expect(await history.checkpointOfBlock(121n)).toBeUndefined()
    expect(await history.checkpoint(130_000n)).toBeUndefined()
    const u = history.uptime(base.set)
    expect(u.checkpoints).toBe(12)
    expect(u.validators.map((v) => [v.signed, v.of, v.health])).toEqual([
      [12, 12, 'healthy'],
      [12, 12, 'healthy'],
      [12, 12, 'healthy'],
      [8, 12, 'grace period'],
    ])
    // a refresh with nothing new reads nothing more
    const before = base.pages.length
    await history.refresh()
    expect(base.pages.length).toBe(before)
  })
})

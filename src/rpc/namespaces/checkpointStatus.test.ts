/**
 * validators_getCheckpoint, …CheckpointCount, …CheckpointProposal, …CheckpointOfBlock and
 * validators_getUptime through the dispatcher, over a fake checkpoint layer (the base-chain half is
 * tested against anvil in test/checkpoint/network.test.ts).
 */
import { describe, expect, it } from 'vitest'

import type { CheckpointStatusView } from '../../consensus/checkpoints.js'
import type { Checkpoint, CheckpointSource } from '../../validators/checkpoint/index.js'
import type { ProposalView } from '../../validators/checkpoint/service.js'
import { UPTIME_SCALE } from '../../validators/checkpoint/uptime.js'
import { callMethod, fakeBackend } from './testing.js'
import { validatorsNamespace } from './validators.js'

const a = (byte: number) => Uint8Array.from({ length: 20 }, () => byte)
const root = Uint8Array.from({ length: 32 }, () => 7)
const checkpoints: Checkpoint[] = [
  { id: 10_000n, start: 1n, end: 10n, root, proposer: a(1), signers: [a(1), a(2)] },
  { id: 20_000n, start: 11n, end: 15n, root, proposer: a(2), signers: [a(1), a(2)], baseTxHash: root },
]
const source: CheckpointSource = {
  checkpoint: async (id) => checkpoints.find((c) => c.id === id),
  latest: async () => checkpoints.at(-1),
  checkpointOfBlock: async (n) => checkpoints.find((c) => c.start <= n && n <= c.end),
}
const proposal: ProposalView = {
  proposer: a(1),
  start: 16n,
  end: 20n,
  root,
  newSigners: [],
  newPowers: [],
  signers: [a(1)],
  signedPower: 1n,
  totalPower: 2n,
  quorum: false,
  submitted: undefined,
}
const status: CheckpointStatusView = {
  count: () => 2n,
  proposals: () => [proposal],
  lastUptime: () => undefined,
  uptime: async () => ({
    latest: 20_000n,
    checkpoints: 2,
    medianPpm: UPTIME_SCALE,
    benchmarkPpm: (UPTIME_SCALE * 95n) / 100n,
    validators: [
      { signer: a(1), signed: 2, of: 2, uptimePpm: UPTIME_SCALE, health: 'healthy' },
      { signer: a(3), signed: 1, of: 2, uptimePpm: UPTIME_SCALE / 2n, health: 'grace period' },
    ],
  }),
}
const head = { header: { number: 20n }, hash: root }
const backend = fakeBackend({
  checkpoints: source,
  checkpointStatus: status,
  head: () => head as never,
  // the DAO's set at the head names a(1) (seat 51) only
  call: async () => {
    throw new Error('no DAO here')
  },
})
const call = (method: string, params: unknown[] = []) => callMethod(validatorsNamespace, backend, method, params)
const hex = (b: Uint8Array) => `0x${Buffer.from(b).toString('hex')}`

describe('checkpoint methods of the validators namespace', () => {
  it('answer checkpoints by id, latest, count and by block', async () => {
    const second = {
      id: '0x4e20',
      start: '0xb',
      end: '0xf',
      root: hex(root),
      proposer: hex(a(2)),
      signers: [hex(a(1)), hex(a(2))],
      baseTxHash: hex(root),
    }
    expect(await call('validators_getCheckpoint', ['latest'])).toEqual({ result: second })
    expect(await call('validators_getCheckpoint', ['0x4e20'])).toEqual({ result: second })
    expect((await call('validators_getCheckpoint', ['0x2710'])).result).toMatchObject({ id: '0x2710', baseTxHash: null })
    expect(await call('validators_getCheckpoint', ['0x7530'])).toEqual({ result: null })
    expect(await call('validators_getCheckpointCount')).toEqual({ result: '0x2' })
    expect((await call('validators_getCheckpointOfBlock', ['0xc'])).result).toMatchObject({ id: '0x4e20' })
    expect(await call('validators_getCheckpointOfBlock', ['0x10'])).toEqual({ result: null })
  })

  it('refuses an id that is not a multiple of 10000', async () => {
    const answer = await call('validators_getCheckpoint', ['0x5'])
    expect(answer.error?.code).toBe(-32602)
    expect(answer.error?.message).toMatch(/checkpoint id 5 is not a positive multiple of 10000/)
  })

  it('shows the proposal being voted and the uptime table', async () => {
    expect(await call('validators_getCheckpointProposal')).toEqual({
      result: {
        proposer: hex(a(1)),
        start: '0x10',
        end: '0x14',
        root: hex(root),
        newSigners: [],
        newPowers: [],
        signers: [hex(a(1))],
        signedPower: '0x1',
        totalPower: '0x2',
        quorum: false,
        submitted: null,
      },
    })
    const { result } = await call('validators_getUptime')
    expect(result).toMatchObject({ latest: '0x4e20', checkpoints: 2, median: 1, benchmark: 0.95 })
    expect((result as { validators: unknown[] }).validators).toEqual([
      { signer: hex(a(1)), seat: null, signed: 2, of: 2, uptime: 1, health: 'healthy' },
      { signer: hex(a(3)), seat: null, signed: 1, of: 2, uptime: 0.5, health: 'grace period' },
    ])
  })

  it('answers -32000 on a node without checkpoints', async () => {
    const bare = fakeBackend({ checkpoints: undefined, checkpointStatus: undefined })
    for (const m of ['validators_getCheckpointCount', 'validators_getCheckpointProposal', 'validators_getUptime']) {
      expect(await callMethod(validatorsNamespace, bare, m, [])).toEqual({
        error: { code: -32000, message: 'no checkpoint service is configured on this node' },
      })
    }
  })
})

/**
 * The checkpoint gauges of NodeMetrics: the base chain's checkpoint count and each current
 * signer's uptime and health, read from the checkpoint layer at scrape time.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import type { ChainStore } from '../chain/store.js'
import type { CheckpointStatusView } from '../consensus/checkpoints.js'
import { UPTIME_SCALE } from '../validators/checkpoint/uptime.js'
import { NodeMetrics } from './metrics.js'

const dir = mkdtempSync(join(tmpdir(), 'ibex-metrics-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const store = {
  head: { header: { number: 12n, timestamp: 1_700_000_000n } },
  flat: { stats: () => ({ valid: true, backfills: 0, invalidations: 0, backfillRows: 0 }) },
} as unknown as ChainStore
const a = (byte: number) => Uint8Array.from({ length: 20 }, () => byte)

describe('checkpoint gauges', () => {
  it('show the checkpoint count and every signer uptime and health', async () => {
    const checkpoints: CheckpointStatusView = {
      count: () => 7n,
      proposals: () => [],
      uptime: async () => {
        throw new Error('not read at scrape time')
      },
      lastUptime: () => ({
        latest: 70_000n,
        checkpoints: 7,
        medianPpm: UPTIME_SCALE,
        benchmarkPpm: (UPTIME_SCALE * 95n) / 100n,
        validators: [
          { signer: a(1), signed: 7, of: 7, uptimePpm: UPTIME_SCALE, health: 'healthy' },
          { signer: a(2), signed: 5, of: 7, uptimePpm: 714_285n, health: 'grace period' },
        ],
      }),
    }
    const metrics = new NodeMetrics({ store, chainDir: dir, checkpoints }, { version: 'test', network: 'dev', chainId: '1' })
    const { text } = await metrics.scrape()
    expect(text).toContain('ibex_checkpoint_count 7')
    expect(text).toContain(`ibex_checkpoint_uptime_ratio{signer="0x${'01'.repeat(20)}"} 1`)
    expect(text).toContain(`ibex_checkpoint_uptime_ratio{signer="0x${'02'.repeat(20)}"} 0.714285`)
    expect(text).toContain(`ibex_checkpoint_health{signer="0x${'02'.repeat(20)}"} 1`)
    expect(text).toContain(`ibex_checkpoint_health{signer="0x${'01'.repeat(20)}"} 0`)
  })

  it('are absent on a node without checkpoints', async () => {
    const metrics = new NodeMetrics({ store, chainDir: dir }, { version: 'test', network: 'dev', chainId: '1' })
    expect((await metrics.scrape()).text).not.toContain('ibex_checkpoint_')
  })
})

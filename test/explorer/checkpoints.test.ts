/**
 * The explorer's checkpoint and uptime views in headless Chromium, against a JSON-RPC port that
 * serves the `validators` checkpoint methods from a fixed history of 25 checkpoints (the answers
 * are typed with the namespace's own CheckpointJson, so their shape is the node's). The same pages
 * against a live checkpoint service (anvil, a deployed CheckpointManager, four validators) are
 * checked in test/checkpoint/network.test.ts; here what a short live run cannot reach is: a list
 * of three pages, a checkpoint with a missing signer, 80 % uptime in grace period, and bad ids.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ExplorerSite } from '../../src/explorer/site.js'
import type { CheckpointJson } from '../../src/rpc/namespaces/checkpointStatus.js'
import { Quantity } from '../../src/rpc/params/index.js'
import { RpcHttpServer } from '../../src/rpc/server/http.js'
import type { Namespace } from '../../src/rpc/types.js'
import { type Browser, launchBrowser, openPage, searchFor } from './browser.js'

/** Checkpoints in the fixed history: three pages of the list's ten. */
const COUNT = 25
const STEP = 10_000n
const BLOCKS_PER_CHECKPOINT = 64n
const SIGNERS = ['0x00000000000000000000000000000000000000a1', '0x00000000000000000000000000000000000000a2', '0x00000000000000000000000000000000000000a3']
const q = (n: bigint | number) => `0x${BigInt(n).toString(16)}`

function checkpointAt(k: bigint): CheckpointJson {
  return {
    id: q(k * STEP),
    start: q((k - 1n) * BLOCKS_PER_CHECKPOINT + 1n),
    end: q(k * BLOCKS_PER_CHECKPOINT),
    root: `0x${k.toString(16).padStart(64, 'c')}`,
    proposer: SIGNERS[Number(k % 3n)],
    // the third validator missed every fifth checkpoint
    signers: k % 5n === 0n ? SIGNERS.slice(0, 2) : SIGNERS,
    baseTxHash: `0x${k.toString(16).padStart(64, 'b')}`,
  }
}

const validators: Namespace<object> = {
  name: 'validators',
  methods: {
    validators_getCheckpointCount: { params: [], handler: () => q(COUNT) },
    validators_getCheckpoint: {
      params: [Quantity],
      handler: (_ctx, [id]) => {
        const k = (id as bigint) / STEP
        return (id as bigint) % STEP === 0n && k >= 1n && k <= BigInt(COUNT) ? checkpointAt(k) : null
      },
    },
    validators_getValidators: {
      params: [],
      handler: () =>
        SIGNERS.map((signer, i) => ({ seat: q(i + 1), holder: signer, signer, power: q(10n ** 24n), committeePower: q(1), inCommittee: true })),
    },
    validators_getUptime: {
      params: [],
      handler: () => ({
        latest: q(BigInt(COUNT) * STEP),
        checkpoints: COUNT,
        median: 1,
        benchmark: 0.95,
        validators: SIGNERS.map((signer, i) => ({
          signer,
          seat: q(i + 1),
          signed: i === 2 ? COUNT - 5 : COUNT,
          of: COUNT,
          uptime: i === 2 ? 0.8 : 1,
          health: i === 2 ? 'grace period' : 'healthy',
        })),
      }),
    },
  },
}
const eth: Namespace<object> = { name: 'eth', methods: { eth_blockNumber: { params: [], handler: () => q(BigInt(COUNT) * BLOCKS_PER_CHECKPOINT) } } }

let server: RpcHttpServer<object>
let base: string
let browser: Browser

beforeAll(async () => {
  server = new RpcHttpServer<object>({
    host: '127.0.0.1',
    port: 0,
    corsOrigins: [],
    maxBodyBytes: 1 << 20,
    maxBatchItems: 100,
    namespaces: [eth, validators],
    enabledApis: ['eth', 'validators'],
    ctx: {},
    health: () => ({ ok: true, body: {} }),
    site: new ExplorerSite({ path: '/explorer/', network: 'dev', chainName: 'Checkpoint fixture', symbol: 'IBX' }),
  })
  const { url } = await server.start()
  base = `${url}/explorer/`
  browser = await launchBrowser(() => [new URL(url).origin])
}, 60_000)

afterAll(async () => {
  await browser?.close()
  await server?.stop()
})

describe('checkpoint pages in Chromium', () => {
  it('lists checkpoints newest first, ten a page', async () => {
    const first = await openPage(browser.page, base, '#/checkpoints')
    expect(first).toContain(`Checkpoints (${COUNT})`)
    expect(first).toContain('#250000')
    expect(first).toContain('#160000')
    expect(first).not.toContain('#150000')
    expect(first).toContain('page 1 of 3')
    const last = await openPage(browser.page, base, '#/checkpoints?page=3')
    expect(last).toContain('#10000')
    expect(last).toContain('#50000')
    expect(last).not.toContain('#60000')
    expect(await openPage(browser.page, base, '#/checkpoints?page=4')).toContain('page 4 is beyond the last (3)')
  })

  it('shows a checkpoint with its range, root, base-chain transaction and signers', async () => {
    const text = await openPage(browser.page, base, '#/checkpoint/50000')
    const c = checkpointAt(5n)
    expect(text).toContain('Checkpoint #50000')
    expect(text).toMatch(/blocks\s+#257 – #320 \(64 blocks\)/)
    expect(text).toContain(c.root)
    expect(text).toContain(c.baseTxHash as string)
    expect(text).toContain('Signers (2)')
    expect(await openPage(browser.page, base, '#/checkpoint/40000')).toContain('Signers (3)')
    expect(await openPage(browser.page, base, '#/checkpoint/990000')).toContain('There is no checkpoint #990000')
    expect(await openPage(browser.page, base, '#/checkpoint/12')).toContain('There is no checkpoint #12')
  })

  it('search finds a checkpoint by id', async () => {
    expect(await searchFor(browser.page, 'checkpoint 30000', '/checkpoint/30000')).toContain('Checkpoint #30000')
  })

  it('shows uptime and health beside each validator', async () => {
    const text = await openPage(browser.page, base, '#/validators')
    expect(text).toContain('Validators (3)')
    expect(text).toMatch(/100\.00 % \(25\/25\)\s+healthy/)
    expect(text).toMatch(/80\.00 % \(20\/25\)\s+grace period/)
    expect(text).toContain('Uptime over the last 25 checkpoints')
  })

  it('logged no console error and asked no other origin', () => {
    expect(browser.errors).toEqual([])
    expect(browser.foreign).toEqual([])
  })
})

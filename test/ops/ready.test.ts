/**
 * GET /ready with real processes: ready means serving a head that moves as the chain's block time
 * says, or being the sole validator. A dev node is ready; a node that can never follow (p2p off,
 * not a validator, a stale head: the default `ibex start` on a public preset) is not, and says why
 * in its log; on a two-node network of `ibex genesis` configs (which start the custom chain) the
 * follower is ready, and stops being ready when the chain halts.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { spawnSync } from 'node:child_process'
import { afterAll, describe, expect, it } from 'vitest'
import { REPO_ROOT } from '../helpers/compile.js'
import { IBEX_BIN, cleanupNodes, freePort, makeTempDir, rpc, startNode, waitFor } from '../helpers/node.js'

afterAll(cleanupNodes)

const BIN = process.env.IBEX_E2E_BIN ?? IBEX_BIN
/** The custom network's block time, s: the follower may trail 3 of them (+1 s) and stay ready. */
const BLOCK_TIME_S = 2
/** Generous bounds for a loaded 2-core machine: these wait for something to happen, never for it not to. */
const SYNC_TIMEOUT_MS = 60_000

async function ready(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const res = await fetch(`${url}/ready`)
  return { status: res.status, body: (await res.json()) as Record<string, unknown> }
}

describe('/ready', () => {
  it('a dev node (the sole validator) is ready, whatever its head age', async () => {
    const node = await startNode()
    const r = await ready(node.url)
    expect(r.status).toBe(200)
    expect(r.body).toMatchObject({ ready: true, soleValidator: true, maxHeadAgeSeconds: null })
    await node.stop()
  })

  it('a node that cannot follow (testnet preset, p2p off, no validator key) is not ready, and warns', async () => {
    const node = await startNode({ network: 'testnet' })
    const r = await ready(node.url)
    expect(r.status).toBe(503)
    // testnet has 4 validators: 3 block times of 2 s, one round change (10 s + 2 s), 1 s timestamp resolution
    expect(r.body).toMatchObject({ ready: false, soleValidator: false, maxHeadAgeSeconds: 19 })
    expect(r.body.reasons).toEqual(['head stale', 'cannot follow'])
    expect(r.body.headAgeSeconds).toBeGreaterThan(19)
    expect((await fetch(`${node.url}/health`)).status).toBe(200)
    expect(node.stderr()).toContain(
      'this node cannot follow its chain: p2p is off and this node is not the sole validator',
    )
    await node.stop()
  })

  it('on a two-node network of ibex genesis configs the follower is ready; a halted chain is not', async () => {
    const dir = makeTempDir('ibex-ready-net-')
    const out = join(dir, 'net')
    const made = spawnSync(
      process.execPath,
      [
        BIN,
        'genesis',
        '--validators',
        '1',
        '--full-nodes',
        '1',
        '--chain-id',
        '4244',
        '--block-time',
        `${BLOCK_TIME_S}s`,
      ].concat(['--out', out, '--p2p-base-port', String(await freePort()), '--http-base-port', '18545']),
      { cwd: REPO_ROOT, encoding: 'utf8' },
    )
    expect(made.status, made.stderr).toBe(0)
    // the node configs name the genesis file, not a network preset
    expect(readFileSync(join(out, 'node1', 'config.toml'), 'utf8')).not.toMatch(/^network *=/m)
    const start = (i: number) =>
      startNode({
        network: false,
        datadir: join(out, `node${i}`),
        args: ['--config', join(out, `node${i}`, 'config.toml')],
      })
    const validator = await start(1)
    expect(validator.stdout()).toContain(`genesis ${join(out, 'genesis.json')}, chain id 4244`)
    expect(await rpc<string>(validator.url, 'eth_chainId')).toBe('0x1094')
    const follower = await start(2)
    const readyNow = (url: string) => async () => {
      const r = await ready(url)
      return r.status === 200 ? r : false
    }
    // the validator's config lists the follower as a bootnode: ready once they are connected
    const sealing = await waitFor(readyNow(validator.url), { timeoutMs: SYNC_TIMEOUT_MS, what: 'validator ready' })
    expect(sealing.body).toMatchObject({ soleValidator: true, maxHeadAgeSeconds: null })

    const blocks = async (url: string) => BigInt(await rpc<string>(url, 'eth_blockNumber'))
    await waitFor(async () => (await blocks(follower.url)) >= 2n, {
      timeoutMs: SYNC_TIMEOUT_MS,
      what: 'follower at block 2',
    })
    const live = await waitFor(readyNow(follower.url), { timeoutMs: SYNC_TIMEOUT_MS, what: 'follower ready' })
    expect(live.body).toMatchObject({ soleValidator: false, peers: 1, maxHeadAgeSeconds: 3 * BLOCK_TIME_S + 1 })

    // the chain halts: the follower's head stops moving and, past the tolerance, it leaves rotation
    await validator.stop()
    const stale = async () => {
      const r = await ready(follower.url)
      return r.status === 503 && (r.body.reasons as string[]).includes('head stale') ? r : false
    }
    const halted = await waitFor(stale, { timeoutMs: SYNC_TIMEOUT_MS, what: 'follower "head stale" after the halt' })
    expect(halted.body.headAgeSeconds).toBeGreaterThan(3 * BLOCK_TIME_S)
    await follower.stop()
  })
})

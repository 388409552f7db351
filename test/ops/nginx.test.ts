/**
 * Scale-out: Debian's nginx with deploy/nginx/ (the upstream and location rules as shipped, only
 * the addresses changed) in front of two full nodes that follow one validator over p2p. Requests
 * through nginx keep succeeding while either full node is stopped; a client's filter stays on its
 * node (sticky routing). Skipped where nginx is not installed (.ci/run installs it).
 */
import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'

import type { Pool } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { REPO_ROOT } from '../helpers/compile.js'
import {
  cleanupNodes,
  IBEX_BIN,
  type IbexNode,
  freePort,
  makeTempDir,
  rpc,
  startNode,
  waitFor,
} from '../helpers/node.js'
import { call, clientFrom, post } from './client.js'

const NGINX = ['/usr/sbin/nginx', '/usr/bin/nginx'].find((p) => existsSync(p))
const DEPLOY = join(REPO_ROOT, 'deploy', 'nginx')
/** Load before and while a node is down, ms. */
const LOAD_MS = 2500
/** Clients, each from its own loopback address (so both upstreams get some: routing is by client IP). */
const CLIENT_IPS = ['127.0.0.2', '127.0.0.3', '127.0.0.4', '127.0.0.5', '127.0.0.6', '127.0.0.7']

function portFree(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const srv = createServer()
    srv.once('error', () => resolve(false))
    srv.listen(port, '0.0.0.0', () => srv.close(() => resolve(true)))
  })
}

async function freeRun(count: number): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 30_000)
    let ok = true
    for (let p = base; p < base + count && ok; p++) ok = await portFree(p)
    if (ok) return base
  }
  throw new Error('no free ports')
}

let dir: string
let nginx: ChildProcess | undefined
let nginxUrl: string
const nodes: IbexNode[] = []
const pools: Pool[] = []

/** Starts node i (1 = validator, 2 and 3 = full nodes) of the `ibex genesis` layout. */
function startLayoutNode(i: number): Promise<IbexNode> {
  const nodeDir = join(dir, `node${i}`)
  return startNode({
    datadir: nodeDir,
    network: false,
    logLevel: 'info',
    args: ['--config', join(nodeDir, 'config.toml'), '--rpc.trusted-proxies', '127.0.0.1', '--rpc.ratelimit', '5000'],
  })
}

async function headOf(url: string): Promise<number> {
  return Number(BigInt(await rpc<string>(url, 'eth_blockNumber')))
}

async function waitSynced(full: IbexNode, validator: IbexNode): Promise<void> {
  await waitFor(async () => (await headOf(full.url)) >= Math.max(2, (await headOf(validator.url)) - 1), {
    timeoutMs: 30_000,
    intervalMs: 200,
    what: `full node ${full.url} to follow the validator`,
  })
}

function upstreamPort(node: IbexNode): number {
  return Number(new URL(node.url).port)
}

async function startNginx(ports: number[]): Promise<void> {
  const prefix = join(dir, 'nginx')
  mkdirSync(join(prefix, 'tmp'), { recursive: true })
  chmodSync(dir, 0o755)
  chmodSync(prefix, 0o755)
  chmodSync(join(prefix, 'tmp'), 0o777)
  const listen = await freePort()
  // the shipped upstream block, pointed at the two full nodes
  const servers = ports.map((p) => `    server 127.0.0.1:${p} max_fails=1 fail_timeout=10s;`).join('\n')
  const upstreams = readFileSync(join(DEPLOY, 'ibex-upstreams.conf'), 'utf8').replace(
    /( {4}server 10\.0\.0\.\d+:8545[^\n]*\n)+/,
    `${servers}\n`,
  )
  expect(upstreams).toContain(`127.0.0.1:${ports[1]}`)
  const conf = [
    'worker_processes 1;',
    `pid ${prefix}/nginx.pid;`,
    `error_log ${prefix}/error.log warn;`,
    'events { worker_connections 1024; }',
    'http {',
    '  access_log off;',
    ...['client_body', 'proxy', 'fastcgi', 'uwsgi', 'scgi'].map((t) => `  ${t}_temp_path ${prefix}/tmp/${t};`),
    upstreams,
    `  server {\n    listen 127.0.0.1:${listen};\n    include ${join(DEPLOY, 'ibex-locations.inc')};\n  }`,
    '}',
  ].join('\n')
  const file = join(prefix, 'nginx.conf')
  writeFileSync(file, conf)
  execFileSync(NGINX as string, ['-t', '-p', prefix, '-c', file, '-e', join(prefix, 'error.log')], { stdio: 'pipe' })
  nginx = spawn(NGINX as string, ['-p', prefix, '-c', file, '-e', join(prefix, 'error.log'), '-g', 'daemon off;'], {
    stdio: 'ignore',
  })
  nginxUrl = `http://127.0.0.1:${listen}`
  let last = ''
  await waitFor(
    async () => {
      const res = await fetch(`${nginxUrl}/ready`).catch((e: Error) => e)
      last = res instanceof Error ? res.message : `${res.status} ${await res.text()}`
      return last.startsWith('200')
    },
    { timeoutMs: 10_000, what: 'nginx to proxy /ready' },
  ).catch((err: Error) => {
    const log = existsSync(join(prefix, 'error.log')) ? readFileSync(join(prefix, 'error.log'), 'utf8') : ''
    throw new Error(`${err.message}: last ${last}\n${log.slice(-2000)}`)
  })
}

/** Sends a read mix through nginx from every client address until `until` resolves; returns failures. */
async function loadThrough(until: Promise<unknown>): Promise<{ ok: number; failures: string[] }> {
  let running = true
  void until.finally(() => {
    running = false
  })
  const failures: string[] = []
  let ok = 0
  const mix = [
    () => call('eth_blockNumber'),
    () => call('eth_chainId'),
    () => call('eth_getBlockByNumber', ['latest', false]),
    () => [call('eth_blockNumber'), call('net_version')],
  ]
  await Promise.all(
    CLIENT_IPS.map(async (ip, c) => {
      const pool = clientFrom(nginxUrl, ip, 1)
      pools.push(pool)
      for (let i = 0; running; i++) {
        try {
          const r = await post(pool, (mix[(c + i) % mix.length] as () => unknown)())
          const answers = Array.isArray(r.json) ? r.json : [r.json]
          if (r.status === 200 && answers.every((a) => a?.result !== undefined)) ok++
          else failures.push(`${ip}: HTTP ${r.status} ${r.text.slice(0, 200)}`)
        } catch (err) {
          failures.push(`${ip}: ${(err as Error).message}`)
        }
      }
    }),
  )
  return { ok, failures }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

describe.skipIf(NGINX === undefined)('nginx in front of two full nodes', () => {
  beforeAll(async () => {
    dir = makeTempDir('ibex-nginx-')
    const p2p = await freeRun(3)
    execFileSync(
      process.execPath,
      [
        IBEX_BIN,
        'genesis',
        '--network',
        'testnet',
        '--validators',
        '1',
        '--full-nodes',
        '2',
        '--block-time',
        '1s',
        '--p2p-base-port',
        String(p2p),
        '--out',
        dir,
      ],
      { cwd: REPO_ROOT, stdio: 'pipe' },
    )
    nodes.push(await startLayoutNode(1))
    nodes.push(await startLayoutNode(2), await startLayoutNode(3))
    await Promise.all([
      waitSynced(nodes[1] as IbexNode, nodes[0] as IbexNode),
      waitSynced(nodes[2] as IbexNode, nodes[0] as IbexNode),
    ])
    await startNginx([upstreamPort(nodes[1] as IbexNode), upstreamPort(nodes[2] as IbexNode)])
  }, 120_000)

  afterAll(async () => {
    await Promise.allSettled(pools.map((p) => p.destroy()))
    if (nginx?.pid !== undefined && nginx.exitCode === null) {
      const exited = new Promise((r) => nginx?.once('exit', r))
      process.kill(nginx.pid, 'SIGTERM')
      await Promise.race([exited, sleep(5000)])
      if (nginx.exitCode === null) process.kill(nginx.pid, 'SIGKILL')
    }
    await cleanupNodes()
  })

  it('keeps answering while either full node is stopped', async () => {
    for (const stopped of [1, 2]) {
      const node = nodes[stopped] as IbexNode
      const stopping = (async () => {
        await sleep(LOAD_MS / 2)
        expect((await node.stop()).code).toBe(0)
        await sleep(LOAD_MS)
      })()
      const { ok, failures } = await loadThrough(stopping)
      await stopping
      console.log(`nginx: full node ${stopped + 1} stopped mid-load: ${ok} answered, ${failures.length} failed`)
      expect(failures).toEqual([])
      expect(ok).toBeGreaterThan(100)
      // the stopped node comes back, catches up over p2p and takes traffic again
      nodes[stopped] = await startLayoutNode(stopped + 1)
      await waitSynced(nodes[stopped] as IbexNode, nodes[0] as IbexNode)
      await startNginxUpstreamsAgain()
    }
  }, 120_000)

  it('routes a client to one node, so its polling filter keeps working', async () => {
    const pool = clientFrom(nginxUrl, '127.0.0.8', 1)
    pools.push(pool)
    const id = (await post(pool, call('eth_newBlockFilter'))).json.result as string
    expect(id).toMatch(/^0x/)
    await sleep(2500)
    const changes = await post(pool, call('eth_getFilterChanges', [id]))
    expect(changes.json.error).toBeUndefined()
    expect(changes.json.result.length).toBeGreaterThanOrEqual(1)
  })
})

/** A restarted node listens on a new port: nginx gets the new upstream list (reload). */
async function startNginxUpstreamsAgain(): Promise<void> {
  if (nginx?.pid !== undefined) {
    const exited = new Promise((r) => nginx?.once('exit', r))
    process.kill(nginx.pid, 'SIGTERM')
    await exited
  }
  await startNginx([upstreamPort(nodes[1] as IbexNode), upstreamPort(nodes[2] as IbexNode)])
}

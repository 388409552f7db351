/**
 * `npm run profile`: flame graphs (0x) of ibex's main thread under the read mix, and of block
 * building in process.
 *
 *   npm run profile -- [readmix|blocks|all] [--seconds 20] [--out prof]
 *
 *   readmix  seed a small chain (SEED below) into a scratch datadir, start `ibex start` under 0x,
 *            send the public read mix closed loop on PROFILE_CONNECTIONS for --seconds, stop ibex
 *            with SIGINT; 0x turns the V8 tick log into <out>/readmix-<stamp>/flamegraph.html
 *   blocks   bench/block-exec.ts (BLOCK_EXEC_ARGS: transfers admitted and sealed into 60M-gas
 *            blocks, fsynced commits) under 0x: <out>/blocks-<stamp>/flamegraph.html
 *
 * 0x profiles the process's main thread (its isolate log); worker threads (eth_call, traces) are
 * profiled with `node --cpu-prof`, whose per-thread .cpuprofile files 0x also renders
 * (`npx 0x --visualize-cpu-profile FILE`): see bench/README.md.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { generate } from './load/index.js'
import { ibexStartArgs, prepareIbex } from './peers/ibex.js'
import { descendants, freePort, spawnTracked } from './peers/process.js'
import { REPO } from './repo.js'
import { waitForRpc } from './rpc.js'
import { RequestFactory } from './scenarios/requests.js'
import { buildSeedPlan, DEFAULT_SEED } from './seed/plan.js'

/** Seeded chain of the read-mix profile: enough history for the mix's receipts and logs, seeded in seconds. */
const SEED = { ...DEFAULT_SEED, historyTxs: 200, senders: 250 }
/** Keep-alive connections of the read mix (the compare scenario's default). */
const PROFILE_CONNECTIONS = 32
/** bench/block-exec.ts arguments: transfers, senders, runs. */
const BLOCK_EXEC_ARGS = ['6000', '2000', '1']
/** 0x writes the flame graph after the profiled process exits; a big tick log takes a while. */
const RENDER_TIMEOUT_MS = 300_000
const ZERO_X = join(REPO, 'node_modules', '0x', 'cmd.js')

const { values, positionals } = parseArgs({
  allowPositionals: true,
  options: {
    seconds: { type: 'string', default: '20' },
    out: { type: 'string', default: join(REPO, 'prof') },
    help: { type: 'boolean', short: 'h' },
  },
})
const what = positionals[0] ?? 'all'
if (values.help === true || !['readmix', 'blocks', 'all'].includes(what)) {
  console.log('usage: npm run profile -- [readmix|blocks|all] [--seconds 20] [--out prof]   (bench/README.md)')
  process.exit(values.help === true ? 0 : 1)
}
const out = resolve(values.out as string)
const stamp = new Date().toISOString().slice(0, 19).replace(/[-:]/g, '')
const log = (line: string): void => console.log(`[profile] ${line}`)

/** `node 0x … -- node <args>` writing into `dir`; resolves with the process once started. */
function underZeroX(name: string, dir: string, args: string[]) {
  return spawnTracked(name, process.execPath, [
    ZERO_X,
    '--quiet',
    '--output-dir',
    dir,
    '--name',
    'flamegraph',
    '--',
    process.execPath,
    ...args,
  ])
}

async function awaitRender(proc: ReturnType<typeof underZeroX>, dir: string): Promise<void> {
  const timer = setTimeout(() => proc.stop(), RENDER_TIMEOUT_MS)
  const code = await proc.exited
  clearTimeout(timer)
  if (code !== 0) throw new Error(`0x exited with ${code}: ${proc.output().slice(-2000)}`)
  log(`flame graph: ${join(dir, 'flamegraph.html')}`)
}

async function profileReadMix(): Promise<void> {
  const scratch = mkdtempSync(join(tmpdir(), 'ibex-profile-'))
  try {
    const plan = buildSeedPlan(SEED)
    const ctx = { dir: scratch, plan, log }
    log(`seeding ${plan.head} blocks`)
    await prepareIbex(ctx)
    const port = await freePort()
    const dir = join(out, `readmix-${stamp}`)
    const proc = underZeroX('ibex under 0x', dir, ibexStartArgs(ctx, '0', port))
    const url = `http://127.0.0.1:${port}`
    await waitForRpc(url, proc)
    log(`read mix on ${PROFILE_CONNECTIONS} connections for ${values.seconds} s`)
    const s = await generate({
      url,
      requests: new RequestFactory(plan).mix(),
      connections: PROFILE_CONNECTIONS,
      durationMs: Number(values.seconds) * 1000,
      warmupMs: 1000,
      timeoutMs: 10_000,
    })
    log(`${Math.round(s.rps)} req/s, p99 ${s.p99.toFixed(1)} ms (under the profiler: slower than unprofiled)`)
    // SIGINT to ibex itself (0x's child); 0x renders once it has exited
    for (const pid of descendants(proc.pid)) process.kill(pid, 'SIGINT')
    await awaitRender(proc, dir)
  } finally {
    rmSync(scratch, { recursive: true, force: true })
  }
}

async function profileBlocks(): Promise<void> {
  const dir = join(out, `blocks-${stamp}`)
  log(`block building: block-exec.js ${BLOCK_EXEC_ARGS.join(' ')}`)
  const proc = underZeroX('block-exec under 0x', dir, [
    join(REPO, 'dist', 'bench', 'block-exec.js'),
    ...BLOCK_EXEC_ARGS,
  ])
  await awaitRender(proc, dir)
  const result = proc
    .output()
    .split('\n')
    .filter((l) => /tx\/s/.test(l))
  for (const l of result) log(l.trim())
}

mkdirSync(out, { recursive: true })
if (what === 'readmix' || what === 'all') await profileReadMix()
if (what === 'blocks' || what === 'all') await profileBlocks()

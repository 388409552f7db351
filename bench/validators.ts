/**
 * `npm run bench:validators`: finalized plain transfers on a local IBFT network of real `ibex`
 * processes — 4 validators and 1 full node, made by `ibex genesis` and started with
 * `ibex start --config …` as a user does — with the senders funded in the genesis and the block
 * gas limit raised to what the rate needs.
 *
 *   npm run bench:validators -- [--rate 300] [--seconds 30] [--warmup 5] [--idle-seconds 5]
 *     [--senders 2000] [--block-time 1s] [--send-to full|validators|all] [--turns 1]
 *     [--baseline DIR] ["--ibex-flags=…"] ["--node-flags=--cpu-prof --cpu-prof-dir=prof"]
 *     [--max-minutes 15] [--out DIR]
 *
 * Per turn (a fresh network each): idle window, then pre-signed transfers open loop at --rate,
 * warm-up, the measured window (bench/validators/drive.ts). --baseline DIR adds the same turn on
 * another checkout (built there): `ibex` and `ibex@base` alternate, so a change's before and
 * after come from one run. Writes bench/results/<date>-validators.md and .json.
 *
 * Every process is started through bench/peers/process.ts and stopped by PID when its turn ends,
 * on an error, on Ctrl-C, and when --max-minutes runs out.
 */
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync } from 'node:fs'
import { cpus, totalmem } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { stopAll } from './peers/process.js'
import { REPO, RESULTS_DIR } from './repo.js'
import { bytes, derivedKey, type SignedTx, signTx } from './seed/sign.js'
import { type Cluster, startCluster } from './validators/cluster.js'
import { measureTurn, type TurnFigures } from './validators/drive.js'
import { renderReport } from './validators/report.js'

/** Most transfers one run signs (bounds memory and signing time). */
const MAX_TRANSFERS = 400_000
/** What each sender is given in the genesis: far above its transfers' cost at the fee cap. */
const SENDER_FUNDS_WEI = 10n ** 20n
/** Gas of a plain transfer. */
const TRANSFER_GAS = 21_000n
/** The block gas limit leaves this many times the offered rate's gas per block. */
const GAS_HEADROOM = 3n
/** The gas limit is never set below the preset's (Ethereum's long-standing 30M). */
const MIN_GAS_LIMIT = 30_000_000n
const SINK = bytes(`0x${'5e'.repeat(20)}`)

const { values } = parseArgs({
  options: {
    rate: { type: 'string', default: '300' },
    seconds: { type: 'string', default: '30' },
    warmup: { type: 'string', default: '5' },
    'idle-seconds': { type: 'string', default: '5' },
    senders: { type: 'string', default: '2000' },
    validators: { type: 'string', default: '4' },
    'full-nodes': { type: 'string', default: '1' },
    'block-time': { type: 'string', default: '1s' },
    'send-to': { type: 'string', default: 'full' },
    turns: { type: 'string', default: '1' },
    baseline: { type: 'string' },
    'ibex-flags': { type: 'string', default: '' },
    'node-flags': { type: 'string', default: '' },
    'max-minutes': { type: 'string', default: '15' },
    out: { type: 'string', default: RESULTS_DIR },
    logs: { type: 'string' },
    'log-level': { type: 'string', default: 'warn' },
    help: { type: 'boolean', short: 'h' },
  },
})

if (values.help === true) {
  console.log(`usage: npm run bench:validators -- [options]   (bench/README.md describes them)
  --rate R            transfers/s offered, open loop (default 300)
  --seconds S         measured window (default 30); --warmup S before it (default 5)
  --idle-seconds S    window with no transfers first: consensus alone (default 5)
  --senders N         funded senders, transfers round-robin over them (default 2000)
  --validators N --full-nodes M   the network (default 4 and 1)
  --block-time D      genesis block time (default 1s)
  --send-to full|validators|all   nodes the transfers are sent to (default full)
  --turns N           turns per checkout, alternating with --baseline (default 1)
  --baseline DIR      another checkout (built) measured the same way in the same run
  "--ibex-flags=..."  extra \`ibex start\` flags; "--node-flags=..." extra node flags (--cpu-prof …)
  --max-minutes M     hard bound of the whole run (default 15)
  --out DIR           where the report goes (default bench/results)
  --logs DIR          keep every node's output there (--log-level, default warn)`)
  process.exit(0)
}

const started = new Date()
const stamp = started.toISOString().slice(0, 16).replace(':', '')
const log = (line: string): void =>
  console.log(`[${((Date.now() - started.getTime()) / 1000).toFixed(0).padStart(4)} s] ${line}`)
const num = (k: keyof typeof values): number => {
  const v = Number(values[k])
  if (!Number.isFinite(v) || v < 0) throw new Error(`--${k}: not a number: ${values[k]}`)
  return v
}
const rate = num('rate')
const seconds = num('seconds')
const warmup = num('warmup')
const idleSeconds = num('idle-seconds')
const senderCount = Math.max(1, Math.floor(num('senders')))
const validatorCount = Math.max(1, Math.floor(num('validators')))
const fullNodes = Math.max(1, Math.floor(num('full-nodes')))
const turns = Math.max(1, Math.floor(num('turns')))
const blockTime = values['block-time'] as string
const blockTimeSeconds = /ms$/.test(blockTime) ? Number.parseFloat(blockTime) / 1000 : Number.parseFloat(blockTime)
const split = (s: string): string[] => s.split(/\s+/).filter(Boolean)

function targetsOf(sendTo: string): number[] {
  const all = Array.from({ length: validatorCount + fullNodes }, (_, i) => i)
  if (sendTo === 'full') return all.slice(validatorCount)
  if (sendTo === 'validators') return all.slice(0, validatorCount)
  if (sendTo === 'all') return all
  throw new Error(`--send-to: full, validators or all, not ${sendTo}`)
}
const targets = targetsOf(values['send-to'] as string)

function commitOf(dir: string): string {
  try {
    const head = execFileSync('git', ['-C', dir, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).trim()
    const dirty = execFileSync('git', ['-C', dir, 'status', '--porcelain', '--', 'src', 'workers'], {
      encoding: 'utf8',
    }).trim()
    return dirty === '' ? head : `${head}+uncommitted`
  } catch {
    return 'unknown'
  }
}

let current: Cluster | undefined
const hardStop = setTimeout(() => {
  console.error(`--max-minutes ${values['max-minutes']} reached: stopping every node`)
  void Promise.resolve(current?.stop())
    .then(() => stopAll())
    .finally(() => process.exit(2))
}, num('max-minutes') * 60_000)
hardStop.unref()
for (const sig of ['SIGINT', 'SIGTERM'] as const) {
  process.once(sig, () => {
    console.error(`${sig}: stopping every node`)
    void Promise.resolve(current?.stop())
      .then(() => stopAll())
      .finally(() => process.exit(130))
  })
}

async function main(): Promise<void> {
  const count = Math.min(MAX_TRANSFERS, Math.ceil(rate * (warmup + seconds)))
  const keys = Array.from({ length: Math.min(senderCount, count) }, (_, i) => derivedKey('validators', i))
  const t = performance.now()
  const txs: SignedTx[] = []
  for (let i = 0; i < count; i++) {
    const key = keys[i % keys.length] as (typeof keys)[number]
    txs.push(
      signTx(key, {
        nonce: BigInt(Math.floor(i / keys.length)),
        to: SINK,
        value: 1n,
        data: new Uint8Array(0),
        gas: TRANSFER_GAS,
      }),
    )
  }
  log(`signed ${count} transfers from ${keys.length} senders in ${((performance.now() - t) / 1000).toFixed(1)} s`)
  const perBlockGas = BigInt(Math.ceil(rate * Math.max(blockTimeSeconds, 0.1))) * TRANSFER_GAS * GAS_HEADROOM
  const gasLimit = perBlockGas > MIN_GAS_LIMIT ? perBlockGas : MIN_GAS_LIMIT

  const checkouts: [string, string][] = [['ibex', REPO]]
  if (values.baseline !== undefined) checkouts.push(['ibex@base', resolve(values.baseline)])
  const results: TurnFigures[] = []
  for (let turn = 0; turn < turns; turn++) {
    const order = turn % 2 === 0 ? checkouts : [...checkouts].reverse()
    for (const [label, checkout] of order) {
      log(`turn ${turn + 1}/${turns}: ${label} (${checkout})`)
      current = await startCluster({
        checkout,
        validators: validatorCount,
        fullNodes,
        blockTime,
        gasLimit,
        prefund: keys.map((k) => k.hex),
        prefundWei: SENDER_FUNDS_WEI,
        startFlags: split(values['ibex-flags'] as string),
        nodeFlags: split(values['node-flags'] as string),
        log,
        logsDir: values.logs === undefined ? undefined : join(values.logs, `${stamp}-${label}-turn${turn + 1}`),
        logLevel: values['log-level'] as string,
      })
      try {
        results.push(
          await measureTurn(
            current,
            txs,
            { rate, warmupSeconds: warmup, seconds, idleSeconds, targets, watch: validatorCount, log },
            turns > 1 ? `${label} (turn ${turn + 1})` : label,
            checkout,
          ),
        )
      } finally {
        await current.stop()
        current = undefined
      }
    }
  }

  const commits: Record<string, string> = {}
  for (const [label, dir] of checkouts) commits[label] = commitOf(dir)
  const options = {
    rate,
    seconds,
    warmup,
    idleSeconds,
    senders: keys.length,
    validators: validatorCount,
    fullNodes,
    blockTime,
    gasLimit: gasLimit.toString(),
    sendTo: values['send-to'],
    turns,
    ibexFlags: values['ibex-flags'],
    nodeFlags: values['node-flags'],
  }
  const out = values.out as string
  mkdirSync(out, { recursive: true })
  const command = `npm run bench:validators -- ${process.argv.slice(2).join(' ')}`.trim()
  const box = { cores: cpus().length, model: cpus()[0]?.model ?? 'unknown', memoryMiB: totalmem() / 2 ** 20 }
  const md = renderReport({ started, command, commits, box, options, turns: results })
  writeFileSync(join(out, `${stamp}-validators.md`), md)
  writeFileSync(
    join(out, `${stamp}-validators.json`),
    `${JSON.stringify({ started: started.toISOString(), command, commits, box, options, turns: results }, null, 2)}\n`,
  )
  log(`wrote ${join(out, `${stamp}-validators.md`)} and .json`)
}

main()
  .catch(async (err) => {
    console.error(err instanceof Error ? (err.stack ?? err.message) : err)
    await current?.stop()
    await stopAll()
    process.exitCode = 1
  })
  .finally(() => clearTimeout(hardStop))

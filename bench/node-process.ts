/**
 * Shared by the whole-node benchmarks of the execution pool (exec-pool.ts, trace-jitter.ts,
 * trace-big.ts): spawn `ibex start --network dev` on a free port in a temporary datadir, talk
 * JSON-RPC to it, sign and send transactions from dev account 0, compile the tracer fixture
 * contracts, read the process's peak RSS, stop it by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { createTx } from '@ethereumjs/tx'
import { hexToBytes } from '@ethereumjs/util'
import { createChainCommon, type GenesisJson } from '../src/chain/common.js'
import { devAccounts } from '../src/config/accounts.js'
import { defaultConfig } from '../src/config/defaults.js'
import { buildGenesis } from '../src/config/genesis.js'

/** Repository root, from dist/bench/ or bench/. */
export const REPO = (() => {
  const here = dirname(fileURLToPath(import.meta.url))
  return here.includes(`${join('dist', 'bench')}`) ? resolve(here, '..', '..') : resolve(here, '..')
})()

export interface BenchNode {
  url: string
  pid: number
  /** Output lines (stdout and stderr) with the time (performance.now()) they arrived. */
  lines: { at: number; text: string }[]
  stop(): Promise<void>
}

export function freePort(): Promise<number> {
  return new Promise((ok, fail) => {
    const srv = createServer()
    srv.on('error', fail)
    srv.listen(0, '127.0.0.1', () => {
      const a = srv.address()
      srv.close(() => ok(typeof a === 'object' && a ? a.port : 0))
    })
  })
}

/** Nodes started and not yet stopped: killed by PID if the benchmark dies. */
const live = new Set<number>()
process.on('exit', () => {
  for (const pid of live) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
})

let nextId = 1
// biome-ignore lint/suspicious/noExplicitAny: JSON-RPC results
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ jsonrpc: '2.0', id: nextId++, method, params }),
  })
  const body = (await res.json()) as { result?: T; error?: { code: number; message: string } }
  if (body.error) throw new Error(`${method}: [${body.error.code}] ${body.error.message}`)
  return body.result as T
}

/** Starts a dev node with `args`; resolves when it answers eth_chainId. */
export async function startBenchNode(args: string[]): Promise<BenchNode> {
  const port = await freePort()
  const datadir = mkdtempSync(join(tmpdir(), 'ibex-bench-node-'))
  const child: ChildProcess = spawn(
    process.execPath,
    [
      join(REPO, 'bin', 'ibex.js'),
      'start',
      '--network',
      'dev',
      '--datadir',
      datadir,
      '--http.port',
      String(port),
      '--http.api',
      'eth,net,web3,txpool,debug',
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'], env: { ...process.env, NO_COLOR: '1' } },
  )
  const lines: BenchNode['lines'] = []
  // log lines (stdout and stderr), each stamped when it arrived
  for (const stream of [child.stdout, child.stderr]) {
    let partial = ''
    stream?.on('data', (d: Buffer) => {
      const at = performance.now()
      const parts = (partial + d.toString()).split('\n')
      partial = parts.pop() ?? ''
      for (const t of parts) lines.push({ at, text: t })
    })
  }
  const url = `http://127.0.0.1:${port}`
  const pid = child.pid as number
  live.add(pid)
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) process.kill(pid, 'SIGTERM')
    await exited
    live.delete(pid)
    rmSync(datadir, { recursive: true, force: true })
  }
  for (let i = 0; ; i++) {
    try {
      await rpc(url, 'eth_chainId')
      break
    } catch {
      if (i > 600 || child.exitCode !== null) {
        await stop()
        throw new Error(`ibex did not start: ${args.join(' ')}`)
      }
      await new Promise((r) => setTimeout(r, 50))
    }
  }
  return { url, pid, lines, stop }
}

/** Peak resident set (VmHWM) of a process, MiB (Linux). */
export function peakRssMiB(pid: number): number {
  const m = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

/** Current resident set (VmRSS) of a process, MiB (Linux). */
export function rssMiB(pid: number): number {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return m ? Number(m[1]) / 1024 : Number.NaN
}

/** Signs with dev account 0 and sends; resolves with the receipt. */
export class Sender {
  readonly address: string
  readonly #key: Uint8Array
  readonly #url: string
  #nonce = 0n
  readonly #common = createChainCommon(devGenesis())

  constructor(url: string) {
    const a = devAccounts(1)[0] as { address: string; privateKey: string }
    this.address = a.address
    this.#key = hexToBytes(a.privateKey as `0x${string}`)
    this.#url = url
  }

  // biome-ignore lint/suspicious/noExplicitAny: receipt JSON
  async send(to: string | undefined, data: string, gas = 3_000_000n): Promise<any> {
    const tx = createTx(
      {
        type: 2,
        chainId: 1337n,
        nonce: this.#nonce++,
        to: to as `0x${string}` | undefined,
        data: data as `0x${string}`,
        gasLimit: gas,
        maxFeePerGas: 10n ** 10n,
        maxPriorityFeePerGas: 10n ** 9n,
      },
      { common: this.#common },
    ).sign(this.#key)
    const hash = await rpc<string>(this.#url, 'eth_sendRawTransaction', [
      `0x${Buffer.from(tx.serialize()).toString('hex')}`,
    ])
    for (;;) {
      const r = await rpc(this.#url, 'eth_getTransactionReceipt', [hash])
      if (r) return r
      await new Promise((ok) => setTimeout(ok, 20))
    }
  }
}

/** The dev preset's genesis (for a Common with the dev chain's id and forks). */
function devGenesis(): GenesisJson {
  const validator = devAccounts(1)[0] as { address: string }
  return buildGenesis({ ...defaultConfig('dev'), datadir: tmpdir() }, [validator.address]) as unknown as GenesisJson
}

// biome-ignore lint/suspicious/noExplicitAny: ABI JSON
export type Abi = any[]

/** Compiles test/trace/fixtures/Trace.sol: contract name → creation bytecode. */
export function compileFixtures(): Record<string, string> {
  const require = createRequire(import.meta.url)
  const solc = require('solc') as { compile(input: string): string }
  const content = readFileSync(join(REPO, 'test', 'trace', 'fixtures', 'Trace.sol'), 'utf8')
  const out = JSON.parse(
    solc.compile(
      JSON.stringify({
        language: 'Solidity',
        sources: { 'Trace.sol': { content } },
        settings: {
          evmVersion: 'prague',
          optimizer: { enabled: true, runs: 200 },
          outputSelection: { '*': { '*': ['evm.bytecode.object'] } },
        },
      }),
    ),
  )
  const result: Record<string, string> = {}
  for (const [name, c] of Object.entries(
    out.contracts['Trace.sol'] as Record<string, { evm: { bytecode: { object: string } } }>,
  )) {
    result[name] = `0x${c.evm.bytecode.object}`
  }
  return result
}

/** ABI-encoded call of Loop.run(n) (selector of run(uint256)). */
export function loopRunData(n: number): string {
  return `0xa444f5e9${n.toString(16).padStart(64, '0')}`
}

export function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return Number.NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] as number
}

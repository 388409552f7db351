/**
 * Starts and stops real ibex processes for the end-to-end tests, and talks JSON-RPC to them.
 *
 * startNode spawns `node bin/ibex.js start --network dev --datadir <dir> --http.port <p>
 * --log-level warn [...args]` and resolves once `eth_chainId` answers. The RPC URL is taken from
 * the start banner (`http://127.0.0.1:<port>`, printed when `--http.port 0` lets the node pick);
 * if the banner has not shown one after BANNER_GRACE_MS the listening sockets of the PID are read
 * from /proc and probed, so a node that forgets the banner is still testable (`urlSource` tells
 * which way it was found). With `port: 'free'` a free port is picked here and passed instead.
 *
 * Every process is tracked by PID: `cleanupNodes()` (call it in afterAll) stops what is left and
 * removes the temporary datadirs; an `exit` hook SIGKILLs leftovers if a test run dies.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { REPO_ROOT } from './compile.js'

/** How long a node may take to answer eth_chainId after spawn. */
export const READY_TIMEOUT_MS = 20_000
/** How long a stopped node may take to exit before it is SIGKILLed. */
export const STOP_TIMEOUT_MS = 15_000
/** How long to wait for the banner's URL before looking the port up in /proc. */
const BANNER_GRACE_MS = 5_000
/** Poll interval while waiting for readiness. */
const READY_POLL_MS = 50
/** Keep at most this much of each output stream (the tail). */
const MAX_OUTPUT_CHARS = 1_000_000
/** Per-request timeout of the rpc helpers. */
export const RPC_TIMEOUT_MS = 15_000

export const IBEX_BIN = join(REPO_ROOT, 'bin', 'ibex.js')

export interface StartNodeOptions {
  /** Existing datadir to (re)start on; default a fresh directory in os.tmpdir(). */
  datadir?: string
  /** Extra flags appended to the command line. */
  args?: string[]
  /** `--log-level`; default `warn`. */
  logLevel?: string
  /** `banner` (default): pass `--http.port 0`, read the URL the node prints. `free`: pick a free port here. */
  port?: 'banner' | 'free'
  readyTimeoutMs?: number
  /** Script to run instead of bin/ibex.js (default: $IBEX_E2E_BIN, else bin/ibex.js). */
  bin?: string
  /** `--network` preset; default `dev`. `false` passes none (a datadir initialised from a genesis file). */
  network?: string | false
}

export interface ExitStatus {
  code: number | null
  signal: NodeJS.Signals | null
}

export interface IbexNode {
  url: string
  pid: number
  datadir: string
  /** Where the URL came from: the banner, /proc (the node did not print it) or the port we chose. */
  urlSource: 'banner' | 'proc' | 'flag'
  /** Milliseconds from spawn to the first eth_chainId answer. */
  readyMs: number
  /** The full command line (for messages). */
  command: string[]
  stdout(): string
  stderr(): string
  /** Address printed after "validator" (or "signer"/"sealer") in the node's output, lowercased. */
  validatorAddress(): string | undefined
  exited: Promise<ExitStatus>
  isRunning(): boolean
  /** Sends `signal` (default SIGTERM) and waits for exit; SIGKILLs after `timeoutMs`. */
  stop(signal?: NodeJS.Signals, timeoutMs?: number): Promise<ExitStatus & { timedOut: boolean }>
  /** SIGKILL, wait for exit. */
  kill9(): Promise<ExitStatus>
}

const liveProcesses = new Map<number, ChildProcess>()
/** PIDs we sent a signal to: their exit is expected, any other exit is reported. */
const stopRequested = new Set<number>()
const tempDirs = new Set<string>()

process.on('exit', () => {
  for (const pid of liveProcesses.keys()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // already gone
    }
  }
})

/** A fresh temporary datadir, removed by cleanupNodes(). */
export function makeTempDir(prefix = 'ibex-e2e-'): string {
  const dir = mkdtempSync(join(tmpdir(), prefix))
  tempDirs.add(dir)
  return dir
}

/** Stops every node still running (by PID) and removes the temporary datadirs. */
export async function cleanupNodes(): Promise<void> {
  const stops: Promise<unknown>[] = []
  for (const [pid, child] of liveProcesses) {
    stops.push(stopChild(pid, child, 'SIGTERM', 5_000))
  }
  await Promise.allSettled(stops)
  for (const dir of tempDirs) {
    rmSync(dir, { recursive: true, force: true })
  }
  tempDirs.clear()
}

/** A port nobody listens on right now (bind 0 on 127.0.0.1, read it, close). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer()
    srv.unref()
    srv.on('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => (port ? resolve(port) : reject(new Error('no port'))))
    })
  })
}

const URL_RE = /https?:\/\/(127\.0\.0\.1|localhost|0\.0\.0\.0|\[::1\]):(\d{2,5})/
const VALIDATOR_RE = /(?:validator|signer|sealer)[^\n]*?(0x[0-9a-fA-F]{40})(?![0-9a-fA-F])/i

export function parseBannerUrl(text: string): string | undefined {
  const m = URL_RE.exec(text)
  if (!m || Number(m[2]) === 0) return undefined
  const host = m[1] === '0.0.0.0' || m[1] === 'localhost' ? '127.0.0.1' : m[1]
  return `http://${host}:${m[2]}`
}

export function parseValidatorAddress(text: string): string | undefined {
  return VALIDATOR_RE.exec(text)?.[1]?.toLowerCase()
}

function waitExit(child: ChildProcess): Promise<ExitStatus> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode })
      return
    }
    child.once('exit', (code, signal) => resolve({ code, signal }))
  })
}

async function stopChild(
  pid: number,
  child: ChildProcess,
  signal: NodeJS.Signals,
  timeoutMs: number,
): Promise<ExitStatus & { timedOut: boolean }> {
  const exited = waitExit(child)
  stopRequested.add(pid)
  if (child.exitCode === null && child.signalCode === null) {
    try {
      process.kill(pid, signal)
    } catch {
      // already gone
    }
  }
  let timer: NodeJS.Timeout | undefined
  const timeout = new Promise<'timeout'>((r) => {
    timer = setTimeout(() => r('timeout'), timeoutMs)
  })
  const first = await Promise.race([exited, timeout])
  clearTimeout(timer)
  if (first !== 'timeout') {
    liveProcesses.delete(pid)
    return { ...first, timedOut: false }
  }
  try {
    process.kill(pid, 'SIGKILL')
  } catch {
    // already gone
  }
  const status = await exited
  liveProcesses.delete(pid)
  return { ...status, timedOut: true }
}

/** Ports the process `pid` listens on (Linux /proc), for nodes that print no URL. */
function listeningPorts(pid: number): number[] {
  try {
    const inodes = new Set<string>()
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const m = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`))
        if (m) inodes.add(m[1])
      } catch {
        // fd closed meanwhile
      }
    }
    const ports: number[] = []
    for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
      let text = ''
      try {
        text = readFileSync(table, 'utf8')
      } catch {
        continue
      }
      for (const line of text.split('\n').slice(1)) {
        const cols = line.trim().split(/\s+/)
        if (cols.length < 10 || cols[3] !== '0A' || !inodes.has(cols[9])) continue
        ports.push(Number.parseInt(cols[1].split(':')[1], 16))
      }
    }
    return ports
  } catch {
    return []
  }
}

async function answersChainId(url: string): Promise<boolean> {
  try {
    const res = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"jsonrpc":"2.0","id":1,"method":"eth_chainId","params":[]}',
      signal: AbortSignal.timeout(1_000),
    })
    const body = (await res.json()) as { result?: unknown }
    return typeof body.result === 'string'
  } catch {
    return false
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** exec.queue_timeout of test nodes (the default, 2 s, is tested where it is set explicitly). */
const TEST_QUEUE_TIMEOUT = '30s'

/** Spawns an ibex dev node and waits until it answers eth_chainId. */
export async function startNode(opts: StartNodeOptions = {}): Promise<IbexNode> {
  const datadir = opts.datadir ?? makeTempDir()
  const portMode = opts.port ?? 'banner'
  const chosenPort = portMode === 'free' ? await freePort() : 0
  const command = [
    opts.bin ?? process.env.IBEX_E2E_BIN ?? IBEX_BIN,
    'start',
    ...(opts.network === false ? [] : ['--network', opts.network ?? 'dev']),
    '--datadir',
    datadir,
    '--http.port',
    String(chosenPort),
    '--log-level',
    opts.logLevel ?? 'warn',
    // a loaded 2-core CI box can starve a worker for seconds: a test's burst of reads must not be
    // refused busy by the 2 s default; tests of the queue timeout pass their own
    ...((opts.args ?? []).includes('--exec.queue-timeout') ? [] : ['--exec.queue-timeout', TEST_QUEUE_TIMEOUT]),
    ...(opts.args ?? []),
  ]
  const t0 = performance.now()
  const child = spawn(process.execPath, command, {
    cwd: REPO_ROOT,
    stdio: ['ignore', 'pipe', 'pipe'],
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0' },
  })
  let out = ''
  let err = ''
  child.stdout?.setEncoding('utf8')
  child.stderr?.setEncoding('utf8')
  child.stdout?.on('data', (s: string) => {
    out = (out + s).slice(-MAX_OUTPUT_CHARS)
  })
  child.stderr?.on('data', (s: string) => {
    err = (err + s).slice(-MAX_OUTPUT_CHARS)
  })
  const spawnError = new Promise<Error>((resolve) => child.once('error', resolve))
  const exited = waitExit(child)
  const pid = child.pid
  let ready = false
  exited.then(({ code, signal }) => {
    // before ready, startNode itself rejects with the output
    if (pid === undefined || !ready || stopRequested.has(pid)) return
    liveProcesses.delete(pid)
    // a node dying under a test shows up as ECONNREFUSED there: say why here
    console.error(
      `ibex pid ${pid} exited unexpectedly (code ${code}, signal ${signal})\n--- stderr (tail) ---\n${err.slice(-6_000)}\n--- stdout (tail) ---\n${out.slice(-2_000)}`,
    )
  })
  if (pid === undefined) {
    throw new Error(`could not spawn ${process.execPath} ${command.join(' ')}: ${await spawnError}`)
  }
  liveProcesses.set(pid, child)

  const describe = () =>
    `command: node ${command.join(' ')}\n--- stderr ---\n${err.slice(-8_000)}\n--- stdout ---\n${out.slice(-4_000)}`
  const timeoutMs = opts.readyTimeoutMs ?? READY_TIMEOUT_MS
  let url: string | undefined = chosenPort ? `http://127.0.0.1:${chosenPort}` : undefined
  let urlSource: IbexNode['urlSource'] = 'flag'
  let readyMs = -1
  for (;;) {
    const elapsed = performance.now() - t0
    if (child.exitCode !== null || child.signalCode !== null) {
      liveProcesses.delete(pid)
      throw new Error(
        `ibex exited before answering eth_chainId (code ${child.exitCode}, signal ${child.signalCode})\n${describe()}`,
      )
    }
    if (elapsed > timeoutMs) {
      await stopChild(pid, child, 'SIGKILL', 5_000)
      throw new Error(
        `ibex did not answer eth_chainId within ${timeoutMs} ms (url: ${url ?? 'unknown'})\n${describe()}`,
      )
    }
    if (portMode === 'banner') {
      const printed = parseBannerUrl(out) ?? parseBannerUrl(err)
      if (printed) {
        url = printed
        urlSource = 'banner'
      } else if (elapsed > BANNER_GRACE_MS) {
        for (const port of listeningPorts(pid)) {
          const candidate = `http://127.0.0.1:${port}`
          if (await answersChainId(candidate)) {
            url = candidate
            urlSource = 'proc'
            break
          }
        }
      }
    }
    if (url && (await answersChainId(url))) {
      readyMs = performance.now() - t0
      ready = true
      break
    }
    await sleep(READY_POLL_MS)
  }
  const readyUrl = url as string

  return {
    url: readyUrl,
    pid,
    datadir,
    urlSource,
    readyMs,
    command,
    stdout: () => out,
    stderr: () => err,
    validatorAddress: () => parseValidatorAddress(out) ?? parseValidatorAddress(err),
    exited,
    isRunning: () => child.exitCode === null && child.signalCode === null,
    stop: (signal: NodeJS.Signals = 'SIGTERM', stopTimeoutMs = STOP_TIMEOUT_MS) =>
      stopChild(pid, child, signal, stopTimeoutMs),
    kill9: async () => {
      const s = await stopChild(pid, child, 'SIGKILL', 10_000)
      return { code: s.code, signal: s.signal }
    },
  }
}

// ---------------------------------------------------------------------------------------------
// JSON-RPC over fetch

export interface JsonRpcErrorObject {
  code: number
  message: string
  data?: unknown
}

export interface JsonRpcResponse<T = unknown> {
  jsonrpc: string
  id: unknown
  result?: T
  error?: JsonRpcErrorObject
}

/** A JSON-RPC error answer, with the node's code, message and data. */
export class RpcError extends Error {
  readonly code: number
  readonly data: unknown
  constructor(method: string, e: JsonRpcErrorObject) {
    super(`${method}: [${e.code}] ${e.message}`)
    this.name = 'RpcError'
    this.code = e.code
    this.data = e.data
  }
}

let nextId = 1

/** Posts a request body as-is; returns HTTP status, body text and the parsed JSON (if any). */
export async function rawRpc(
  url: string,
  body: string,
  headers: Record<string, string> = { 'content-type': 'application/json' },
): Promise<{ status: number; text: string; json: unknown; headers: Headers }> {
  const res = await fetch(url, { method: 'POST', headers, body, signal: AbortSignal.timeout(RPC_TIMEOUT_MS) })
  const text = await res.text()
  let json: unknown
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { status: res.status, text, json, headers: res.headers }
}

/** One call; returns the whole response envelope (result or error). */
export async function rpcResponse<T = unknown>(
  url: string,
  method: string,
  params: unknown[] = [],
): Promise<JsonRpcResponse<T>> {
  const id = nextId++
  const { status, text, json } = await rawRpc(url, JSON.stringify({ jsonrpc: '2.0', id, method, params }))
  if (json === undefined || typeof json !== 'object' || json === null) {
    throw new Error(`${method}: HTTP ${status}, not JSON: ${text.slice(0, 500)}`)
  }
  return json as JsonRpcResponse<T>
}

/** One call; returns the result or throws RpcError. */
// biome-ignore lint/suspicious/noExplicitAny: results are JSON of the method's shape
export async function rpc<T = any>(url: string, method: string, params: unknown[] = []): Promise<T> {
  const res = await rpcResponse<T>(url, method, params)
  if (res.error) throw new RpcError(method, res.error)
  return res.result as T
}

export interface WaitOptions {
  timeoutMs?: number
  intervalMs?: number
  what?: string
}

/** Polls `fn` until it returns something other than undefined/null/false; bounded by timeoutMs. */
export async function waitFor<T>(fn: () => Promise<T | undefined | null | false>, opts: WaitOptions = {}): Promise<T> {
  const timeoutMs = opts.timeoutMs ?? 20_000
  const intervalMs = opts.intervalMs ?? 50
  const deadline = performance.now() + timeoutMs
  let lastError: unknown
  for (;;) {
    try {
      const v = await fn()
      if (v !== undefined && v !== null && v !== false) return v as T
    } catch (e) {
      lastError = e
    }
    if (performance.now() > deadline) {
      throw new Error(
        `timed out after ${timeoutMs} ms waiting for ${opts.what ?? 'condition'}${lastError ? ` (last error: ${String(lastError)})` : ''}`,
      )
    }
    await sleep(intervalMs)
  }
}

// biome-ignore lint/suspicious/noExplicitAny: receipt JSON
export type RpcReceipt = Record<string, any>

/** Waits until eth_getTransactionReceipt returns a receipt. */
export function waitForReceipt(url: string, hash: string, timeoutMs = 20_000): Promise<RpcReceipt> {
  return waitFor(() => rpc<RpcReceipt | null>(url, 'eth_getTransactionReceipt', [hash]), {
    timeoutMs,
    what: `receipt of ${hash}`,
  })
}

/**
 * Processes the harness starts: spawned (optionally under `taskset -c CPUS`), tracked by PID,
 * stopped by PID (SIGTERM, then SIGKILL after STOP_TIMEOUT_MS), and measured: resident memory
 * of the process and its descendants, read from /proc.
 *
 * Every process started here is registered; `stopAll()` (and an exit hook, as a last resort)
 * stops whatever is still running, so an interrupted run leaves nothing behind.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { createServer } from 'node:net'

/** How long a node may take to exit after SIGTERM before it is SIGKILLed. */
export const STOP_TIMEOUT_MS = 15_000
/** Most output kept per process (the tail), characters. */
const MAX_OUTPUT_CHARS = 200_000

export interface Tracked {
  readonly name: string
  readonly pid: number
  /** The tail of stdout and stderr. */
  output(): string
  readonly exited: Promise<number | null>
  running(): boolean
  /** SIGTERM, wait; SIGKILL after STOP_TIMEOUT_MS. */
  stop(): Promise<void>
}

const live = new Map<number, ChildProcess>()

process.on('exit', () => {
  for (const pid of live.keys()) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
})

export interface SpawnOptions {
  /** `taskset -c` CPU list; absent = not pinned. */
  cpus?: string
  env?: NodeJS.ProcessEnv
  cwd?: string
  /** Discard output instead of keeping its tail (a chatty node). */
  quiet?: boolean
}

export function spawnTracked(name: string, command: string, args: string[], opts: SpawnOptions = {}): Tracked {
  const [cmd, argv] = opts.cpus === undefined ? [command, args] : ['taskset', ['-c', opts.cpus, command, ...args]]
  const child = spawn(cmd, argv, {
    stdio: ['ignore', opts.quiet ? 'ignore' : 'pipe', opts.quiet ? 'ignore' : 'pipe'],
    env: { ...process.env, ...opts.env },
    cwd: opts.cwd,
  })
  const pid = child.pid
  if (pid === undefined) throw new Error(`could not start ${name} (${cmd})`)
  live.set(pid, child)
  let out = ''
  const keep = (d: Buffer): void => {
    out += d.toString()
    if (out.length > MAX_OUTPUT_CHARS) out = out.slice(-MAX_OUTPUT_CHARS / 2)
  }
  child.stdout?.on('data', keep)
  child.stderr?.on('data', keep)
  const exited = new Promise<number | null>((r) =>
    child.once('exit', (code) => {
      live.delete(pid)
      r(code)
    }),
  )
  const running = (): boolean => child.exitCode === null && child.signalCode === null
  return {
    name,
    pid,
    output: () => out,
    exited,
    running,
    async stop() {
      if (!running()) return
      child.kill('SIGCONT') // paused while another node was measured (load/index.ts)
      child.kill('SIGTERM')
      const timer = setTimeout(() => {
        if (running()) child.kill('SIGKILL')
      }, STOP_TIMEOUT_MS)
      await exited
      clearTimeout(timer)
    },
  }
}

/** Stops every process still running. */
export async function stopAll(): Promise<void> {
  await Promise.all(
    [...live.values()].map(
      (c) =>
        new Promise<void>((r) => {
          c.once('exit', () => r())
          c.kill('SIGTERM')
          setTimeout(() => {
            if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL')
          }, STOP_TIMEOUT_MS).unref()
        }),
    ),
  )
}

function statusField(pid: number, field: string): number {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
    return m ? Number(m[1]) / 1024 : 0
  } catch {
    return 0
  }
}

/** PIDs of `pid`'s descendants (children of children…), from /proc. */
export function descendants(pid: number): number[] {
  const parentOf = new Map<number, number[]>()
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue
    try {
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8')
      // pid (comm) state ppid …: comm may hold spaces and parentheses
      const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1])
      const list = parentOf.get(ppid) ?? []
      list.push(Number(entry))
      parentOf.set(ppid, list)
    } catch {
      // exited meanwhile
    }
  }
  const out: number[] = []
  const stack = [pid]
  while (stack.length > 0) {
    const p = stack.pop() as number
    for (const c of parentOf.get(p) ?? []) {
      out.push(c)
      stack.push(c)
    }
  }
  return out
}

/** Resident memory of `pid` and its descendants, MiB (Linux VmRSS). */
export function treeRssMiB(pid: number): number {
  let sum = statusField(pid, 'VmRSS')
  for (const c of descendants(pid)) sum += statusField(c, 'VmRSS')
  return sum
}

/**
 * Samples treeRssMiB every `everyMs` until stopped; `peak` is the highest seen. Used for "peak
 * RSS under load" (VmHWM would include the seeding the node did before).
 */
export class RssSampler {
  peak = 0
  last = 0
  readonly #timer: NodeJS.Timeout
  constructor(pid: number, everyMs = 250) {
    const sample = (): void => {
      this.last = treeRssMiB(pid)
      if (this.last > this.peak) this.peak = this.last
    }
    sample()
    this.#timer = setInterval(sample, everyMs)
  }
  stop(): number {
    clearInterval(this.#timer)
    return this.peak
  }
}

/** A port nobody listens on right now (bind 0 on 127.0.0.1, read it, close). */
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

/**
 * Spawns `ibex` commands other than `start` (the faucet) for the operations tests, tracked by PID
 * and stopped by cleanupProcesses(); resolves once a line of stdout matches.
 */
import { type ChildProcess, spawn } from 'node:child_process'

import { IBEX_BIN } from '../helpers/node.js'
import { REPO_ROOT } from '../helpers/compile.js'

/** How long a command may take to print its ready line. */
export const PROCESS_READY_TIMEOUT_MS = 20_000
/** How long a stopped process may take to exit before SIGKILL. */
export const PROCESS_STOP_TIMEOUT_MS = 10_000

export interface Spawned {
  pid: number
  match: RegExpExecArray
  output(): string
  stop(signal?: NodeJS.Signals): Promise<{ code: number | null; signal: NodeJS.Signals | null }>
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

/** Runs `node bin/ibex.js ...args` and waits until its stdout matches `ready`. */
export async function spawnIbex(args: string[], ready: RegExp): Promise<Spawned> {
  const child = spawn(process.execPath, [IBEX_BIN, ...args], { cwd: REPO_ROOT, stdio: ['ignore', 'pipe', 'pipe'] })
  const pid = child.pid as number
  live.set(pid, child)
  let out = ''
  let err = ''
  child.stdout?.on('data', (d: Buffer) => {
    out += d.toString()
  })
  child.stderr?.on('data', (d: Buffer) => {
    err += d.toString()
  })
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => {
      live.delete(pid)
      resolve({ code, signal })
    }),
  )
  const deadline = performance.now() + PROCESS_READY_TIMEOUT_MS
  let match = ready.exec(out)
  while (match === null) {
    if (child.exitCode !== null || performance.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`ibex ${args.join(' ')} did not get ready (exit ${child.exitCode})\n${out}\n${err}`)
    }
    await new Promise((r) => setTimeout(r, 50))
    match = ready.exec(out)
  }
  return {
    pid,
    match,
    output: () => `${out}\n${err}`,
    async stop(signal: NodeJS.Signals = 'SIGTERM') {
      if (child.exitCode === null && child.signalCode === null) process.kill(pid, signal)
      const timer = setTimeout(() => {
        if (live.has(pid)) process.kill(pid, 'SIGKILL')
      }, PROCESS_STOP_TIMEOUT_MS)
      const status = await exited
      clearTimeout(timer)
      return status
    },
  }
}

/** Stops every process spawned here that still runs (by PID). */
export async function cleanupProcesses(): Promise<void> {
  for (const [pid] of live) {
    try {
      process.kill(pid, 'SIGTERM')
    } catch {
      // gone
    }
  }
  const deadline = performance.now() + PROCESS_STOP_TIMEOUT_MS
  while (live.size > 0 && performance.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  for (const [pid] of live) {
    try {
      process.kill(pid, 'SIGKILL')
    } catch {
      // gone
    }
  }
}

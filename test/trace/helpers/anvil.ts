/**
 * Starts and stops an anvil process (the reference node of the tracer differential test) from
 * the npm package @foundry-rs/anvil-linux-amd64, on a free loopback port, stopped by PID.
 */
import { type ChildProcess, spawn } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from '../../helpers/compile.js'
import { freePort, rpc, waitFor } from '../../helpers/node.js'

export const ANVIL_BIN = join(REPO_ROOT, 'node_modules', '@foundry-rs', 'anvil-linux-amd64', 'bin', 'anvil')
/** How long anvil may take to answer after spawn. */
const ANVIL_READY_MS = 20_000
/** How long a SIGTERMed anvil may take before SIGKILL. */
const ANVIL_STOP_MS = 5_000

export interface Anvil {
  url: string
  pid: number
  stop(): Promise<void>
  output(): string
}

/** anvil with geth-style step tracing, Prague rules and `args` appended. */
export async function startAnvil(args: string[] = []): Promise<Anvil> {
  const port = await freePort()
  const child: ChildProcess = spawn(
    ANVIL_BIN,
    [
      '--steps-tracing',
      '--hardfork',
      'prague',
      '--chain-id',
      '1337',
      '--host',
      '127.0.0.1',
      '--port',
      String(port),
      ...args,
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  )
  let out = ''
  child.stdout?.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-200_000)
  })
  child.stderr?.on('data', (d: Buffer) => {
    out = (out + d.toString()).slice(-200_000)
  })
  const pid = child.pid
  if (pid === undefined) throw new Error(`could not spawn ${ANVIL_BIN}`)
  const url = `http://127.0.0.1:${port}`
  const exited = new Promise<void>((r) => child.once('exit', () => r()))
  const stop = async (): Promise<void> => {
    if (child.exitCode !== null || child.signalCode !== null) return
    process.kill(pid, 'SIGTERM')
    const timer = setTimeout(() => {
      try {
        process.kill(pid, 'SIGKILL')
      } catch {
        // gone
      }
    }, ANVIL_STOP_MS)
    await exited
    clearTimeout(timer)
  }
  try {
    await waitFor(() => rpc<string>(url, 'eth_chainId').catch(() => undefined), {
      timeoutMs: ANVIL_READY_MS,
      what: 'anvil',
    })
  } catch (err) {
    await stop()
    throw new Error(`anvil did not start: ${String(err)}\n${out}`)
  }
  return { url, pid, stop, output: () => out }
}

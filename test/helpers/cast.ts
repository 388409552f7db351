/**
 * Runs foundry's `cast` (npm package @foundry-rs/cast-linux-amd64, a prebuilt binary) against a
 * node, as a user at a shell would: the first-hour tests of issue 17 drive ibex through it.
 */
import { execFile } from 'node:child_process'
import { join } from 'node:path'
import { REPO_ROOT } from './compile.js'

export const CAST_BIN = join(REPO_ROOT, 'node_modules', '@foundry-rs', 'cast-linux-amd64', 'bin', 'cast')
/** CAST_TIMEOUT_MS bounds one cast run; cast waits for receipts, so allow a few blocks on a loaded machine. */
export const CAST_TIMEOUT_MS = 60_000

export interface CastResult {
  code: number
  stdout: string
  stderr: string
}

/** cast runs `cast <args>` and resolves with its exit code and output (never rejects on exit code). */
export function cast(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CastResult> {
  return new Promise((resolve, reject) => {
    execFile(
      CAST_BIN,
      args,
      { timeout: CAST_TIMEOUT_MS, env: { ...process.env, FOUNDRY_DISABLE_NIGHTLY_WARNING: '1', NO_COLOR: '1', ...env } },
      (err, stdout, stderr) => {
        if (err !== null && typeof err.code !== 'number') return reject(err)
        resolve({ code: err === null ? 0 : Number(err.code), stdout: stdout.toString(), stderr: stderr.toString() })
      },
    )
  })
}

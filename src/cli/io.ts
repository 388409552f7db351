/**
 * The CLI's window on the process: output lines, signals, exit. `processIo` is the real one;
 * tests build their own to capture output and send signals.
 */
export interface CliIo {
  /** Writes one line (newline added) to stdout. */
  out(line: string): void
  /** Writes one line (newline added) to stderr. */
  err(line: string): void
  /** Calls `handler` on SIGINT / SIGTERM until the returned function is called. */
  onSignal(handler: (signal: NodeJS.Signals) => void): () => void
  /** Ends the process at once (a second signal during shutdown). */
  exit(code: number): void
}

export const processIo: CliIo = {
  out: (line) => {
    process.stdout.write(`${line}\n`)
  },
  err: (line) => {
    process.stderr.write(`${line}\n`)
  },
  onSignal: (handler) => {
    process.on('SIGINT', handler)
    process.on('SIGTERM', handler)
    return () => {
      process.off('SIGINT', handler)
      process.off('SIGTERM', handler)
    }
  },
  exit: (code) => process.exit(code),
}
